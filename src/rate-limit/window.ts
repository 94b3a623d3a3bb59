/**
 * The one notion of "the same window" every rate-limit rule reads: whether a later response was
 * surely handled in the window an earlier one announced. The rules that fail a server on what
 * happened within a window (a rise of Remaining, a 429 while requests were left, a Limit that
 * changed, Remaining standing still) ask it, so it must never say yes where a conforming limiter
 * may already have moved on.
 */
import type { Exchange } from '../http/exchange.js';
import { serverMoment, type ServerClock } from '../checks/server-clock.js';
import { readExchange } from './reading.js';
import { resetSurelyPassedAt } from './headers.js';
import { WHOLE_SECONDS_MS } from './tolerances.js';

/** A response's window as it announced it: its Reset on the server's clock, where the Reset passes RATE-003 on its own (plausibleResetMs). */
export interface Announced {
  ex: Exchange;
  resetMs: number;
}

/**
 * The Resets some keyed response named when they had surely come (resetSurelyPassedAt: RATE-003
 * fails it as past): the server goes on naming a window that has ended (a Reset that stopped
 * moving). Such a Reset marks no window, so naming it twice shows nothing about where the second
 * response was handled; a response whose moment is known only loosely (a request in flight for a
 * long time on a busy machine, a Date that lags) could otherwise be read as handled before it
 * while the counter had already turned. RATE-003 fails every Reset in the set, so leaving its
 * pairs out of the other rules can hide nothing RATE-003 does not show.
 */
export function resetsRepeatedPast(exchanges: readonly Exchange[], clock: ServerClock | undefined): ReadonlySet<number> {
  const past = new Set<number>();
  for (const ex of exchanges) {
    const { keyed, reset } = readExchange(ex);
    const atMs = reset?.atMs;
    if (keyed && atMs !== undefined && !past.has(atMs) && resetSurelyPassedAt(atMs, ex, clock)) past.add(atMs);
  }
  return past;
}

const NONE: ReadonlySet<number> = new Set();

/**
 * Whether `later` was surely handled in the window `earlier` announced:
 * - it names the same Reset, and that moment had not come when it was handled: a Reset repeated
 *   once its moment has come names a window the server itself says is over (a refill there is what
 *   a window's end gives; a Reset that stopped moving is RATE-003's). Not for a Reset some response
 *   named when its moment had surely come (`repeatedPast`, resetsRepeatedPast): it marks no window;
 * - or, whatever Reset it names (none, on a 429 that carries only Retry-After), it was handled
 *   surely more than the whole-second tolerance before the earlier Reset: a Reset rounded to the
 *   second on a clock a second from the Date's may end the window that much sooner.
 */
export function sameWindow(
  earlier: Announced,
  later: { ex: Exchange; resetMs?: number | undefined },
  clock: ServerClock | undefined,
  repeatedPast: ReadonlySet<number> = NONE,
): boolean {
  const at = serverMoment(later.ex, clock);
  if (later.resetMs === earlier.resetMs && !repeatedPast.has(earlier.resetMs)) return at === undefined || at.earliest < earlier.resetMs;
  return at !== undefined && at.latest < earlier.resetMs - WHOLE_SECONDS_MS;
}
