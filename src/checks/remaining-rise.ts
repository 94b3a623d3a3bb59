/**
 * RATE-002, "requests remaining in the current window", against time: within one window,
 * X-RateLimit-Remaining may rise only by what a refill can give in the time between two
 * responses. Judged once the run is over, on every pair of the run's keyed responses that did not
 * overlap, whatever operations they belong to, so the verdict does not depend on where the run's
 * windows fall (a limit counted per route shows as a rise wherever the run moves to another
 * operation).
 *
 * A pair is in one window as sameWindow (src/rate-limit/window.ts) decides it, a Reset some
 * response named when that moment had surely come marking no window (RATE-003 fails that Reset). No conforming
 * limiter explains a rise there that breaks both of these:
 * - a token bucket (or a sliding window counter) refills at most Limit per window length: from
 *   the earlier response to the later one, Remaining can rise by less than Limit x elapsed / window
 *   beyond the run's requests counted in between (its whole-token count adds less than one);
 * - a sliding log gives back in bulk, but only requests older than the window: the run's own
 *   requests of the last window length still count, so Remaining is at most Limit minus them.
 * A fixed window gives back nothing before its Reset. The window length is bounded from below by
 * the longest time to a Reset (within a minute) the run saw, on the server's clock, less what a
 * Reset may overstate (shortestWindowMs, src/rate-limit/window-length.ts); where that leaves no time, nothing is judged. Other users
 * of a shared key only ever make Remaining fall, so the shared-key allowance never explains a rise.
 */
import type { Exchange } from '../http/exchange.js';
import { shownOnlyBy, violation, type Finding } from './finding.js';
import { readingOf, type Reading } from '../rate-limit/reading.js';
import { CountedRequests } from '../rate-limit/counting.js';
import { resetsRepeatedPast, sameWindow } from '../rate-limit/window.js';
import { shortestWindowMs } from '../rate-limit/window-length.js';
import { receivedAt } from './response-date.js';
import type { ServerClock } from './server-clock.js';
import { iso } from './text.js';
import { IN_FLIGHT_TOLERANCE_MS } from '../rate-limit/tolerances.js';

const REQ = 'RATE-002';
/** What shows a rise (Finding.shownOnlyBy): replay re-sends this sequence and no other RATE-002 finding as one. */
export const RISE_SEQUENCE = 'a rise of X-RateLimit-Remaining between two responses of one window';
/** Earlier responses of the window each later one is compared with: the rises that matter show within a few requests. */
const PAIRS_BACK = 64;

/**
 * Whether two keyed responses, each with Remaining, Limit and a plausible Reset, lie in one window
 * as the rise rule reads it (replay asks it of a sequence it sends again: src/replay/rise-sequence.ts).
 */
export function inOneWindowOf(earlier: Exchange, later: Exchange, clock: ServerClock): boolean {
  const [a, b] = [readingOf(earlier, clock), readingOf(later, clock)];
  return a !== undefined && b !== undefined && sameWindow(a, b, clock);
}

/** A rise that neither refill explains, with the figures the finding states. */
interface Rise {
  earlier: Reading;
  later: Reading;
  elapsedMs: number;
  between: number;
  refill: number;
  recent: number;
  /** How far beyond the refill the rise went: the most telling pair of a window is reported. */
  beyond: number;
}

/**
 * RATE-002 on every pair of the run's keyed responses in one window (see the file's comment): at
 * most one finding per window, the pair whose rise went furthest beyond a refill, naming the later
 * exchange and paired with the earlier one (both shown as evidence). The window length is read
 * from `sizedBy` (replay judges a short sequence by all the responses it has seen).
 */
export function findUnexplainedRises(exchanges: readonly Exchange[], clock: ServerClock | undefined, sizedBy: readonly Exchange[] = exchanges): Finding[] {
  const windowMs = shortestWindowMs(sizedBy, clock);
  if (clock === undefined || windowMs === undefined) return [];
  const counts = new CountedRequests(exchanges);
  const bySeq = [...exchanges].sort((a, b) => a.seq - b.seq);
  const readings = bySeq.map((ex) => readingOf(ex, clock)).filter((r): r is Reading => r !== undefined);
  const repeatedPast = resetsRepeatedPast(sizedBy, clock);
  const worst = new Map<number, Rise>();
  for (const [i, later] of readings.entries()) {
    let recent: number | undefined;
    for (const earlier of readings.slice(Math.max(0, i - PAIRS_BACK), i).reverse()) {
      if (receivedAt(earlier.ex) > later.ex.sentAt + IN_FLIGHT_TOLERANCE_MS || !sameWindow(earlier, later, clock, repeatedPast)) continue;
      const between = counts.surelyBetween(earlier.ex, later.ex);
      const elapsedMs = receivedAt(later.ex) - earlier.ex.sentAt;
      const limit = Number(later.limit > earlier.limit ? later.limit : earlier.limit);
      const refill = (limit * elapsedMs) / windowMs;
      // Remaining cannot fall below 0: requests served once it reached 0 are served over the limit
      // (RATE-005's finding), not a rise, so the fall they owe is counted down to 0 only.
      const rise = Number(later.remaining) - Math.max(0, Number(earlier.remaining) - between) - 1;
      if (rise <= 0 || rise < refill) continue;
      // Costly, so once per later response, and only where the bucket's refill did not explain it.
      recent ??= counts.surelyWithin(later.ex, windowMs);
      if (Number(later.remaining) + recent <= Number(later.limit)) continue;
      const beyond = rise - refill;
      const known = worst.get(earlier.resetMs);
      if (known === undefined || beyond > known.beyond) worst.set(earlier.resetMs, { earlier, later, elapsedMs, between, refill, recent, beyond });
    }
  }
  return [...worst.values()].map((r) => riseFinding(r, windowMs));
}

const named = (ex: Exchange): string => `exchange ${ex.seq}, ${ex.request.method} ${ex.request.target}`;

/** How Remaining went between the two: a rise beyond the fall the requests in between owe may be no rise at all in the figures. */
export function remainingMoved(earlier: Reading, later: Reading): string {
  if (later.remaining > earlier.remaining) return `rose from ${earlier.remaining} (${named(earlier.ex)}) to ${later.remaining} (${named(later.ex)})`;
  if (later.remaining === earlier.remaining) return `stayed at ${later.remaining} from ${named(earlier.ex)} to ${named(later.ex)}`;
  return `fell only from ${earlier.remaining} (${named(earlier.ex)}) to ${later.remaining} (${named(later.ex)})`;
}

function riseFinding(r: Rise, windowMs: number): Finding {
  const { earlier, later } = r;
  const seconds = (windowMs / 1000).toFixed(1);
  const finding = violation(
    REQ,
    `X-RateLimit-Remaining ${remainingMoved(earlier, later)} within the window ending ${iso(earlier.resetMs)}, ` +
      `${Math.round(r.elapsedMs)} ms later, with ${r.between} of the run's requests counted in between. No refill gives that: a fixed window refills only at its Reset; ` +
      `a token bucket of ${later.limit} per ${seconds} s or longer refills fewer than ${Math.ceil(r.refill)} in that time; a sliding log of ${seconds} s or longer still counts the ${r.recent} requests the run made in its last ${seconds} s ` +
      `/ Expected Remaining to fall with each request until the window resets`,
    later.ex.seq,
  );
  // The most Remaining could have shown under the rule: a refill of the bucket, or a sliding log's count.
  const bucket = Math.max(0, Number(earlier.remaining) - r.between) + 1 + Math.max(0, Math.ceil(r.refill) - 1);
  const atMost = Math.max(bucket, Number(later.limit) - r.recent);
  return { ...shownOnlyBy(finding, RISE_SEQUENCE), pairedWith: earlier.ex.seq, expected: { kind: 'remaining-at-most', value: atMost } };
}
