import type { Exchange } from './exchange.js';

/**
 * Errors the client throws when it must not (or cannot) go on. Each carries a stable `code`,
 * as undici's errors do, so callers can branch on it without instanceof across module copies.
 * Messages never contain the API key.
 */
export abstract class ClientError extends Error {
  abstract readonly code: string;
}

/** The run-wide request budget is spent; nothing was sent. */
export class BudgetExhaustedError extends ClientError {
  readonly code = 'PC_BUDGET';
  constructor(readonly maxRequests: number) {
    super(`request budget exhausted: all ${maxRequests} requests of the run have been sent`);
    this.name = 'BudgetExhaustedError';
  }
}

/**
 * 'bad-key' and 'wrong-base-url' are the preflight's: the user's mistake, not the server's;
 * 'aborted': the caller's AbortSignal; 'interrupted': a signal to the process (SIGINT, SIGTERM),
 * passed on by the CLI (or a library caller) as the AbortSignal's reason.
 */
export type HaltReason = 'throttled' | 'wait-too-long' | 'transport' | 'deadline' | 'bad-key' | 'wrong-base-url' | 'aborted' | 'interrupted';

/**
 * The run must stop talking to the server: going on would risk getting the key banned
 * (repeated 429s), would wait longer than allowed, would pass the run's deadline, or the server
 * is unreachable. Once thrown, every further send throws it again without sending.
 */
export class RunHaltedError extends ClientError {
  readonly code = 'PC_HALTED';
  constructor(
    readonly reason: HaltReason,
    message: string,
  ) {
    super(message);
    this.name = 'RunHaltedError';
  }
}

/** 'stopped': the run was stopped while the request was in flight, and the answer did not come within the stop's grace. */
export type TransportErrorKind = 'timeout' | 'reset' | 'refused' | 'dns' | 'tls' | 'stopped' | 'other';

/** No response came; the recorded exchange has `error` set instead of `response`. */
export class TransportError extends ClientError {
  readonly code = 'PC_TRANSPORT';
  constructor(
    readonly subCode: TransportErrorKind,
    readonly exchange: Exchange,
    message: string,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

export function isClientError(value: unknown): value is ClientError {
  return value instanceof ClientError;
}
