/**
 * Re-sends the exchanges behind each failure of a saved report, through the shared client (so
 * pacing, the budget and redaction hold), in the run's original order, and judges each response
 * for every requirement it once failed.
 *
 * Only exchanges cited by a violation are re-sent, and only for requirements a single exchange
 * can judge (judge.ts); identical requests are sent once and at most MAX_PER_REQUIREMENT per
 * requirement, since a failing listing often backs ten violations and the target's quota is
 * the user's. One the target answered 429 is re-sent only when the requirement failed on nothing
 * else: a replay cannot make the target throttle that request again, so its answer could only say
 * "could not tell", and whether the run's own requests met a 429 at all depends on its speed.
 *
 * A violation only a sequence of responses shows (Evidence.shownOnlyBy) is never re-sent alone:
 * its exchanges' answers could only ever conform. A rise of Remaining is replayed as the sequence
 * that can show it again (rise-sequence.ts); the others are left to the re-run (verdict.ts).
 */
import type { ConformanceClient } from '../http/client.js';
import { BudgetExhaustedError, RunHaltedError, TransportError } from '../http/errors.js';
import type { Exchange } from '../http/exchange.js';
import type { ExchangeEvidence, RequirementResult } from '../report/types.js';
import type { Plan } from '../plans.js';
import { hasJudge, judgeReplayed, sendsInPairs, type Judgement } from './judge.js';
import { rebuildRequest } from './request.js';
import { freshWindow, isRise, judgeRiseSequence, riseReplays, riseSequence, type RiseReplay } from './rise-sequence.js';
import { resetAheadMs } from '../rate-limit/window-length.js';
import { serverClockOf } from '../checks/server-clock.js';

export const MAX_PER_REQUIREMENT = 5;
const SAFE_METHODS: readonly string[] = ['GET', 'HEAD', 'OPTIONS'];

interface PlannedSend {
  original: ExchangeEvidence;
  requirements: string[];
  times: 1 | 2;
}

export interface ResendResult {
  /** Per requirement with a judge and evidence to re-send: one judgement per re-sent exchange. */
  judgements: Map<string, Judgement[]>;
  /** Per requirement: how many distinct failing exchanges were left unsent by the cap. */
  leftOut: Map<string, number>;
  /** Every exchange the replay sent, in order (redacted, like any record of the client). */
  exchanges: Exchange[];
}

function signature(ev: ExchangeEvidence): string {
  const r = ev.request;
  return JSON.stringify([r.method, r.target ?? r.url, r.auth ?? r.headers['authorization'] ?? '', r.body ?? null]);
}

export function planResends(failing: readonly RequirementResult[]): { sends: PlannedSend[]; leftOut: Map<string, number> } {
  const bySeq = new Map<number, PlannedSend>();
  const leftOut = new Map<string, number>();
  for (const r of failing) {
    if (!hasJudge(r.id)) continue;
    const distinct = new Map<string, ExchangeEvidence>();
    for (const e of r.evidence) {
      // What only a sequence shows, its exchanges re-sent alone could only ever say conforms (rise-sequence.ts, verdict.ts).
      if (e.kind !== 'violation' || e.exchange === undefined || e.shownOnlyBy !== undefined || isRise(r.id, e)) continue;
      if (!distinct.has(signature(e.exchange))) distinct.set(signature(e.exchange), e.exchange);
    }
    const all = [...distinct.values()];
    const answered = all.filter((ev) => ev.response?.status !== 429);
    const chosen = (answered.length > 0 ? answered : all).sort((a, b) => a.seq - b.seq);
    if (chosen.length > MAX_PER_REQUIREMENT) leftOut.set(r.id, chosen.length - MAX_PER_REQUIREMENT);
    for (const ev of chosen.slice(0, MAX_PER_REQUIREMENT)) {
      const planned = bySeq.get(ev.seq) ?? { original: ev, requirements: [], times: 1 };
      planned.requirements.push(r.id);
      if (sendsInPairs(r.id)) planned.times = 2;
      bySeq.set(ev.seq, planned);
    }
  }
  return { sends: [...bySeq.values()].sort((a, b) => a.original.seq - b.original.seq), leftOut };
}

export interface ResendContext {
  /** `pause`, when there is one, lets a rise's sequence wait for a fresh window. */
  client: Pick<ConformanceClient, 'send'> & Partial<Pick<ConformanceClient, 'pause'>>;
  /** --read-only: nothing but GET, HEAD and OPTIONS is re-sent. */
  readOnly: boolean;
  /** The target's base URL in the saved report: older reports give only absolute URLs. */
  reportBaseUrl: string;
  apiKey: string;
  plan?: Plan;
}

export async function resendFailures(failing: readonly RequirementResult[], ctx: ResendContext): Promise<ResendResult> {
  const { sends, leftOut } = planResends(failing);
  const judgements = new Map<string, Judgement[]>();
  const add = (ids: readonly string[], judge: (id: string) => Judgement): void => {
    for (const id of ids) judgements.set(id, [...(judgements.get(id) ?? []), judge(id)]);
  };
  const exchanges: Exchange[] = [];
  let stopped: string | undefined;
  /** One exchange of the report sent again: the answer, or why there is none (recorded as said). */
  const sendAgain = async (original: ExchangeEvidence, requirements: readonly string[]): Promise<Exchange | string> => {
    if (stopped !== undefined) return `exchange #${original.seq} was not re-sent: ${stopped}`;
    if (ctx.readOnly && !SAFE_METHODS.includes(original.request.method)) {
      return `exchange #${original.seq} (${original.request.method}) was not re-sent: writes are disabled (--read-only)`;
    }
    const rebuilt = rebuildRequest(original, { baseUrl: ctx.reportBaseUrl, apiKey: ctx.apiKey, purpose: `replay of #${original.seq} (${requirements.join(', ')})` });
    if (!rebuilt.ok) return rebuilt.reason;
    let ex: Exchange;
    try {
      ex = await ctx.client.send(rebuilt.request);
    } catch (error) {
      if (error instanceof TransportError) ex = error.exchange;
      else if (error instanceof BudgetExhaustedError || error instanceof RunHaltedError) {
        stopped = error.message;
        return `exchange #${original.seq} was not re-sent: ${error.message}`;
      } else throw error;
    }
    exchanges.push(ex);
    return ex;
  };
  let previousKeyed: Exchange | undefined;
  for (const planned of sends) {
    const { original, requirements } = planned;
    for (let i = 0; i < planned.times; i++) {
      const ex = await sendAgain(original, requirements);
      if (typeof ex === 'string') {
        add(requirements, () => ({ outcome: 'unknown', message: ex }));
        break;
      }
      const previous = previousKeyed;
      if (ex.request.auth === 'key' && ex.response !== undefined) previousKeyed = ex;
      // The first of a pair only sets up the second: judging it alone would count it twice.
      if (i + 1 < planned.times) continue;
      const seen = { clock: serverClockOf(exchanges), exchanges };
      add(requirements, (id) => judgeReplayed(id, original, ex, { ...(ctx.plan === undefined ? {} : { plan: ctx.plan }), ...(previous === undefined ? {} : { previousKeyed: previous, seen }) }) ?? { outcome: 'unknown', message: 'no judge' });
    }
  }
  const rises = riseReplays(failing);
  for (const rise of rises.replays) {
    const judgement = await replayRise(rise, sendAgain, ctx, exchanges);
    add([RISE_REQUIREMENT], () => judgement);
  }
  if (rises.unpaired > 0) add([RISE_REQUIREMENT], () => ({ outcome: 'unknown', message: `${rises.unpaired} rise(s) of X-RateLimit-Remaining whose earlier exchange the report does not hold: a replay cannot decide them` }));
  return { judgements, leftOut, exchanges };
}

const RISE_REQUIREMENT = 'RATE-002';
/** A rise's sequence is sent at most this often: once more, in a fresh window, when the first could not decide. */
const RISE_ATTEMPTS = 2;
/** Past the window's Reset, as the client's own waits add their margin. */
const FRESH_WINDOW_MARGIN_MS = 250;

/**
 * A rise of Remaining replayed as the sequence that can show it again (rise-sequence.ts): the
 * first request alone first, and the rest only when it met a fresh window; otherwise a wait for the
 * window's Reset (as long as the client may wait) and once more.
 */
async function replayRise(
  rise: RiseReplay,
  sendAgain: (ev: ExchangeEvidence, ids: readonly string[]) => Promise<Exchange | string>,
  ctx: ResendContext,
  seen: readonly Exchange[],
): Promise<Judgement> {
  let verdict: Judgement = { outcome: 'unknown', message: 'the rise\'s sequence was not sent' };
  for (let attempt = 0; attempt < RISE_ATTEMPTS; attempt++) {
    const sent: Exchange[] = [];
    for (const ev of riseSequence(rise)) {
      const ex = await sendAgain(ev, [RISE_REQUIREMENT]);
      if (typeof ex === 'string') return { outcome: 'unknown', message: ex };
      sent.push(ex);
      if (sent.length === 1 && !freshWindow(ex)) break;
    }
    const clock = serverClockOf(seen);
    const { judgement, again } = judgeRiseSequence(rise, sent, { clock, exchanges: seen });
    verdict = judgement;
    const last = sent.at(-1);
    const ahead = last === undefined ? undefined : resetAheadMs(last, clock);
    if (!again || attempt + 1 === RISE_ATTEMPTS || ahead === undefined || ctx.client.pause === undefined) break;
    const waited = await ctx.client.pause(Math.max(0, ahead) + FRESH_WINDOW_MARGIN_MS, 'the replay of a rise of X-RateLimit-Remaining waits for a fresh window');
    if (!waited) break;
  }
  return verdict;
}

/**
 * The requirements to re-run: the failing ones, and the tests that sent the exchanges behind
 * their violations (an exchange's purpose names its sender), those a violation was compared with
 * included. A cross-cutting requirement's test sends nothing of its own; without its senders, its
 * re-run would judge no response at all.
 */
export function rerunSelection(failing: readonly RequirementResult[], known: ReadonlySet<string>): string[] {
  const ids = new Set(failing.map((r) => r.id));
  for (const r of failing) {
    for (const e of r.evidence) {
      if ((e.kind !== 'violation' && e.kind !== 'exchange') || e.exchange === undefined) continue;
      for (const sender of e.exchange.purpose.match(/\b[A-Z]+-[0-9]{3}\b/g) ?? []) if (known.has(sender)) ids.add(sender);
    }
  }
  return [...ids];
}
