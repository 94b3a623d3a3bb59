/** The reference server's alternative rate limiters (fixtures/reference-server/limiters.ts), with plain-number time. */
import { describe, expect, it } from 'vitest';
import {
  PACE_FACTOR,
  alignedWindowLimiter,
  failure,
  pacedWindowLimiter,
  perKeyWindowLimiter,
  serverStartWindowLimiter,
  slidingLogLimiter,
  startReferenceServer,
  tokenBucketLimiter,
} from '../fixtures/reference-server/index.js';

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

describe('windows paced by the key', () => {
  const PACED_QUOTA = { perWindow: 100, perDay: 10_000 };
  /** A whole second: the start of an aligned window. */
  const S = T0 + 600;
  /** `count` counted requests `everyMs` apart from `fromMs`; the time of the last. */
  const send = (limiter: ReturnType<typeof pacedWindowLimiter>, fromMs: number, count: number, everyMs: number): number => {
    for (let i = 0; i < count; i++) limiter.take(SUBJECT, PACED_QUOTA, fromMs + i * everyMs);
    return fromMs + (count - 1) * everyMs;
  };

  it('are the reference\'s windows aligned to the clock while the key sends fast', () => {
    const limiter = pacedWindowLimiter({ windowSeconds: 1 });
    // 100 requests 5 ms apart: 0.75 s at the key's pace, within the shortest window.
    expect(send(limiter, T0, 100, 5)).toBeLessThan(S);
    expect(limiter.check(SUBJECT, PACED_QUOTA, T0 + 500)).toMatchObject({ exceeded: 'window', reset: S / 1000, windowSeconds: 1 });
    expect(limiter.take(SUBJECT, PACED_QUOTA, S + 400)).toMatchObject({ exceeded: undefined, remaining: 99, reset: S / 1000 + 1, windowSeconds: 1 });
  });

  it('stretch to the whole second PACE_FACTOR times `limit` requests at the key\'s median interval ahead, when it sends slowly', () => {
    const limiter = pacedWindowLimiter({ windowSeconds: 1 });
    // 20 requests 30 ms apart (a busy machine), then two after a pause to think: at that pace 100
    // take 3 s, so the next window must hold 4.5 s; the pauses do not lengthen it.
    const last = send(limiter, S, 20, 30);
    limiter.take(SUBJECT, PACED_QUOTA, last + 150);
    limiter.take(SUBJECT, PACED_QUOTA, last + 300);
    expect(last + 300).toBeLessThan(S + 1_000);
    expect(PACE_FACTOR * 30 * 100).toBe(4_500);
    // From the next second, S + 1 s, to the whole second 4.5 s after the request that opens it.
    expect(send(limiter, S + 1_000, 100, 1)).toBe(S + 1_099);
    const refused = limiter.check(SUBJECT, PACED_QUOTA, S + 1_100);
    expect(refused).toMatchObject({ exceeded: 'window', remaining: 0, reset: (S + 6_000) / 1000, windowSeconds: 5, retryAfterSeconds: 5 });
    expect(limiter.check(SUBJECT, PACED_QUOTA, S + 5_999).exceeded).toBe('window');
    // The burst's back-to-back requests set the pace again: the next window is the shortest.
    expect(limiter.take(SUBJECT, PACED_QUOTA, S + 6_000)).toMatchObject({ exceeded: undefined, remaining: 99, reset: (S + 7_000) / 1000, windowSeconds: 1 });
  });

  it('leave quiet periods out of the pace: a key that waited is not a key that sends slowly', () => {
    const limiter = pacedWindowLimiter({ windowSeconds: 1 });
    let at = T0;
    // Twenty bursts of 5 requests 2 ms apart, each after a wait of 5 s.
    for (let i = 0; i < 20; i++) at = send(limiter, at + 5_000, 5, 2);
    expect(limiter.check(SUBJECT, PACED_QUOTA, at + 5_000)).toMatchObject({ windowSeconds: 1 });
  });

  it('keep the shortest window until ten intervals tell a pace, and keep the daily quota', () => {
    const limiter = pacedWindowLimiter({ windowSeconds: 1 });
    send(limiter, T0, 5, 500);
    expect(limiter.check(SUBJECT, PACED_QUOTA, T0 + 60_000)).toMatchObject({ windowSeconds: 1 });
    const daily = { perWindow: 100, perDay: 3 };
    const fresh = pacedWindowLimiter({ windowSeconds: 1 });
    send(fresh, T0, 3, 1);
    expect(fresh.check(SUBJECT, daily, T0 + 5_000).exceeded).toBe('day');
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

describe('windows counted from the server\'s start', () => {
  it('share one origin for every key, wherever in a second it fell; Reset rounds the end up', () => {
    const limiter = serverStartWindowLimiter({ windowSeconds: 3, startedAtMs: T0 });
    const other = { bucket: 'key:other', plan: 'free' as const };
    // The first request of either key, 4.5 s after the start, lies 1.5 s into the second window.
    expect(limiter.phaseMs?.(T0 + 4_500)).toBe(1_500);
    expect(limiter.take(SUBJECT, QUOTA, T0 + 4_500)).toMatchObject({ remaining: 2, reset: Math.ceil((T0 + 6_000) / 1000), windowSeconds: 3 });
    expect(limiter.take(other, QUOTA, T0 + 5_000)).toMatchObject({ remaining: 2, reset: Math.ceil((T0 + 6_000) / 1000) });
    limiter.take(SUBJECT, QUOTA, T0 + 4_600);
    limiter.take(SUBJECT, QUOTA, T0 + 4_700);
    expect(limiter.check(SUBJECT, QUOTA, T0 + 5_999)).toMatchObject({ exceeded: 'window', retryAfterSeconds: 1 });
    expect(limiter.take(SUBJECT, QUOTA, T0 + 6_000)).toMatchObject({ exceeded: undefined, remaining: 2, reset: Math.ceil((T0 + 9_000) / 1000) });
  });

  it('have a phase where the reference\'s and the paced windows have one, and none where the run\'s first request starts the window', () => {
    expect(alignedWindowLimiter({ windowSeconds: 3 }).phaseMs?.(Date.UTC(2030, 0, 1, 0, 0, 4, 250))).toBe(1_250);
    expect(pacedWindowLimiter({ windowSeconds: 2 }).phaseMs?.(Date.UTC(2030, 0, 1, 0, 0, 3, 100))).toBe(1_100);
    for (const limiter of [perKeyWindowLimiter, slidingLogLimiter, tokenBucketLimiter]) expect(limiter({ windowSeconds: 3 }).phaseMs).toBeUndefined();
  });
});

describe('the server', () => {
  it('holds the run\'s first request until it falls at the phase asked for, and answers before the limiter what beforeLimiter refuses', async () => {
    const server = await startReferenceServer({
      windowSeconds: 2,
      startAtPhaseMs: 1_500,
      behaviour: { beforeLimiter: (ctx) => (ctx.method === 'POST' ? failure(400, 'invalid_json', 'not JSON') : undefined) },
    });
    try {
      const auth = { authorization: `Bearer ${server.keys.free}` };
      expect(server.startPhaseMs).toBeUndefined();
      const first = await fetch(`${server.baseUrl}/pets`, { headers: auth });
      // Where in its window the server handled it (within 25 ms of the phase asked for, unless a busy machine's timers
      // fired late three windows running: no test bounds how late a timer may fire).
      expect(server.startPhaseMs).toBeGreaterThanOrEqual(0);
      expect(server.startPhaseMs).toBeLessThan(2_000);
      expect(first.headers.get('x-ratelimit-remaining')).toBe('59');
      const refused = await fetch(`${server.baseUrl}/pets`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{' });
      expect(refused.status).toBe(400);
      expect(refused.headers.get('x-ratelimit-remaining')).toBeNull();
      // Not counted: the next request finds the count where the first left it (in the same window; a new window starts at 59).
      const next = await fetch(`${server.baseUrl}/pets`, { headers: auth });
      const sameWindow = next.headers.get('x-ratelimit-reset') === first.headers.get('x-ratelimit-reset');
      expect(next.headers.get('x-ratelimit-remaining')).toBe(sameWindow ? '58' : '59');
    } finally {
      await server.close();
    }
  });
});
