/**
 * RATE-007's judgement of the 429 that ends the day: it carries Retry-After (as RATE-005 reads it),
 * and its X-RateLimit headers describe the daily window, which is the one that applies: Remaining 0
 * and a Reset beyond the per-minute window but no more than a day ahead.
 */
import type { Exchange } from '../http/exchange.js';
import { rateLimitValue } from './rate-limit-headers.js';
import { checkRetryAfter } from './retry-after.js';
import { serverTimeOf, type ServerClock } from './server-clock.js';
import { violation, type Finding } from './finding.js';

const REQ = 'RATE-007';
const DAY_MS = 86_400_000;
/** Reset has whole seconds and Date truncates to them: two seconds either way are rounding. */
const SLACK_MS = 2_000;

/** Milliseconds from the server's time of the response to its X-RateLimit-Reset, when that is a Unix time in seconds. */
export function resetAheadMs(ex: Exchange, clock?: ServerClock): number | undefined {
  const reset = rateLimitValue(ex, 'x-ratelimit-reset');
  if (reset === undefined || reset < 1_000_000_000n || reset >= 100_000_000_000n) return undefined;
  return Number(reset) * 1000 - serverTimeOf(ex, clock);
}

/** A 429 whose Reset lies beyond the per-minute window: the server says the day, not the minute, is used up. */
export function isDailyRefusal(ex: Exchange, windowMs: number, clock?: ServerClock): boolean {
  const ahead = resetAheadMs(ex, clock);
  return ex.response?.status === 429 && ahead !== undefined && ahead > windowMs + SLACK_MS;
}

export function checkDailyRefusal(ex: Exchange, windowMs: number, clock?: ServerClock): Finding[] {
  const findings = checkRetryAfter(ex, clock).map((f) => ({ ...f, requirement: REQ }));
  const seconds = (ms: number): string => `${Math.round(ms / 1000)} s`;
  const ahead = resetAheadMs(ex, clock);
  if (ahead === undefined) {
    findings.push(violation(REQ, `Received X-RateLimit-Reset ${ex.response?.headers['x-ratelimit-reset'] ?? '(none)'} on the 429 after the daily quota / Expected the Unix time in seconds at which the day's quota resets`, ex.seq));
  } else if (ahead <= windowMs + SLACK_MS) {
    findings.push(violation(REQ, `Received X-RateLimit-Reset ${seconds(ahead)} ahead on the 429 after the daily quota / Expected the end of the day's quota, beyond the per-minute window of ${seconds(windowMs)}`, ex.seq));
  } else if (ahead > DAY_MS + SLACK_MS) {
    findings.push(violation(REQ, `Received X-RateLimit-Reset ${(ahead / 3_600_000).toFixed(1)} h ahead on the 429 after the daily quota / Expected no more than a day ahead`, ex.seq));
  }
  const remaining = rateLimitValue(ex, 'x-ratelimit-remaining');
  if (remaining !== undefined && remaining !== 0n) {
    findings.push(violation(REQ, `Received X-RateLimit-Remaining ${remaining} on the 429 after the daily quota / Expected 0: the day's quota is the limit that applies`, ex.seq));
  }
  return findings;
}
