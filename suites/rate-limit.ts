/**
 * Section 8, behaviour over the limit. Runs last: it spends the rest of the key's window on
 * requests that still feed every cross-cutting check, stops at the first 429 and never sends
 * another request before Retry-After has passed (a key that keeps knocking may be banned).
 */
import { describe } from 'vitest';
import { crossCuttingTest, requirementTest } from '../src/conformance/requirement-test.js';
import { rateLimitValue, type RateLimitHeader } from '../src/checks/rate-limit-headers.js';
import { retryAfterPassesAt } from '../src/checks/response-date.js';
import { checkRetryHonoured } from '../src/checks/retry-after-reset.js';
import type { Exchange } from '../src/http/exchange.js';

/** The 429 the burst obtained, shared with RATE-006. */
let throttled: Exchange | undefined;

/** Every 429 of the run is judged for RATE-005 and RATE-006, whatever sent it. */
const is429 = (ex: Exchange): boolean => ex.response?.status === 429;

/** A rate-limit header read the way RATE-001 reads it, as a number for counting. */
function header(ex: Exchange, name: RateLimitHeader): number | undefined {
  const value = rateLimitValue(ex, name);
  return value === undefined ? undefined : Number(value);
}

describe('8 limits', () => {
  // The burst's 429 is judged for its Retry-After with every other 429, by the cross-cutting checks.
  crossCuttingTest('RATE-005', is429, async (t) => {
    const { client } = t.session;
    const remaining = client.rateLimit.remaining;
    if (remaining === undefined) return t.inconclusive('the target sent no usable X-RateLimit-Remaining, so the requests needed to reach the limit are unknown');
    // The window's remaining requests, then the one that must be refused.
    const needed = remaining + 1;
    if (needed > client.remainingBudget()) {
      t.inconclusive(`reaching the limit needs ${needed} more requests and the run's budget has ${client.remainingBudget()} left (raise --max-requests)`);
    }
    // Each window allows the Remaining it announced plus the one request that must be refused.
    let window = client.rateLimit.reset;
    let allowance = needed;
    let servedInWindow = 0;
    let lastRemaining = remaining;
    while (client.remainingBudget() > 0) {
      const ex = await t.send({ method: 'GET', path: '/pets', query: [['limit', '1']], pace: false, retryOn429: false });
      if (ex.response === undefined) return t.inconclusive(`no response during the burst (${ex.error?.code})`);
      if (ex.response.status === 429) {
        throttled = ex;
        t.cite(ex);
        return;
      }
      const reset = header(ex, 'x-ratelimit-reset');
      const left = header(ex, 'x-ratelimit-remaining');
      const refilled = left !== undefined && left > lastRemaining;
      lastRemaining = left ?? lastRemaining;
      // A new window began during the burst (short windows): start counting again. Remaining going
      // back up says so too, for a Reset that does not change between windows (a relative one).
      if ((reset !== undefined && reset !== window) || refilled) {
        window = reset ?? window;
        allowance = (left ?? 0) + 2;
        servedInWindow = 1;
        if (allowance > client.remainingBudget()) t.inconclusive(`a new window began during the burst and reaching its limit needs more requests than the budget has left`);
        continue;
      }
      servedInWindow += 1;
      if (servedInWindow >= allowance) {
        t.fail(`${servedInWindow} requests were served in one window after X-RateLimit-Remaining announced ${allowance - 1} / Expected 429 once the window was used up`, ex);
        return;
      }
    }
    t.inconclusive('the request budget ran out before the limit was reached');
  });

  // Every 429's Retry-After is also compared with its Reset, and every retry of a 429 judged, by the cross-cutting checks.
  crossCuttingTest('RATE-006', is429, async (t) => {
    const throttledBy = throttled;
    if (throttledBy === undefined) return t.inconclusive('no 429 was obtained, so there is nothing to recover from');
    const retryAt = retryAfterPassesAt(throttledBy);
    const value = throttledBy.response?.headers['retry-after'];
    if (retryAt === undefined) return t.inconclusive(`the 429 of exchange ${throttledBy.seq} gave no usable Retry-After (RATE-005), so there is no moment to retry at`);
    const maxWaitMs = t.session.config.maxWaitMs;
    if (retryAt - Date.now() > maxWaitMs) {
      return t.inconclusive(`Retry-After ${JSON.stringify(value)} asks for a longer wait than the ${maxWaitMs / 1000} s allowed (--max-wait)`);
    }
    // Exactly when Retry-After says, not paced by X-RateLimit-Reset and with no backoff on top: that moment is what is tested.
    const ex = await t.send({ method: 'GET', path: '/pets', query: [['limit', '1']], pace: false, retryOn429: false, exactRetryAfter: true });
    t.cite(ex);
    const status = ex.response?.status;
    if (status === undefined) return t.inconclusive(`no response after the wait (${ex.error?.code})`);
    if (status === 429) t.record(checkRetryHonoured(throttledBy, ex));
    else if (status < 200 || status >= 300) t.fail(`After waiting Retry-After (${value}): received ${status} / expected the request to be served`, ex);
  });

  requirementTest('RATE-007', async (t) => {
    t.notExercised('not exercised by choice: exhausting the daily quota takes the key out of service for a day; opt in with --exhaust-daily-quota on a key made for the test');
  });
});
