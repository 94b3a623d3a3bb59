/**
 * What the rate-limit headers of one response say, read by one rule: the values as exact
 * integers, whether the limiter handled the request, and the Reset RATE-003 accepts on its own.
 * The reading (reading.ts), the counting (counting.ts) and every check that compares a Reset with
 * something else read these; RATE-001 and RATE-003 judge the same values
 * (src/checks/rate-limit-headers.ts).
 */
import type { Exchange } from '../http/exchange.js';
import { receivedAt } from '../checks/response-date.js';
import { serverMoment, type ServerClock, type ServerMoment } from '../checks/server-clock.js';

export const RATE_LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const;
export type RateLimitHeader = (typeof RATE_LIMIT_HEADERS)[number];

export const DIGITS = /^[0-9]+$/;
/**
 * Reset may lie this far before the second the response was handled in on the server's clock:
 * both are whole seconds, so a window ending in that second may show a Reset one second earlier.
 * Nothing more: a Reset further back is not "the time at which the limit resets".
 */
const EARLY_MS = 1_000;
/** Reset may lie this far after the response: no per-minute or per-day window ends later. */
const LATE_MS = 24 * 3600_000;
/** Without a Date header the local clock stands in, and it may disagree with the server's. */
const CLOCK_SKEW_MS = 300_000;

/**
 * Whether the rate limiter handled the request: its response carries X-RateLimit-Remaining. A
 * response without it (a framework answering before its limiter runs, as Express does a body it
 * cannot parse) is RATE-001's finding, and its request may never have been counted: the rules
 * that need the requests a server surely counted leave it out (counting.ts).
 */
export const limiterSaw = (ex: Exchange): boolean => ex.response?.headers['x-ratelimit-remaining'] !== undefined;

/** Field values exclude surrounding whitespace (RFC 9110 5.5), so a padded value is still the integer. */
export function fieldValue(ex: Exchange, name: string): string | undefined {
  const raw = ex.response?.headers[name];
  return raw === undefined ? undefined : raw.replace(/^[ \t]+|[ \t]+$/g, '');
}

/** The header as an exact non-negative integer; undefined when absent or not all digits. */
export function rateLimitValue(ex: Exchange, name: RateLimitHeader): bigint | undefined {
  const value = fieldValue(ex, name);
  return value !== undefined && DIGITS.test(value) ? BigInt(value) : undefined;
}

export interface ResetJudgement {
  reset: bigint;
  resetMs: number;
  reference: { ms: number; from: string; lower: number; upper: number };
  ok: boolean;
}

const wholeSecond = (ms: number): number => Math.floor(ms / 1000) * 1000;

/** The earliest Reset a response handled at `moment` (else received locally at `localMs`) may announce. */
const earliestAcceptedResetMs = (moment: ServerMoment | undefined, localMs: number): number =>
  moment !== undefined ? wholeSecond(moment.earliest) - EARLY_MS : localMs - EARLY_MS - CLOCK_SKEW_MS;

/**
 * Reset against the server's clock (server-clock.ts: the run's freshest Date headers, obsolete
 * date forms accepted, since they are only a reference here), or the local clock without any Date.
 */
export function judgeReset(ex: Exchange, clock: ServerClock | undefined): ResetJudgement | undefined {
  const reset = rateLimitValue(ex, 'x-ratelimit-reset');
  if (reset === undefined) return undefined;
  const resetMs = Number(reset) * 1000;
  const moment = serverMoment(ex, clock);
  const localMs = receivedAt(ex);
  const reference =
    moment !== undefined
      ? { ms: moment.earliest, from: clock === undefined ? 'its Date header' : "the server's clock, as the Date headers show it", lower: earliestAcceptedResetMs(moment, localMs), upper: moment.latest + LATE_MS }
      : { ms: localMs, from: 'the local clock (no Date header)', lower: earliestAcceptedResetMs(moment, localMs), upper: localMs + LATE_MS + CLOCK_SKEW_MS };
  return { reset, resetMs, reference, ok: resetMs >= reference.lower && resetMs <= reference.upper };
}

/**
 * Whether a Reset of `resetMs` had surely come when `ex` was handled: it lies before the earliest
 * Reset `ex` itself could announce (RATE-003's whole-second tolerance, judgeReset's lower bound),
 * so the window it ended was over, on any clock and rounding a conforming server may use.
 */
export function resetSurelyPassedAt(resetMs: number, ex: Exchange, clock?: ServerClock): boolean {
  return ex.response !== undefined && resetMs < earliestAcceptedResetMs(serverMoment(ex, clock), receivedAt(ex));
}

/**
 * Reset in Unix ms when it passes RATE-003's check on its own response; undefined otherwise.
 * Checks that compare Reset with something else use only such a Reset: a Reset that fails
 * RATE-003 is that requirement's finding, not a disagreement for another one to report.
 */
export function plausibleResetMs(ex: Exchange, clock?: ServerClock): number | undefined {
  const judged = judgeReset(ex, clock);
  return judged?.ok === true ? judged.resetMs : undefined;
}
