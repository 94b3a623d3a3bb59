/**
 * replay of a rise of X-RateLimit-Remaining (RATE-002, src/checks/remaining-rise.ts): a finding no
 * single response shows, and that re-sending its two exchanges cannot show again (a limit counted
 * per route gives each request a count of its own, one request apiece, and no rise). What shows it
 * is a sequence: the earlier request sent RISE_REPEATS times, the later one as often, then the
 * earlier once more, in one window, judged by the run's own rule. A count kept apart for either
 * request shows as a rise of RISE_REPEATS - 1 where the other request comes in; a request the
 * headers say was handled but the limiter did not count, as one of RISE_REPEATS - 2. So the
 * sequence says "no rise" only when it lay in one window long enough, and refilling slowly enough,
 * that a rise of RISE_REPEATS - 2 would have shown, starting in a fresh window (the two counts level):
 * otherwise it says it cannot decide. Pure: the plan, and the judgement of what came back
 * (resend.ts sends it, and waits for a fresh window when its first request did not meet one).
 */
import { findUnexplainedRises, inOneWindowOf, RISE_SEQUENCE } from '../checks/remaining-rise.js';
import { shortestWindowMs } from '../rate-limit/window-length.js';
import { limiterSaw, rateLimitValue } from '../checks/rate-limit-headers.js';
import { receivedAt } from '../checks/response-date.js';
import type { ServerClock } from '../checks/server-clock.js';
import type { Exchange } from '../http/exchange.js';
import type { Evidence, ExchangeEvidence, RequirementResult } from '../report/types.js';
import type { Judgement } from './judge.js';

/** How often each of the two requests is sent: enough for a rise of 4 that no slow refill hides. */
export const RISE_REPEATS = 6;
/** The smallest rise the sequence shows on a server that breaks the rule (see the file's comment). */
const SMALLEST_RISE = RISE_REPEATS - 2;
/** What a report written before `pairedWith` says of a rise, and of the exchange it compares. */
const RISE_MESSAGE = /^X-RateLimit-Remaining rose from /;
const COMPARED = /^compared with exchange #(\d+)/;

export interface RiseReplay {
  /** The violation's exchange (the later response), and the one it was compared with. */
  later: ExchangeEvidence;
  earlier: ExchangeEvidence;
}

/** The exchange the violation at `index` was compared with: its pairedWith, else (older reports) the entry after it. */
function pairOf(evidence: readonly Evidence[], index: number): ExchangeEvidence | undefined {
  const entry = evidence[index];
  const next = evidence[index + 1];
  const seq = entry?.pairedWith ?? Number(COMPARED.exec(next?.message ?? '')?.[1] ?? NaN);
  return next?.kind === 'exchange' && next.exchange?.seq === seq ? next.exchange : undefined;
}

/**
 * Whether a violation is a rise of Remaining: by the sequence that shows it, or, in reports written
 * before findings named it, by its words. Other RATE-002 findings pair two exchanges too (a
 * Remaining that stood still, an early 429): the rise sequence is not what shows them.
 */
export function isRise(requirement: string, e: Evidence): boolean {
  if (requirement !== 'RATE-002' || e.kind !== 'violation') return false;
  return e.shownOnlyBy === undefined ? RISE_MESSAGE.test(e.message) : e.shownOnlyBy === RISE_SEQUENCE;
}

/** The rises a replay sends a sequence for: each with both its exchanges in the report. */
export function riseReplays(failing: readonly RequirementResult[]): { replays: RiseReplay[]; unpaired: number } {
  const replays: RiseReplay[] = [];
  let unpaired = 0;
  for (const r of failing) {
    r.evidence.forEach((e, i) => {
      if (!isRise(r.id, e)) return;
      const earlier = pairOf(r.evidence, i);
      if (e.exchange === undefined || earlier === undefined) unpaired += 1;
      else replays.push({ later: e.exchange, earlier });
    });
  }
  return { replays, unpaired };
}

/** The requests in the order they are sent: the earlier RISE_REPEATS times, the later as often, the earlier once more. */
export function riseSequence(r: RiseReplay): ExchangeEvidence[] {
  return [...Array<ExchangeEvidence>(RISE_REPEATS).fill(r.earlier), ...Array<ExchangeEvidence>(RISE_REPEATS).fill(r.later), r.earlier];
}

/**
 * Whether a response is the first of a fresh window: Remaining Limit - 1. Only there do the two
 * requests' counts start level, so that one kept apart shows as a rise: mid-window, whatever
 * earlier requests left counted for either could hide it (or the sliding log's bound excuse it).
 */
export function freshWindow(ex: Exchange): boolean {
  const [remaining, limit] = [rateLimitValue(ex, 'x-ratelimit-remaining'), rateLimitValue(ex, 'x-ratelimit-limit')];
  return remaining !== undefined && limit !== undefined && remaining >= limit - 1n;
}

/** The longest a rise the sequence shows may take: from the first of one request's run to the first of the other's, or to the last request. */
function longestRiseSpanMs(sent: readonly Exchange[]): number {
  const span = (from: number, to: number): number => {
    const [a, b] = [sent[from], sent[to]];
    return a === undefined || b === undefined ? 0 : receivedAt(b) - a.sentAt;
  };
  return Math.max(span(0, RISE_REPEATS), span(RISE_REPEATS, 2 * RISE_REPEATS));
}

const describe = (r: RiseReplay): string =>
  `#${r.earlier.seq} (${r.earlier.request.method} ${r.earlier.request.target ?? r.earlier.request.url}) x${RISE_REPEATS}, #${r.later.seq} (${r.later.request.method} ${r.later.request.target ?? r.later.request.url}) x${RISE_REPEATS}, #${r.earlier.seq}`;

/**
 * The sequence's verdict, and whether sending it once more, in a fresh window, may decide what
 * this one could not (it met a window's end, a 429, or too little of a window). `seen`: all of
 * the replay's responses, which place the server's clock and size its windows far better than a
 * dozen sent within a tenth of a second.
 */
export function judgeRiseSequence(r: RiseReplay, sent: readonly Exchange[], seen: { clock: ServerClock | undefined; exchanges: readonly Exchange[] }): { judgement: Judgement; again: boolean } {
  const { clock } = seen;
  const name = `re-sent ${describe(r)}`;
  const unknown = (why: string, again: boolean) => ({ judgement: { outcome: 'unknown' as const, message: `${name}: ${why}` }, again });
  const unanswered = sent.find((ex) => ex.response === undefined);
  if (unanswered !== undefined) return unknown(`no response to #${unanswered.seq} (${unanswered.error?.code ?? 'error'}), so the sequence could not show a rise`, false);
  const throttled = sent.find((ex) => ex.response?.status === 429);
  if (throttled !== undefined) return unknown(`#${throttled.seq} was refused 429: the window ran out during the sequence`, true);
  const headerless = sent.find((ex) => !limiterSaw(ex));
  if (headerless !== undefined) return unknown(`#${headerless.seq} was answered without X-RateLimit-Remaining, so the count cannot be read`, false);
  const rises = findUnexplainedRises(sent, clock, seen.exchanges);
  if (rises[0] !== undefined) return { judgement: { outcome: 'violates', message: `${name}: ${rises[0].message}` }, again: false };
  const [first, last] = [sent[0], sent.at(-1)];
  if (first === undefined || !freshWindow(first)) {
    const told = first === undefined ? 'nothing' : `X-RateLimit-Remaining ${rateLimitValue(first, 'x-ratelimit-remaining') ?? '?'} of ${rateLimitValue(first, 'x-ratelimit-limit') ?? '?'}`;
    return unknown(`it did not start in a fresh window (its first response said ${told}): what earlier requests left counted could hide the rise`, true);
  }
  if (sent.length < RISE_REPEATS * 2 + 1) return unknown(`only ${sent.length} of its requests were sent`, false);
  const windowMs = shortestWindowMs(seen.exchanges, clock);
  if (clock === undefined || windowMs === undefined || last === undefined) {
    return unknown('its responses show no window longer than about 2 s (or no Date), too short to tell a rise from a refill', true);
  }
  if (!inOneWindowOf(first, last, clock)) return unknown('a window ended during the sequence, so its requests were not counted in one', true);
  const limit = Number(rateLimitValue(last, 'x-ratelimit-limit') ?? 0n);
  const refill = (limit * longestRiseSpanMs(sent)) / windowMs;
  if (refill >= SMALLEST_RISE) {
    return unknown(`a limiter of ${limit} per ${(windowMs / 1000).toFixed(1)} s refills ${refill.toFixed(1)} in the time the sequence took, enough to hide the rise of ${SMALLEST_RISE} it would show`, true);
  }
  const [from, to] = [rateLimitValue(first, 'x-ratelimit-remaining'), rateLimitValue(last, 'x-ratelimit-remaining')];
  return { judgement: { outcome: 'conforms', message: `${name}, in one window: X-RateLimit-Remaining fell from ${from} to ${to}, no rise` }, again: false };
}
