/**
 * The key's windows as the run's responses show them, for RATE-002's account of who spent the
 * key (key-use.ts, deferred-counting.ts): the gaps between served keyed responses of one window,
 * the served responses of each window, and what other users of a shared key may spend of one.
 * One window is what sameWindow (src/rate-limit/window.ts) says it is.
 */
import type { Exchange } from '../http/exchange.js';
import { plausibleResetMs } from '../rate-limit/headers.js';
import { readExchange } from '../rate-limit/reading.js';
import { limiterCounted, possiblyCountedBetween } from '../rate-limit/counting.js';
import { resetsRepeatedPast, sameWindow, type Announced } from '../rate-limit/window.js';
import { receivedAt } from './response-date.js';
import type { ServerClock } from './server-clock.js';

/** Other users of a shared key may spend this many of the announced requests unseen: max(2, 10 % of Limit). */
export function sharedKeyAllowance(limit: bigint | undefined): bigint {
  const tenth = limit === undefined ? 0n : (limit + 9n) / 10n;
  return tenth > 2n ? tenth : 2n;
}

/**
 * What other users of the key may have spent of one window unseen: nothing on a dedicated key; on a
 * shared one the allowance, or the most the run saw them spend of one window (`seenOthers`) when larger.
 */
export function othersMaySpend(dedicated: boolean, limit: bigint | undefined, seenOthers: bigint): bigint {
  if (dedicated) return 0n;
  const allowance = sharedKeyAllowance(limit);
  return allowance > seenOthers ? allowance : seenOthers;
}

/** One gap between two keyed responses of one window, and what others spent in it at least. */
export interface Gap {
  from: Exchange;
  to: Exchange;
  fell: bigint;
  /** The run's requests the server may have counted after `from` and up to `to` (`to` included). */
  own: number;
  others: bigint;
}

/** A response's window as it announced it (its plausible Reset), when it also carries Remaining. */
export function announcedBy(ex: Exchange, clock: ServerClock | undefined): (Announced & { remaining: bigint }) | undefined {
  const resetMs = plausibleResetMs(ex, clock);
  const remaining = readExchange(ex).remaining;
  return resetMs === undefined || remaining === undefined ? undefined : { ex, resetMs, remaining };
}

/** Whether `later` was surely handled in the window `earlier` announced (sameWindow; `repeatedPast` as resetsRepeatedPast gives it). */
export const inWindowOf = (earlier: Announced, later: Exchange, clock: ServerClock | undefined, repeatedPast?: ReadonlySet<number>): boolean =>
  sameWindow(earlier, { ex: later, resetMs: plausibleResetMs(later, clock) }, clock, repeatedPast);

/**
 * The run's keyed requests the limiter counted (limiterCounted). A response without Remaining (its
 * request perhaps refused before the limiter) neither starts nor ends a gap; it counts as the
 * run's own in the one spanning it.
 */
const servedKeyed = (exchanges: readonly Exchange[]): Exchange[] => exchanges.filter(limiterCounted);

/**
 * The gaps between served keyed responses of one window (the later in the window the earlier
 * announced), keyed by the earlier one's Reset, each from the end of the one before, where the
 * first was answered before the second was sent: only then is there an order to read. A response
 * in flight with the gap's start (requests sent together) is passed over, and counted as the
 * run's own in the gap that spans it, so no gap overlaps another.
 */
export function gapsByWindow(exchanges: readonly Exchange[], clock: ServerClock | undefined): Map<number, Gap[]> {
  const windows = new Map<number, Gap[]>();
  const repeatedPast = resetsRepeatedPast(exchanges, clock);
  let previous: Exchange | undefined;
  for (const ex of servedKeyed(exchanges)) {
    const from = previous;
    if (from !== undefined && receivedAt(from) > ex.sentAt) continue;
    previous = ex;
    const before = from === undefined ? undefined : announcedBy(from, clock);
    const after = readExchange(ex).remaining;
    if (before === undefined || after === undefined || !inWindowOf(before, ex, clock, repeatedPast)) continue;
    const own = possiblyCountedBetween(exchanges, before.ex, ex);
    const fell = before.remaining - after;
    const gap = { from: before.ex, to: ex, fell, own, others: fell - BigInt(own) };
    const gaps = windows.get(before.resetMs);
    if (gaps === undefined) windows.set(before.resetMs, [gap]);
    else gaps.push(gap);
  }
  return windows;
}

/**
 * The served keyed responses of each window, by its Reset: those that announce it while it still
 * holds them (the first of them, and each handled in the window it announced).
 */
export function servedByWindow(exchanges: readonly Exchange[], clock: ServerClock | undefined): Map<number, Exchange[]> {
  const windows = new Map<number, { first: Announced; members: Exchange[] }>();
  const repeatedPast = resetsRepeatedPast(exchanges, clock);
  for (const e of servedKeyed(exchanges)) {
    const resetMs = plausibleResetMs(e, clock);
    if (resetMs === undefined) continue;
    const window = windows.get(resetMs);
    if (window === undefined) windows.set(resetMs, { first: { ex: e, resetMs }, members: [e] });
    else if (inWindowOf(window.first, e, clock, repeatedPast)) window.members.push(e);
  }
  return new Map([...windows].map(([resetMs, w]) => [resetMs, w.members]));
}
