/**
 * One reading of an exchange's rate-limit headers, parsed once per exchange: X-RateLimit-Limit,
 * -Remaining and -Reset as exact integers (rateLimitValue's rule: whole decimal digits, OWS
 * aside), Reset as its kind (reset-kind.ts) with the moment it names where the kind names one,
 * Retry-After, and whether the limiter counted the request. The pacer reads it, and the rules
 * that compare readings read readingOf's.
 */
import type { Exchange } from '../http/exchange.js';
import { parseHttpDateAnyForm, retryAfterValueOf, type RetryAfterValue } from '../http/retry-after.js';
import { limiterSaw, plausibleResetMs, rateLimitValue } from './headers.js';
import { receivedAt } from '../checks/response-date.js';
import { serverMoment, type ServerClock, type ServerMoment } from '../checks/server-clock.js';
import { resetKind, type ResetKind } from './reset-kind.js';
import { WHOLE_SECONDS_MS } from './tolerances.js';

export interface ResetReading {
  value: bigint;
  kind: ResetKind;
  /** Unix ms the Reset names on the server's clock: for Unix seconds and milliseconds; a relative Reset names one only from a given moment (resetAtMs). */
  atMs?: number;
}

export interface ExchangeReading {
  /** Sent with the run's key: only those share the key's window. */
  keyed: boolean;
  /** The response's status; undefined when none came. */
  status: number | undefined;
  /**
   * Keyed, served (answered, not 429) and handled by the limiter (limiterSaw: it carries
   * Remaining): a request the limiter surely counted.
   */
  counted: boolean;
  limit?: bigint;
  remaining?: bigint;
  reset?: ResetReading;
  retryAfter?: RetryAfterValue;
  /** Unix ms of the response's Date header, any form: the server's clock, against which an HTTP-date Retry-After is measured. */
  dateMs?: number;
}

const READINGS = new WeakMap<Exchange, ExchangeReading>();

/** The exchange's reading, parsed on first use and kept with the exchange. */
export function readExchange(ex: Exchange): ExchangeReading {
  let reading = READINGS.get(ex);
  if (reading === undefined) {
    reading = parse(ex);
    READINGS.set(ex, reading);
  }
  return reading;
}

function parse(ex: Exchange): ExchangeReading {
  const keyed = ex.request.auth === 'key';
  const status = ex.response?.status;
  const reading: ExchangeReading = { keyed, status, counted: keyed && status !== undefined && status !== 429 && limiterSaw(ex) };
  const limit = rateLimitValue(ex, 'x-ratelimit-limit');
  const remaining = rateLimitValue(ex, 'x-ratelimit-remaining');
  const reset = rateLimitValue(ex, 'x-ratelimit-reset');
  if (limit !== undefined) reading.limit = limit;
  if (remaining !== undefined) reading.remaining = remaining;
  if (reset !== undefined) reading.reset = resetReadingOf(reset);
  const headers = ex.response?.headers;
  // An rfc850-date's two-digit year is resolved by when the response came.
  const retryAfter = retryAfterValueOf(headers?.['retry-after'], receivedAt(ex));
  if (retryAfter !== undefined) reading.retryAfter = retryAfter;
  const dateMs = parseHttpDateAnyForm(headers?.['date'], receivedAt(ex))?.ms;
  if (dateMs !== undefined) reading.dateMs = dateMs;
  return reading;
}

function resetReadingOf(value: bigint): ResetReading {
  const kind = resetKind(value);
  switch (kind) {
    case 'unix-seconds':
      return { value, kind, atMs: Number(value) * 1000 };
    case 'unix-milliseconds':
      return { value, kind, atMs: Number(value) };
    case 'relative-seconds':
      return { value, kind };
  }
}

/** Unix ms at which the Reset passes, a relative one counted from `fromMs` (when it was received). */
export function resetAtMs(reset: ResetReading, fromMs: number): number {
  return reset.atMs ?? fromMs + Number(reset.value) * 1000;
}

/**
 * When the response's Retry-After ends on the server's clock, at the earliest and at the latest;
 * undefined when it cannot be placed. An HTTP-date names its moment; delta-seconds count from the
 * response, whose moment the server's clock gives (without any Date it is unknown).
 */
export function retryAfterEndOnServerClock(ex: Exchange, clock: ServerClock | undefined): ServerMoment | undefined {
  const value = readExchange(ex).retryAfter;
  if (value === undefined) return undefined;
  if (value.form === 'http-date') return { earliest: value.atMs, latest: value.atMs };
  const moment = serverMoment(ex, clock);
  return moment === undefined ? undefined : { earliest: moment.earliest + value.delayMs, latest: moment.latest + value.delayMs };
}

/** Whether the response's Retry-After surely ends before a Reset of `resetMs`, beyond the whole-second tolerance: a wait shorter than the window's (or the day's). */
export function retryAfterEndsSurelyBefore(ex: Exchange, resetMs: number, clock: ServerClock | undefined): boolean {
  const end = retryAfterEndOnServerClock(ex, clock);
  return end !== undefined && end.latest < resetMs - WHOLE_SECONDS_MS;
}

/** A keyed response with the three headers usable, and its Reset placed on the server's clock (RATE-003's plausible Reset). */
export interface Reading {
  ex: Exchange;
  remaining: bigint;
  limit: bigint;
  resetMs: number;
}

export function readingOf(ex: Exchange, clock?: ServerClock): Reading | undefined {
  const { keyed, status, remaining, limit } = readExchange(ex);
  if (!keyed || status === undefined) return undefined;
  const resetMs = plausibleResetMs(ex, clock);
  return remaining === undefined || limit === undefined || resetMs === undefined ? undefined : { ex, remaining, limit, resetMs };
}
