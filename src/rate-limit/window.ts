/**
 * The one notion of "the same window" every rate-limit rule reads: whether a later response was
 * surely handled in the window an earlier one announced. The rules that fail a server on what
 * happened within a window (a rise of Remaining, a 429 while requests were left, a Limit that
 * changed, Remaining standing still) ask it, so it must never say yes where a conforming limiter
 * may already have moved on.
 */
import type { Exchange } from '../http/exchange.js';
import { serverMoment, type ServerClock } from '../checks/server-clock.js';
import { WHOLE_SECONDS_MS } from './tolerances.js';

/** A response's window as it announced it: its Reset on the server's clock, where the Reset passes RATE-003 on its own (plausibleResetMs). */
export interface Announced {
  ex: Exchange;
  resetMs: number;
}

/**
 * Whether `later` was surely handled in the window `earlier` announced:
 * - it names the same Reset, and that moment had not come when it was handled: a Reset repeated
 *   once its moment has come names a window the server itself says is over (a refill there is what
 *   a window's end gives; a Reset that stopped moving is RATE-003's);
 * - or, whatever Reset it names (none, on a 429 that carries only Retry-After), it was handled
 *   surely more than the whole-second tolerance before the earlier Reset: a Reset rounded to the
 *   second on a clock a second from the Date's may end the window that much sooner.
 */
export function sameWindow(earlier: Announced, later: { ex: Exchange; resetMs?: number | undefined }, clock: ServerClock | undefined): boolean {
  const at = serverMoment(later.ex, clock);
  if (later.resetMs === earlier.resetMs) return at === undefined || at.earliest < earlier.resetMs;
  return at !== undefined && at.latest < earlier.resetMs - WHOLE_SECONDS_MS;
}
