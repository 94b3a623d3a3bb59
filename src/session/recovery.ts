/**
 * RATE-006's request: which one is judged as sent "after waiting Retry-After" once the run has a
 * 429 (RATE-005's, from the limit probe, the mid-run top-up or the burst at the end), or why none
 * can be. Pure: the caller passes the run's exchanges, the top-up's recovery and the clock.
 */
import type { Exchange } from '../http/exchange.js';
import { receivedAt, retryAfterPassesAt } from '../checks/response-date.js';
import { plausibleResetMs } from '../checks/rate-limit-headers.js';
import { shortestWindowMs } from '../rate-limit/window-length.js';
import { DATE_RESOLUTION_MS, type ServerClock } from '../checks/server-clock.js';
import { WHOLE_SECONDS_MS } from '../rate-limit/tolerances.js';

export type RecoveryStep =
  | { kind: 'cannot'; reason: string }
  /** A request that already waited for the 429's Retry-After: judge it, send nothing more. */
  | { kind: 'judge'; ex: Exchange }
  /** Send one request exactly when Retry-After has passed (Unix ms). */
  | { kind: 'send'; retryAt: number };

export interface RecoveryInputs {
  throttledBy: Exchange;
  exchanges: readonly Exchange[];
  /** The mid-run top-up (SendScheduler.topUp): its 429, and the request it sent after it. */
  topUp?: { result: { throttled?: Exchange | undefined }; recovery?: Exchange | undefined } | undefined;
  nowMs: number;
  maxWaitMs: number;
}

export function recoveryStep({ throttledBy, exchanges, topUp, nowMs, maxWaitMs }: RecoveryInputs): RecoveryStep {
  const retryAt = retryAfterPassesAt(throttledBy);
  // Whatever followed such a 429 (the client's retry, the top-up's next request) waited the
  // client's own backoff, not a Retry-After: served or refused, it says nothing of one. Judging
  // it would make the verdict depend on which path the run took, and that follows the machine's load.
  if (retryAt === undefined) return { kind: 'cannot', reason: `the 429 of exchange ${throttledBy.seq} gave no usable Retry-After (RATE-005), so there is no moment to retry at` };
  // The client's retry of the limit probe waited exactly Retry-After: it is the recovery check (a 429 to it is in the ledger).
  const retried = exchanges.find((e) => e.retryOf === throttledBy.seq);
  if (retried !== undefined) return { kind: 'judge', ex: retried };
  // The mid-run burst's 429 was followed at once by the request at exactly Retry-After.
  if (topUp?.recovery !== undefined && topUp.result.throttled === throttledBy) return { kind: 'judge', ex: topUp.recovery };
  if (retryAt - nowMs > maxWaitMs) {
    return { kind: 'cannot', reason: `Retry-After ${JSON.stringify(throttledBy.response?.headers['retry-after'])} asks for a longer wait than the ${maxWaitMs / 1000} s allowed (--max-wait)` };
  }
  return { kind: 'send', retryAt };
}

/**
 * A keyed request after RATE-006's recovery, far enough past the refill for a stale Reset to show
 * (issue 44): a Reset computed once, or one that creeps on a second each time it has passed, names
 * a moment just ahead at every response of a busy run, and lies beyond RATE-003's tolerance only
 * once the key has been idle. A run whose keyed requests all fall in one window ends within a
 * second of the refill, so its plan would show them at some phases of the window only.
 *
 * A fixed window that refilled at the retry names its end about a window ahead; a token bucket its
 * moment full, most of a window ahead once it is empty. The request is planned where the
 * recovery's Reset does not: it lies no more than the whole-second tolerance ahead
 * (WHOLE_SECONDS_MS), and either it is no later than the 429's (the refill came without a new
 * Reset) or no further ahead than the shortest window the run's responses allow
 * (shortestWindowMs). A sliding log whose next request expires soon costs the request and its wait
 * too; windows of a second (the embedded run's) measure no window and never wait.
 */
export interface StaleResetInputs {
  throttledBy: Exchange;
  recovery: Exchange;
  exchanges: readonly Exchange[];
  clock: ServerClock | undefined;
  nowMs: number;
  maxWaitMs: number;
}

/**
 * How far past the recovery's Reset the request goes, on the server's earliest clock: a Reset of
 * that moment, or one a second on (DATE_RESOLUTION_MS), then lies before the earliest that
 * RATE-003 accepts of the response (resetSurelyPassedAt), WHOLE_SECONDS_MS behind its whole second.
 */
export const STALE_RESET_SHOWS_AFTER_MS = WHOLE_SECONDS_MS + 2 * DATE_RESOLUTION_MS;

/** The local moment (Unix ms) to send that request, or undefined (see StaleResetInputs). */
export function staleResetProbeAt({ throttledBy, recovery, exchanges, clock, nowMs, maxWaitMs }: StaleResetInputs): number | undefined {
  const status = recovery.response?.status;
  const resetMs = plausibleResetMs(recovery, clock);
  if (clock === undefined || status === undefined || status === 429 || resetMs === undefined) return undefined;
  const ahead = resetMs - (receivedAt(recovery) + clock.narrowHigh);
  if (ahead > WHOLE_SECONDS_MS) return undefined;
  const refilledWithoutNewReset = resetMs <= (plausibleResetMs(throttledBy, clock) ?? Number.NEGATIVE_INFINITY);
  const windowMs = shortestWindowMs(exchanges, clock);
  if (!refilledWithoutNewReset && (windowMs === undefined || ahead > windowMs)) return undefined;
  const at = resetMs + STALE_RESET_SHOWS_AFTER_MS - clock.low;
  if (exchanges.some((e) => e.request.auth === 'key' && e.sentAt >= at)) return undefined;
  return at - nowMs > maxWaitMs ? undefined : at;
}
