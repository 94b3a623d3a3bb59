/** The reference server's alternative rate limiters (fixtures/reference-server/limiters.ts), with plain-number time. */
import { describe, expect, it } from 'vitest';
import { perKeyWindowLimiter, slidingLogLimiter, tokenBucketLimiter } from '../fixtures/reference-server/index.js';

const SUBJECT = { bucket: 'key:k', plan: 'free' as const };
const QUOTA = { perWindow: 3, perDay: 1000 };
/** Not on a whole second, so windows that start at the first request do not line up with wall-clock ones. */
const T0 = Date.UTC(2030, 0, 1) + 400;

describe('per-key windows', () => {
  it('start at the first request and refuse the fourth within 10 s', () => {
    const limiter = perKeyWindowLimiter({ windowSeconds: 10 });
    for (let i = 0; i < 3; i++) expect(limiter.take(SUBJECT, QUOTA, T0 + i).exceeded).toBeUndefined();
    const refused = limiter.check(SUBJECT, QUOTA, T0 + 5_000);
    expect(refused).toMatchObject({ exceeded: 'window', remaining: 0, reset: Math.ceil((T0 + 10_000) / 1000), retryAfterSeconds: 5 });
    expect(limiter.take(SUBJECT, QUOTA, T0 + 10_000)).toMatchObject({ exceeded: undefined, remaining: 2 });
  });
});

describe('sliding log', () => {
  it('gives a request back once it is a window old, and names that moment', () => {
    const limiter = slidingLogLimiter({ windowSeconds: 10 });
    limiter.take(SUBJECT, QUOTA, T0);
    limiter.take(SUBJECT, QUOTA, T0 + 4_000);
    const third = limiter.take(SUBJECT, QUOTA, T0 + 6_000);
    expect(third).toMatchObject({ remaining: 0, reset: Math.ceil((T0 + 10_000) / 1000) });
    expect(limiter.check(SUBJECT, QUOTA, T0 + 9_000)).toMatchObject({ exceeded: 'window', retryAfterSeconds: 1 });
    expect(limiter.take(SUBJECT, QUOTA, T0 + 10_000)).toMatchObject({ exceeded: undefined, remaining: 0 });
  });
});

describe('token bucket', () => {
  it('allows the next request after one token (Retry-After) long before it is full (Reset)', () => {
    const limiter = tokenBucketLimiter({ windowSeconds: 30 });
    for (let i = 0; i < 3; i++) limiter.take(SUBJECT, QUOTA, T0);
    const refused = limiter.check(SUBJECT, QUOTA, T0);
    expect(refused).toMatchObject({ exceeded: 'window', remaining: 0, retryAfterSeconds: 10, reset: Math.ceil((T0 + 30_000) / 1000) });
    expect(limiter.take(SUBJECT, QUOTA, T0 + 10_000)).toMatchObject({ exceeded: undefined, remaining: 0 });
  });

  it('keeps the reference\'s daily quota', () => {
    const limiter = tokenBucketLimiter({ windowSeconds: 30 });
    const quota = { perWindow: 3, perDay: 2 };
    limiter.take(SUBJECT, quota, T0);
    expect(limiter.take(SUBJECT, quota, T0)).toMatchObject({ remaining: 0, dayRemaining: 0 });
    expect(limiter.check(SUBJECT, quota, T0 + 60_000).exceeded).toBe('day');
  });
});
