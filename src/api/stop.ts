/**
 * How a run is stopped from outside: the caller's AbortSignal. Its reason tells a signal to the
 * process ('SIGINT', 'SIGTERM', 'SIGHUP', as the CLI passes them: the report says `interrupted`
 * and which signal) from any other abort (`aborted`). Either way the run stops the same way: nothing
 * new is sent, the requests in flight get STOP_GRACE_MS to be answered, every test still to come
 * ends at once with what was seen, and the report keeps every verdict reached.
 */
import type { Report, StopSignal } from '../report/types.js';

export const STOP_SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * What a request in flight at the stop gets to be answered: long enough for a normal answer,
 * short enough that a CI runner's grace (GitHub: 7.5 s from SIGINT to SIGTERM) still sees the
 * reports written.
 */
export const STOP_GRACE_MS = 2_000;
/**
 * After the grace, what the remaining tests get to end by themselves (they send nothing; the
 * cross-cutting ones judge what the run saw) before vitest's run is cancelled outright.
 */
export const STOP_SETTLE_MS = 3_000;

export interface RunStop {
  reason: 'aborted' | 'interrupted';
  signal?: StopSignal;
  /** When the stop came. */
  at: Date;
  /** report.json's `halted.message`. */
  message: string;
  /** The reason of every requirement the stop kept from being judged. */
  unjudged: string;
}

export function isStopSignal(value: unknown): value is StopSignal {
  return typeof value === 'string' && (STOP_SIGNALS as readonly string[]).includes(value);
}

/** The stop an aborted signal stands for, as the report will say it. */
export function stopOf(signal: AbortSignal, at = new Date()): RunStop {
  const reason: unknown = signal.reason;
  if (isStopSignal(reason)) {
    return {
      reason: 'interrupted',
      signal: reason,
      at,
      message: `the run was stopped (${reason}); nothing more was sent`,
      unjudged: `the run was stopped (${reason}) before this was judged`,
    };
  }
  return { reason: 'aborted', at, message: 'the run was aborted by its caller; nothing more was sent', unjudged: 'the run was aborted by its caller before this was judged' };
}

/** report.json's `halted` for a stop, before the requirements it left unjudged are known. */
export function haltOfStop(stop: RunStop): Omit<NonNullable<Report['halted']>, 'unjudged'> {
  return { reason: stop.reason, message: stop.message, ...(stop.signal === undefined ? {} : { signal: stop.signal }), at: stop.at.toISOString() };
}
