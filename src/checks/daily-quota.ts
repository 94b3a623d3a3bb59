/**
 * RATE-007's judgement of the 429 that ends the day: it carries Retry-After (as RATE-005 reads it),
 * and its X-RateLimit headers describe the daily window, which is the one that applies: Remaining 0
 * and a Reset beyond the per-minute window but no more than a day ahead.
 */
import type { Exchange } from '../http/exchange.js';
import { checkRetryAfter } from './retry-after.js';
import type { ServerClock } from './server-clock.js';
import { violation, type Finding } from './finding.js';
import { DAY_MS } from '../rate-limit/tolerances.js';
import { readExchange, retryAfterEndsSurelyBefore } from '../rate-limit/reading.js';
import { resetAheadMs, resetBeyondWindow } from '../rate-limit/window-length.js';

const REQ = 'RATE-007';

/** A 429 whose Reset lies beyond the per-minute window: the server says the day, not the minute, is used up. */
export function isDailyRefusal(ex: Exchange, windowMs: number, clock?: ServerClock): boolean {
  const ahead = resetAheadMs(ex, clock);
  return ex.response?.status === 429 && ahead !== undefined && resetBeyondWindow(ahead, windowMs);
}

export function checkDailyRefusal(ex: Exchange, windowMs: number, clock?: ServerClock): Finding[] {
  const findings = checkRetryAfter(ex, clock).map((f) => ({ ...f, requirement: REQ }));
  const seconds = (ms: number): string => `${Math.round(ms / 1000)} s`;
  const ahead = resetAheadMs(ex, clock);
  if (ahead === undefined) {
    findings.push(violation(REQ, `Received X-RateLimit-Reset ${ex.response?.headers['x-ratelimit-reset'] ?? '(none)'} on the 429 after the daily quota / Expected the Unix time in seconds at which the day's quota resets`, ex.seq));
  } else if (!resetBeyondWindow(ahead, windowMs)) {
    findings.push(violation(REQ, `Received X-RateLimit-Reset ${seconds(ahead)} ahead on the 429 after the daily quota / Expected the end of the day's quota, beyond the per-minute window of ${seconds(windowMs)}`, ex.seq));
  } else if (resetBeyondWindow(ahead, DAY_MS)) {
    findings.push(violation(REQ, `Received X-RateLimit-Reset ${(ahead / 3_600_000).toFixed(1)} h ahead on the 429 after the daily quota / Expected no more than a day ahead`, ex.seq));
  }
  const remaining = readExchange(ex).remaining;
  if (remaining !== undefined && remaining !== 0n) {
    findings.push(violation(REQ, `Received X-RateLimit-Remaining ${remaining} on the 429 after the daily quota / Expected 0: the day's quota is the limit that applies`, ex.seq));
  }
  return findings;
}

/**
 * Whether the day's 429 is worth one more request: its Retry-After passes surely before the Reset
 * it announces for the day (a day counted over the last 24 hours may free a request that soon; a
 * day that ends at its Reset cannot). A Retry-After that ends with the day needs no retry.
 */
export function retryAfterEndsBeforeDay(refusal: Exchange, clock?: ServerClock): boolean {
  const reset = readExchange(refusal).reset;
  return reset?.kind === 'unix-seconds' && reset.atMs !== undefined && retryAfterEndsSurelyBefore(refusal, reset.atMs, clock);
}

/**
 * The request sent once the day's Retry-After had passed, refused for the day again: Retry-After
 * described a shorter wait than the day's (a window's next request), and a client that waits what
 * it is told is refused. RATE-007's, as the day's 429 is judged whole here: the day is used up
 * after RATE-006's own test has ended.
 */
export function checkDayRetry(refusal: Exchange, retry: Exchange, windowMs: number, clock?: ServerClock): Finding[] {
  if (retry.response?.status !== 429 || !isDailyRefusal(retry, windowMs, clock)) return [];
  const value = refusal.response?.headers['retry-after'] ?? '(none)';
  const ahead = Math.round((resetAheadMs(refusal, clock) ?? 0) / 1000);
  return [
    violation(
      REQ,
      `The 429 after the daily quota (exchange ${refusal.seq}) said Retry-After ${value} with the day's X-RateLimit-Reset ${ahead} s ahead; the request sent once that wait had passed (exchange ${retry.seq}) was refused for the day again / Expected Retry-After to say when the day's quota lets a request through`,
      retry.seq,
    ),
  ];
}
