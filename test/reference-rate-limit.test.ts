/** The reference server's limiter with a shortened day (daySeconds), as RATE-007's tests use it. */
import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../fixtures/reference-server/rate-limit.js';

const subject = { bucket: 'k', plan: 'free' as const };
const quota = { perWindow: 60, perDay: 200 };
const T0 = Date.UTC(2030, 0, 1, 12, 0, 0, 500);

describe('RateLimiter with a shortened day', () => {
  it('counts the day from the first request and describes it once the day binds', () => {
    const limiter = new RateLimiter(1, { daySeconds: 20 });
    let now = T0;
    let taken = 0;
    // 60 a second for 4 seconds: 200 taken by the middle of the fourth window.
    while (limiter.check(subject, quota, now).exceeded === undefined) {
      limiter.take(subject, quota, now);
      taken += 1;
      if (taken % 60 === 0) now += 1_000;
    }
    expect(taken).toBe(200);
    const refused = limiter.check(subject, quota, now);
    expect(refused.exceeded).toBe('day');
    expect(refused.remaining).toBe(0);
    // The day ends 20 s after the first request, beyond the 1 s window.
    expect(refused.reset).toBe(Math.ceil(T0 / 1000 + 20));
    expect(refused.retryAfterSeconds).toBeGreaterThan(1);
  });

  it('starts a new day after daySeconds', () => {
    const limiter = new RateLimiter(1, { daySeconds: 20 });
    for (let i = 0; i < 200; i++) limiter.take(subject, quota, T0 + Math.floor(i / 60) * 1_000);
    expect(limiter.check(subject, quota, T0 + 19_000).exceeded).toBe('day');
    expect(limiter.check(subject, quota, T0 + 20_000).exceeded).toBeUndefined();
  });

  it('keeps UTC days without daySeconds', () => {
    const limiter = new RateLimiter(60);
    expect(limiter.take(subject, { perWindow: 60, perDay: 1 }, T0).exceeded).toBeUndefined();
    const refused = limiter.check(subject, { perWindow: 60, perDay: 1 }, T0 + 1_000);
    expect(refused.exceeded).toBe('day');
    expect(refused.reset).toBe(Date.UTC(2030, 0, 2) / 1000);
  });
});
