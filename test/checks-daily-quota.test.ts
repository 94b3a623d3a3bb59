/**
 * RATE-007's judgement of the day's 429 and of the request sent once its Retry-After passed
 * (src/checks/daily-quota.ts): a Retry-After shorter than the day is tried once, and a retry the
 * day refuses again fails.
 */
import { describe, expect, it } from 'vitest';
import { checkDailyRefusal, checkDayRetry, retryAfterEndsBeforeDay } from '../src/checks/daily-quota.js';
import { NOW_MS, NOW_S, makeExchange } from './support/exchange-factory.js';
import { violations } from './support/findings.js';

const WINDOW_MS = 1_000;
const DAY_RESET = NOW_S + 100;

/** A 429 answered at `atMs` whose Reset names the day's end; `retryAfter` as sent. */
function refusedForTheDay(seq: number, atMs: number, retryAfter: string) {
  return makeExchange({
    seq,
    status: 429,
    body: '',
    sentAt: atMs - 5,
    elapsedMs: 5,
    headers: { date: new Date(atMs).toUTCString(), 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(DAY_RESET), 'retry-after': retryAfter },
  });
}

describe('the day\'s Retry-After', () => {
  it('is tried once only when it ends surely before the day\'s Reset', () => {
    expect(retryAfterEndsBeforeDay(refusedForTheDay(1, NOW_MS, '1'))).toBe(true);
    // Retry-After to the day's end, rounded up a second: nothing to try before the day is over.
    expect(retryAfterEndsBeforeDay(refusedForTheDay(1, NOW_MS, '101'))).toBe(false);
    expect(retryAfterEndsBeforeDay(refusedForTheDay(1, NOW_MS, '99'))).toBe(false);
    expect(retryAfterEndsBeforeDay(refusedForTheDay(1, NOW_MS, 'soon'))).toBe(false);
    // Surely, as RATE-006 reads an early Retry-After: from the latest moment the 429 was handled
    // (its Date's second), its end lies more than the whole-second tolerance before the Reset.
    expect(retryAfterEndsBeforeDay(refusedForTheDay(1, NOW_MS, '96'))).toBe(true);
    expect(retryAfterEndsBeforeDay(refusedForTheDay(1, NOW_MS, '97'))).toBe(false);
    expect(retryAfterEndsBeforeDay(refusedForTheDay(1, NOW_MS, new Date(NOW_MS + 97_000).toUTCString()))).toBe(true);
  });

  it('fails RATE-007 when the request sent once it passed is refused for the day again', () => {
    const refusal = refusedForTheDay(1, NOW_MS, '1');
    expect(violations(checkDailyRefusal(refusal, WINDOW_MS))).toEqual([]);
    const found = violations(checkDayRetry(refusal, refusedForTheDay(2, NOW_MS + 1_010, '99'), WINDOW_MS), 'RATE-007');
    expect(found).toHaveLength(1);
    expect(found[0]?.message).toMatch(/^The 429 after the daily quota \(exchange 1\) said Retry-After 1 with the day's X-RateLimit-Reset 100 s ahead; the request sent once that wait had passed \(exchange 2\) was refused for the day again/);
  });

  it('accepts a retry served (a day counted over the last 24 hours frees a request) or refused only by a window', () => {
    const refusal = refusedForTheDay(1, NOW_MS, '1');
    expect(checkDayRetry(refusal, makeExchange({ seq: 2, sentAt: NOW_MS + 1_005 }), WINDOW_MS)).toEqual([]);
    const windowRefusal = makeExchange({ seq: 2, status: 429, body: '', sentAt: NOW_MS + 1_005, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW_S + 2), 'retry-after': '1' } });
    expect(checkDayRetry(refusal, windowRefusal, WINDOW_MS)).toEqual([]);
  });
});
