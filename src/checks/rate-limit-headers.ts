/**
 * RATE-001 (the three X-RateLimit headers, as integers), RATE-002's Remaining ≤ Limit,
 * RATE-003 (Reset is a Unix time in seconds, near the response's time), RATE-004 (Limit
 * matches the plan) and RATE-008's plausible Limit, judged on one response.
 */
import type { Exchange } from '../http/exchange.js';
import { receivedAt } from './response-date.js';
import { serverMoment, type ServerClock, type ServerMoment } from './server-clock.js';
import { MAX_PER_MINUTE, planLimits, type Plan } from '../plans.js';
import { excerpt, iso } from './text.js';
import { violation, type Finding } from './finding.js';
import { resetKind } from '../rate-limit/reset-kind.js';

export const RATE_LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const;
export type RateLimitHeader = (typeof RATE_LIMIT_HEADERS)[number];

const DISPLAY: Record<RateLimitHeader, string> = {
  'x-ratelimit-limit': 'X-RateLimit-Limit',
  'x-ratelimit-remaining': 'X-RateLimit-Remaining',
  'x-ratelimit-reset': 'X-RateLimit-Reset',
};

const DIGITS = /^[0-9]+$/;
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
 * that need the requests a server surely counted leave it out (remaining-rise.ts, key-use.ts).
 */
export const limiterSaw = (ex: Exchange): boolean => ex.response?.headers['x-ratelimit-remaining'] !== undefined;

/** Field values exclude surrounding whitespace (RFC 9110 5.5), so a padded value is still the integer. */
function fieldValue(ex: Exchange, name: string): string | undefined {
  const raw = ex.response?.headers[name];
  return raw === undefined ? undefined : raw.replace(/^[ \t]+|[ \t]+$/g, '');
}

/** The header as an exact non-negative integer; undefined when absent or not all digits. */
export function rateLimitValue(ex: Exchange, name: RateLimitHeader): bigint | undefined {
  const value = fieldValue(ex, name);
  return value !== undefined && DIGITS.test(value) ? BigInt(value) : undefined;
}


function checkPresence(ex: Exchange): Finding[] {
  const findings: Finding[] = [];
  for (const name of RATE_LIMIT_HEADERS) {
    const value = fieldValue(ex, name);
    if (value === undefined) {
      findings.push(violation('RATE-001', `Received no ${DISPLAY[name]} / Expected a non-negative integer`, ex.seq));
    } else if (!DIGITS.test(value)) {
      findings.push(violation('RATE-001', `Received ${DISPLAY[name]} ${JSON.stringify(excerpt(value, 40))} / Expected a non-negative integer in decimal digits`, ex.seq));
    }
  }
  return findings;
}

function checkRemainingWithinLimit(ex: Exchange): Finding[] {
  const limit = rateLimitValue(ex, 'x-ratelimit-limit');
  const remaining = rateLimitValue(ex, 'x-ratelimit-remaining');
  if (limit === undefined || remaining === undefined || remaining <= limit) return [];
  const found = violation('RATE-002', `Received X-RateLimit-Remaining ${remaining} with X-RateLimit-Limit ${limit} / Expected Remaining ≤ Limit`, ex.seq);
  return [limit > BigInt(Number.MAX_SAFE_INTEGER) ? found : { ...found, expected: { kind: 'remaining-at-most', value: Number(limit) } }];
}

interface ResetJudgement {
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
function judgeReset(ex: Exchange, clock: ServerClock | undefined): ResetJudgement | undefined {
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

export { readingOf, type Reading } from '../rate-limit/reading.js';

function checkResetTime(ex: Exchange, clock: ServerClock | undefined): Finding[] {
  const judged = judgeReset(ex, clock);
  if (judged === undefined || judged.ok) return [];
  const { reset, resetMs, reference } = judged;
  const expected = `Expected a Unix timestamp in seconds between ${iso(reference.lower)} and ${iso(reference.upper)} (response time ${iso(reference.ms)}, from ${reference.from})`;
  let diagnosis: string;
  const kind = resetKind(reset);
  if (kind === 'relative-seconds') diagnosis = 'which looks like a relative number of seconds';
  else if (kind === 'unix-milliseconds') diagnosis = 'which looks like milliseconds';
  else diagnosis = `= ${iso(resetMs)}, ${Math.round((resetMs - reference.ms) / 1000)} s from the response time`;
  return [violation('RATE-003', `Received X-RateLimit-Reset ${reset}, ${diagnosis} / ${expected}`, ex.seq)];
}

function checkPlanLimit(ex: Exchange, plan: Plan | undefined): Finding[] {
  // Requests without the run's key may be counted in another bucket, with another limit.
  if (plan === undefined || ex.request.auth !== 'key') return [];
  const limit = rateLimitValue(ex, 'x-ratelimit-limit');
  const perMinute = planLimits(plan).perMinute;
  if (limit === undefined || limit === BigInt(perMinute)) return [];
  return [{ ...violation('RATE-004', `Received X-RateLimit-Limit ${limit} / Expected ${perMinute}, the per-minute limit of the ${plan} plan`, ex.seq), expected: { kind: 'limit', value: perMinute } }];
}

/** A thousand times the largest published per-minute limit (Business, 1,000): no custom plan goes that far. */
export const ABSURD_LIMIT_ABOVE = BigInt(MAX_PER_MINUTE);

function checkLimitPlausible(ex: Exchange): Finding[] {
  const limit = rateLimitValue(ex, 'x-ratelimit-limit');
  const status = ex.response?.status ?? 0;
  if (limit === undefined) return [];
  if (limit > ABSURD_LIMIT_ABOVE) {
    return [violation('RATE-008', `Received X-RateLimit-Limit ${limit} / Expected a plausible limit, at most ${ABSURD_LIMIT_ABOVE} (a thousand times the Business plan's 1,000 a minute)`, ex.seq)];
  }
  // A banned key may be told 0 on its 429; a request that was served had a limit above 0.
  if (limit === 0n && status >= 200 && status < 300) {
    return [violation('RATE-008', `Received X-RateLimit-Limit 0 on a served ${status} response / Expected the limit that let this request through`, ex.seq)];
  }
  return [];
}

export function checkRateLimitHeaders(ex: Exchange, ctx: { plan?: Plan; clock?: ServerClock } = {}): Finding[] {
  if (ex.response === undefined) return [];
  return [
    ...checkPresence(ex),
    ...checkRemainingWithinLimit(ex),
    ...checkResetTime(ex, ctx.clock),
    ...checkPlanLimit(ex, ctx.plan),
    ...checkLimitPlausible(ex),
  ];
}
