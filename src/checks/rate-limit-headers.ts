/**
 * RATE-001 (the three X-RateLimit headers, as integers), RATE-002's Remaining ≤ Limit,
 * RATE-003 (Reset is a Unix time in seconds, near the response's time), RATE-004 (Limit
 * matches the plan) and RATE-008's plausible Limit, judged on one response.
 */
import type { Exchange } from '../http/exchange.js';
import type { ServerClock } from './server-clock.js';
import { MAX_PER_MINUTE, planLimits, type Plan } from '../plans.js';
import { excerpt, iso } from './text.js';
import { violation, type Finding } from './finding.js';
import { resetKind } from '../rate-limit/reset-kind.js';
import { DIGITS, RATE_LIMIT_HEADERS, fieldValue, judgeReset, type RateLimitHeader } from '../rate-limit/headers.js';
import { readExchange } from '../rate-limit/reading.js';

export { RATE_LIMIT_HEADERS, limiterSaw, plausibleResetMs, rateLimitValue, resetSurelyPassedAt, type RateLimitHeader } from '../rate-limit/headers.js';

const DISPLAY: Record<RateLimitHeader, string> = {
  'x-ratelimit-limit': 'X-RateLimit-Limit',
  'x-ratelimit-remaining': 'X-RateLimit-Remaining',
  'x-ratelimit-reset': 'X-RateLimit-Reset',
};

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
  const limit = readExchange(ex).limit;
  const remaining = readExchange(ex).remaining;
  if (limit === undefined || remaining === undefined || remaining <= limit) return [];
  const found = violation('RATE-002', `Received X-RateLimit-Remaining ${remaining} with X-RateLimit-Limit ${limit} / Expected Remaining ≤ Limit`, ex.seq);
  return [limit > BigInt(Number.MAX_SAFE_INTEGER) ? found : { ...found, expected: { kind: 'remaining-at-most', value: Number(limit) } }];
}


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
  const limit = readExchange(ex).limit;
  const perMinute = planLimits(plan).perMinute;
  if (limit === undefined || limit === BigInt(perMinute)) return [];
  return [{ ...violation('RATE-004', `Received X-RateLimit-Limit ${limit} / Expected ${perMinute}, the per-minute limit of the ${plan} plan`, ex.seq), expected: { kind: 'limit', value: perMinute } }];
}

/** A thousand times the largest published per-minute limit (Business, 1,000): no custom plan goes that far. */
export const ABSURD_LIMIT_ABOVE = BigInt(MAX_PER_MINUTE);

function checkLimitPlausible(ex: Exchange): Finding[] {
  const limit = readExchange(ex).limit;
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
