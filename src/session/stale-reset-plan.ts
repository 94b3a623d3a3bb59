/**
 * RATE-003 on every path (issue 44): a Reset that crept on by less than a window (a second each
 * time it has passed) names a moment just ahead at every response of a busy run, and lies in the
 * past only once the key has been idle. A run whose first 61 keyed requests fit in one window ends
 * within a second of the refill, so once RATE-006's recovery was served, and the run saw a Reset
 * move on with nothing given back, one keyed request follows it STALE_RESET_SHOWS_AFTER_MS later,
 * unless the run already sent one that late. Pure: the caller passes the run's exchanges and the clock.
 */
import type { Exchange } from '../http/exchange.js';
import { receivedAt } from '../checks/response-date.js';
import { RETRY_AFTER_LATE_MS } from '../checks/retry-after-reset.js';
import { DATE_RESOLUTION_MS } from '../checks/server-clock.js';
import { limiterSaw, rateLimitValue } from '../checks/rate-limit-headers.js';
import { absoluteReset, ownCountedBetween } from '../checks/key-use.js';
import { operationOf } from '../checks/body.js';

/**
 * How long after the refill (the recovery served) a keyed request must come for a stale Reset to
 * show: one named at the refill or earlier, or moved a second on from there, on a clock up to a
 * second ahead and rounded up (RETRY_AFTER_LATE_MS's 3 s of reckoning), then lies more than
 * RATE-003's second before the response's whole second (two Date resolutions more).
 */
export const STALE_RESET_SHOWS_AFTER_MS = RETRY_AFTER_LATE_MS + 2 * DATE_RESOLUTION_MS;

/**
 * Whether the run saw a Reset move on with nothing given back: two keyed responses of one
 * operation in order (the earlier answered before the later was sent), both counted by the
 * limiter, the later naming a later Reset while its Remaining is no higher than the earlier one
 * less the run's requests that may have been counted in between (ownCountedBetween). A fixed
 * window's next Reset comes with the window full again; a Reset that creeps on by a second each
 * time it has passed comes without. Only a plan: the request it calls for is judged as any other,
 * and a token bucket or a busy shared key that shows the same costs one request and the wait.
 */
export function resetMovedWithoutRefill(exchanges: readonly Exchange[]): boolean {
  const previous = new Map<string, Exchange>();
  for (const ex of [...exchanges].sort((a, b) => a.seq - b.seq)) {
    if (ex.request.auth !== 'key' || ex.response === undefined || ex.response.status === 429 || !limiterSaw(ex)) continue;
    const operation = operationOf(ex) ?? 'other';
    const before = previous.get(operation);
    previous.set(operation, ex);
    if (before === undefined || receivedAt(before) > ex.sentAt) continue;
    const [resetBefore, resetAfter] = [absoluteReset(before), absoluteReset(ex)];
    const [remainingBefore, remainingAfter] = [rateLimitValue(before, 'x-ratelimit-remaining'), rateLimitValue(ex, 'x-ratelimit-remaining')];
    if (resetBefore === undefined || resetAfter === undefined || remainingBefore === undefined || remainingAfter === undefined || resetAfter <= resetBefore) continue;
    if (remainingAfter + BigInt(ownCountedBetween(exchanges, before, ex)) <= remainingBefore) return true;
  }
  return false;
}

/**
 * The moment (Unix ms, local clock) to send that request, or undefined: the recovery was refused
 * or unanswered, the run saw no Reset move on with nothing given back (resetMovedWithoutRefill:
 * the embedded run's windows, and every fixed window, refill as their Reset moves, so they cost
 * nothing), the run already sent a keyed request that late, or the wait is beyond --max-wait.
 */
export function staleResetProbeAt(recovery: Exchange, exchanges: readonly Exchange[], nowMs: number, maxWaitMs: number): number | undefined {
  const status = recovery.response?.status;
  if (status === undefined || status === 429) return undefined;
  const at = receivedAt(recovery) + STALE_RESET_SHOWS_AFTER_MS;
  if (exchanges.some((e) => e.request.auth === 'key' && e.sentAt >= at) || !resetMovedWithoutRefill(exchanges)) return undefined;
  return at - nowMs > maxWaitMs ? undefined : at;
}
