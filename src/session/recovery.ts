/**
 * RATE-006's request: which one is judged as sent "after waiting Retry-After" once the run has a
 * 429 (RATE-005's, from the limit probe, the mid-run top-up or the burst at the end), or why none
 * can be. Pure: the caller passes the run's exchanges, the top-up's recovery and the clock.
 */
import type { Exchange } from '../http/exchange.js';
import { retryAfterPassesAt } from '../checks/response-date.js';

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
