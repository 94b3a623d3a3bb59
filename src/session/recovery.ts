/**
 * RATE-006's request: which one is judged as sent "after waiting Retry-After" once the run has a
 * 429 (RATE-005's, from the limit probe, the mid-run top-up or the burst at the end), or why none
 * can be. Pure: the caller passes the run's exchanges, the top-up's recovery and the clock.
 */
import type { Exchange } from '../http/exchange.js';
import { receivedAt, retryAfterPassesAt } from '../checks/response-date.js';
import { RETRY_AFTER_LATE_MS } from '../checks/retry-after-reset.js';
import { DATE_RESOLUTION_MS } from '../checks/server-clock.js';

export type RecoveryStep =
  | { kind: 'cannot'; reason: string }
  /** A request that already waited for the 429's Retry-After: judge it, send nothing more. */
  | { kind: 'judge'; ex: Exchange }
  /** Send one request exactly when Retry-After has passed (Unix ms). */
  | { kind: 'send'; retryAt: number };

export interface RecoveryInputs {
  throttledBy: Exchange;
  exchanges: readonly Exchange[];
  /** The mid-run top-up (Session.topUp): its 429, and the request it sent after it. */
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
 * How long after the refill (the recovery served) the run's keyed requests must reach for a stale
 * Reset to show: one named at the refill or earlier, or moved a second on from there, on a clock
 * up to a second ahead and rounded up (RETRY_AFTER_LATE_MS's 3 s of reckoning), then lies more than
 * RATE-003's second before the response's whole second (two Date resolutions more), whatever phase
 * the run's windows had.
 */
export const STALE_RESET_SHOWS_AFTER_MS = RETRY_AFTER_LATE_MS + 2 * DATE_RESOLUTION_MS;

/**
 * RATE-003 on every path: when the recovery was served and no keyed request of the run was sent
 * STALE_RESET_SHOWS_AFTER_MS or more after it, the moment (Unix ms) to send one, so a Reset that
 * stopped moving (computed once, or crept on by less than a window) lies in the past beyond the
 * tolerance wherever the run's windows fell; undefined when the run already shows it, the
 * recovery was refused or unanswered, or the wait is beyond --max-wait.
 */
export function staleResetProbeAt(recovery: Exchange, exchanges: readonly Exchange[], nowMs: number, maxWaitMs: number): number | undefined {
  const status = recovery.response?.status;
  if (status === undefined || status === 429) return undefined;
  const at = receivedAt(recovery) + STALE_RESET_SHOWS_AFTER_MS;
  if (exchanges.some((e) => e.request.auth === 'key' && e.sentAt >= at)) return undefined;
  return at - nowMs > maxWaitMs ? undefined : at;
}
