/**
 * How long the per-minute window is, as the run's responses show it: every limiter's Reset lies at
 * most one window ahead of its response, so the longest time to a Reset within a minute measures
 * it. Read two ways on purpose, each the cautious side for its users:
 * - `shortestWindowMs`, a lower bound, for rules that fail a server on a refill (a shorter window
 *   refills faster, so the rule allows more): RATE-002's rise, the recovery's stale-Reset request.
 *   Only what a verdict may rest on: RATE-003's plausible Reset on responses the limiter surely
 *   counted, from the latest moment they may have been handled, on the server's clock only.
 * - `observedWindowMs`, the longest seen, for plans (the burst, the list fill) and the line between
 *   the minute's Reset and the day's (`resetBeyondWindow`), where too long a window only calls
 *   fewer Resets the day's: any served keyed response's Unix-seconds Reset, else the spec's minute.
 */
import type { Exchange } from '../http/exchange.js';
import { DATE_RESOLUTION_MS, serverMoment, serverTimeOf, windowClockOf, type ServerClock } from '../checks/server-clock.js';
import { limiterCounted } from './counting.js';
import { plausibleResetMs } from './headers.js';
import { readExchange } from './reading.js';
import { MINUTE_RESET_AHEAD_MS, MINUTE_WINDOW_MS, WHOLE_SECONDS_MS } from './tolerances.js';

/** Milliseconds from the server's time of the response (serverTimeOf) to its X-RateLimit-Reset, when that is a Unix time in seconds. */
export function resetAheadMs(ex: Exchange, clock?: ServerClock): number | undefined {
  const reset = readExchange(ex).reset;
  return reset?.kind === 'unix-seconds' && reset.atMs !== undefined ? reset.atMs - serverTimeOf(ex, clock) : undefined;
}

/** Whether a Reset `aheadMs` ahead of its response lies beyond a window of `windowMs`, by more than a Reset's whole seconds: another limit's (the day's). */
export const resetBeyondWindow = (aheadMs: number, windowMs: number): boolean => aheadMs > windowMs + WHOLE_SECONDS_MS;

/**
 * The shortest window length the run's responses allow, in ms; undefined when that leaves none.
 * The longest time to a Reset less what a Reset may overstate: at most 2 s (rounded up to the
 * second, on a clock a second ahead of Date's), less when a response closer to its Reset shows
 * less (the rounding varies within one second, the clock not at all).
 */
export function shortestWindowMs(exchanges: readonly Exchange[], clock: ServerClock | undefined): number | undefined {
  if (clock === undefined) return undefined;
  const measuring = windowClockOf(exchanges, clock);
  let longest = 0;
  let overstates = WHOLE_SECONDS_MS;
  for (const ex of exchanges) {
    if (ex.request.auth !== 'key' || ex.response === undefined) continue;
    const resetMs = plausibleResetMs(ex, clock);
    const at = serverMoment(ex, measuring);
    if (resetMs === undefined || at === undefined) continue;
    overstates = Math.min(overstates, DATE_RESOLUTION_MS + resetMs - at.earliest);
    const ahead = resetMs - at.latest;
    if (limiterCounted(ex) && ahead <= MINUTE_RESET_AHEAD_MS) longest = Math.max(longest, ahead);
  }
  const shortest = longest - overstates;
  return shortest > 0 ? shortest : undefined;
}

/** The longest time to a Reset within a minute that the run's served keyed responses showed; the spec's minute when none did. */
export function observedWindowMs(exchanges: readonly Exchange[], clock?: ServerClock): number {
  let longest: number | undefined;
  for (const ex of exchanges) {
    if (ex.request.auth !== 'key' || ex.response === undefined || ex.response.status === 429) continue;
    const ahead = resetAheadMs(ex, clock);
    if (ahead !== undefined && ahead > 0 && ahead <= MINUTE_RESET_AHEAD_MS) longest = Math.max(longest ?? 0, ahead);
  }
  return longest ?? MINUTE_WINDOW_MS;
}
