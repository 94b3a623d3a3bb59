/**
 * RATE-003 on every path (issue 44): a Reset that crept on by less than a window (a second each
 * time it has passed) names a moment just ahead at every response of a busy run, and lies in the
 * past only once the key has been idle. A run whose first 61 keyed requests fit in one window ends
 * within a second of the refill, so once RATE-006's recovery was served one keyed request follows it
 * STALE_RESET_SHOWS_AFTER_MS later, unless the run already sent one that late. Pure: the caller
 * passes the run's exchanges, the window the run measured and the clock.
 */
import type { Exchange } from '../http/exchange.js';
import { receivedAt } from '../checks/response-date.js';
import { RETRY_AFTER_LATE_MS } from '../checks/retry-after-reset.js';
import { DATE_RESOLUTION_MS } from '../checks/server-clock.js';

/**
 * How long after the refill (the recovery served) a keyed request must come for a stale Reset to
 * show: one named at the refill or earlier, or moved a second on from there, on a clock up to a
 * second ahead and rounded up (RETRY_AFTER_LATE_MS's 3 s of reckoning), then lies more than
 * RATE-003's second before the response's whole second (two Date resolutions more).
 */
export const STALE_RESET_SHOWS_AFTER_MS = RETRY_AFTER_LATE_MS + 2 * DATE_RESOLUTION_MS;

/**
 * Windows the run measured no longer than this (the embedded run's and most variants' windows of a
 * second, and windows of 2 s, which a whole-second Reset measures at up to about 2 s) are not
 * waited for: a Reset a second on is then the next window's, or within a second of it, and the
 * wait would be most of such a run. Windows of 3 s and more are.
 */
export const STALE_RESET_WINDOW_MS = 2_500;

/**
 * The moment (Unix ms, local clock) to send that request, or undefined: the recovery was refused
 * or unanswered, the run's windows (`windowMs`, observedWindowMs) are no longer than
 * STALE_RESET_WINDOW_MS, the run already sent a keyed request that late, or the wait is beyond
 * --max-wait.
 */
export function staleResetProbeAt(recovery: Exchange, exchanges: readonly Exchange[], windowMs: number, nowMs: number, maxWaitMs: number): number | undefined {
  const status = recovery.response?.status;
  if (status === undefined || status === 429 || windowMs <= STALE_RESET_WINDOW_MS) return undefined;
  const at = receivedAt(recovery) + STALE_RESET_SHOWS_AFTER_MS;
  if (exchanges.some((e) => e.request.auth === 'key' && e.sentAt >= at)) return undefined;
  return at - nowMs > maxWaitMs ? undefined : at;
}
