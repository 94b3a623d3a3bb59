/**
 * The pacer's decisions on their own, with plain numbers for time.
 *
 * http-client.test.ts follows the same rules through a real HTTP server; here each rule is
 * pinned directly so a failure names the decision that changed, not the exchange it broke.
 */
import { describe, expect, it } from 'vitest';
import type { AuthMode, RecordedResponse } from '../src/http/exchange.js';
import { Pacer } from '../src/http/pacer.js';
import type { Pacing } from '../src/http/send-policy.js';
import { exactRetryAfterHold, exactRetryMs } from '../src/rate-limit/exact-retry.js';
import { atWindowLimit } from '../src/rate-limit/limit-probe.js';
import { readExchange, type ExchangeReading } from '../src/rate-limit/reading.js';

/** A whole second, so a Reset in Unix seconds maps onto it exactly and waits are exact numbers. */
const T0 = Date.UTC(2030, 0, 1, 0, 0, 0);
const T0_SEC = T0 / 1000;
/** The pacer's safety margin on every deadline (WAIT_MARGIN_MS); spelled out so a change shows. */
const MARGIN = 250;

const PACED_KEYED = { paced: true, keyed: true };
/** A send that asked for the exact Retry-After (RATE-006's recovery request). */
const EXACT = { paced: false, keyed: true, retryOn429: false, exactRetryAfter: true };
const at = (pacer: Pacer, now: number, inFlightKeyed = 0): Pacing => ({ pacer, inFlightKeyed, now });

function response(status: number, headers: Record<string, string> = {}): RecordedResponse {
  return { status, headers, bodyText: '', truncated: false };
}

function windowHeaders(remaining: string, reset: string, limit = '60'): Record<string, string> {
  return { 'x-ratelimit-limit': limit, 'x-ratelimit-remaining': remaining, 'x-ratelimit-reset': reset };
}

/** The reading of a response received at `now` (src/rate-limit/reading.ts), as the client hands it to the pacer. */
function seen(auth: AuthMode, res: RecordedResponse, now: number): ExchangeReading {
  return readExchange({ seq: 1, request: { method: 'GET', url: 'https://petstore.invalid/pets', target: '/pets', headers: {}, auth }, response: res, sentAt: now, elapsedMs: 0, purpose: 't' });
}

/** Observes responses in order with increasing seq, as the client does. */
function observer(pacer: Pacer): (status: number, headers: Record<string, string>, now: number, auth?: AuthMode) => void {
  let seq = 0;
  return (status, headers, now, auth = 'key') => pacer.observe(++seq, seen(auth, response(status, headers), now), now);
}

/** The backoff the pacer chose for the last 429: its Retry-After deadline minus the time of the 429. */
function lastThrottleDelay(pacer: Pacer, at: number): number | undefined {
  const until = pacer.state.retryAfterUntil;
  return until === undefined ? undefined : until - at;
}

describe('window pacing (X-RateLimit-Remaining / Reset)', () => {
  it('does not hold a send while Remaining is above 0', () => {
    const pacer = new Pacer({});
    observer(pacer)(200, windowHeaders('5', String(T0_SEC + 30)), T0);
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0)).toBeUndefined();
  });

  it('holds a send until Reset plus the margin when Remaining is 0', () => {
    const pacer = new Pacer({});
    observer(pacer)(200, windowHeaders('0', String(T0_SEC + 30)), T0);
    // Asked 400 ms after the response: the wait runs to the window's end, not 30 s from now.
    const hold = pacer.holdBeforeSend(PACED_KEYED, 0, T0 + 400);
    expect(hold).toEqual({ ms: 30_000 - 400 + MARGIN, reason: expect.stringMatching(/Remaining is 0/) as unknown });
  });

  it('does not hold when Remaining is 0 but Reset is already past', () => {
    const pacer = new Pacer({});
    // A stale Remaining=0 of a window that is over must not stall the run.
    observer(pacer)(200, windowHeaders('0', String(T0_SEC - 5)), T0);
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0)).toBeUndefined();
  });

  it('reads a Reset in Unix milliseconds as the same instant', () => {
    const pacer = new Pacer({});
    // Read as seconds, this would be ~56 000 years away (a refusal); as relative, absurd too.
    observer(pacer)(200, windowHeaders('0', String(T0 + 30_000)), T0);
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0)?.ms).toBe(30_000 + MARGIN);
    expect(pacer.state.reset).toBe(T0 + 30_000);
  });

  it('reads a small Reset as seconds relative to when the response was observed', () => {
    const pacer = new Pacer({});
    observer(pacer)(200, windowHeaders('0', '30'), T0);
    // Read as a Unix timestamp, 30 would be in 1970 and the window would count as over.
    // Counted from the observation, not from the later ask, so 1 s of it has already passed.
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0 + 1_000)?.ms).toBe(29_000 + MARGIN);
  });

  it('counts keyed requests still in flight against Remaining', () => {
    const pacer = new Pacer({});
    observer(pacer)(200, windowHeaders('1', String(T0_SEC + 30)), T0);
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0)).toBeUndefined();
    // The one request left is taken by the one in flight: the next would be over the limit.
    expect(pacer.holdBeforeSend(PACED_KEYED, 1, T0)?.ms).toBe(30_000 + MARGIN);
  });

  it('holds only sends that are both paced and keyed', () => {
    const pacer = new Pacer({});
    observer(pacer)(200, windowHeaders('0', String(T0_SEC + 30)), T0);
    // Unpaced sends are probes that must reach the limit; unkeyed ones hit another bucket.
    expect(pacer.holdBeforeSend({ paced: false, keyed: true }, 0, T0)).toBeUndefined();
    expect(pacer.holdBeforeSend({ paced: true, keyed: false }, 0, T0)).toBeUndefined();
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0)?.ms).toBe(30_000 + MARGIN);
  });

  it('holds every send asked for while the window is exhausted, not only the first', () => {
    const pacer = new Pacer({});
    observer(pacer)(200, windowHeaders('0', String(T0_SEC + 30)), T0);
    // Concurrent senders (Promise.all in the suites) ask before either has slept: letting the
    // second through would spend a request the window does not have and draw a 429.
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0)?.ms).toBe(30_000 + MARGIN);
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0 + 10)?.ms).toBe(30_000 - 10 + MARGIN);
  });

  it('does not hold again once the window has been waited out', () => {
    const pacer = new Pacer({});
    observer(pacer)(200, windowHeaders('0', String(T0_SEC + 30)), T0);
    const hold = pacer.holdBeforeSend(PACED_KEYED, 0, T0);
    expect(hold?.ms).toBe(30_000 + MARGIN);
    // The recorded Remaining is still 0, but it belongs to the window that has ended.
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0 + (hold?.ms ?? 0))).toBeUndefined();
    expect(pacer.state.remaining).toBe(0);
  });
});

describe('Retry-After of a 429', () => {
  it('holds the next send until a delta-seconds Retry-After has passed', () => {
    const pacer = new Pacer({});
    observer(pacer)(429, { 'retry-after': '5' }, T0);
    expect(pacer.state.retryAfterUntil).toBe(T0 + 5_000);
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0 + 2_000)).toEqual({
      ms: 3_000 + MARGIN,
      reason: expect.stringMatching(/Retry-After/) as unknown,
    });
  });

  it('holds the next send until an HTTP-date Retry-After', () => {
    const pacer = new Pacer({});
    observer(pacer)(429, { 'retry-after': new Date(T0 + 10_000).toUTCString() }, T0);
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0)?.ms).toBe(10_000 + MARGIN);
  });

  it('holds an exact send for Retry-After alone, without the backoff (the recovery probe)', () => {
    const pacer = new Pacer({});
    const observe = observer(pacer);
    observe(429, { 'retry-after': '0' }, T0);
    // The backoff stretches the ordinary wait to a second; the probe goes when Retry-After said.
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0)?.ms).toBe(1_000 + MARGIN);
    expect(exactRetryAfterHold(EXACT, at(pacer, T0))).toBeUndefined();
    observe(429, { 'retry-after': '3' }, T0);
    expect(exactRetryAfterHold(EXACT, at(pacer, T0))?.ms).toBe(3_000 + MARGIN);
  });

  it('measures an exact HTTP-date Retry-After against the response\'s Date, not the local clock', () => {
    const pacer = new Pacer({});
    // The local clock is 5 s behind the server's: the wait is the 10 s the server meant.
    observer(pacer)(429, { date: new Date(T0 + 5_000).toUTCString(), 'retry-after': new Date(T0 + 15_000).toUTCString() }, T0);
    expect(exactRetryAfterHold(EXACT, at(pacer, T0))?.ms).toBe(10_000 + MARGIN);
  });

  it('holds sends that skip window pacing, whatever their auth', () => {
    const pacer = new Pacer({});
    observer(pacer)(429, { 'retry-after': '5' }, T0);
    // The server told the client to stop: a probe sent now would be the "repeated request" that
    // section 8 says may get the key banned.
    expect(pacer.holdBeforeSend({ paced: false, keyed: true }, 0, T0)?.ms).toBe(5_000 + MARGIN);
    expect(pacer.holdBeforeSend({ paced: false, keyed: false }, 0, T0)?.ms).toBe(5_000 + MARGIN);
  });

  it('stops holding once the Retry-After deadline has passed', () => {
    const pacer = new Pacer({});
    observer(pacer)(429, { 'retry-after': '5' }, T0);
    expect(pacer.holdBeforeSend({ paced: false, keyed: true }, 0, T0 + 5_000)).toBeUndefined();
  });

  it('waits the Retry-After plus the margin before the single retry', () => {
    const pacer = new Pacer({});
    observer(pacer)(429, { 'retry-after': '3' }, T0);
    expect(pacer.holdBeforeRetry(T0)).toBe(3_000 + MARGIN);
  });

  it('adds the margin it is given instead of the default (the embedded server shares our clock)', () => {
    const pacer = new Pacer({ waitMarginMs: 100 });
    const see = observer(pacer);
    see(429, { 'retry-after': '1' }, T0);
    expect(pacer.holdBeforeRetry(T0)).toBe(1_100);
    expect(exactRetryMs(pacer, T0)).toBe(1_100);
    expect(exactRetryAfterHold(EXACT, at(pacer, T0))?.ms).toBe(1_100);
    see(200, windowHeaders('0', String(T0_SEC + 30)), T0 + 1_100);
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0 + 1_100)?.ms).toBe(30_000 - 1_100 + 100);
  });

  it('lets Retry-After, not the window of the same 429, decide the wait', () => {
    const pacer = new Pacer({});
    observer(pacer)(429, { 'retry-after': '5', ...windowHeaders('0', String(T0_SEC + 60)) }, T0);
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0)?.ms).toBe(5_000 + MARGIN);
    // Once it has passed, the Remaining=0 sent with it does not add a wait for the whole minute.
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0 + 5_000 + MARGIN)).toBeUndefined();
  });

  it('paces on a later keyed Remaining of 0 again after a 429', () => {
    const pacer = new Pacer({});
    const see = observer(pacer);
    see(429, { 'retry-after': '1' }, T0);
    // A newer response than the 429 describes the window again, so it must not be ignored.
    see(200, windowHeaders('0', String(T0_SEC + 60)), T0 + 2_000);
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0 + 2_000)?.ms).toBe(58_000 + MARGIN);
  });

  it('still waits at least the backoff when Retry-After is 0', () => {
    const pacer = new Pacer({});
    observer(pacer)(429, { 'retry-after': '0' }, T0);
    // Retrying at once is exactly what section 8 warns against; the first backoff is 1 s.
    expect(lastThrottleDelay(pacer, T0)).toBe(1_000);
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0)?.ms).toBe(1_000 + MARGIN);
  });

  it('still waits at least the backoff when the Retry-After date is already past', () => {
    const pacer = new Pacer({});
    observer(pacer)(429, { 'retry-after': new Date(T0 - 60_000).toUTCString() }, T0);
    expect(lastThrottleDelay(pacer, T0)).toBe(1_000);
  });

  it('falls back to X-RateLimit-Reset when Retry-After is garbage', () => {
    const pacer = new Pacer({});
    observer(pacer)(429, { 'retry-after': 'soon', 'x-ratelimit-reset': String(T0_SEC + 20) }, T0);
    expect(lastThrottleDelay(pacer, T0)).toBe(20_000);
  });

  it('falls back to X-RateLimit-Reset when Retry-After is missing, reading its unit as for pacing', () => {
    const pacer = new Pacer({});
    observer(pacer)(429, { 'x-ratelimit-reset': '20' }, T0);
    expect(lastThrottleDelay(pacer, T0)).toBe(20_000);
  });

  it('falls back to the backoff when neither Retry-After nor Reset can be read', () => {
    const pacer = new Pacer({});
    observer(pacer)(429, { 'retry-after': '1.5', 'x-ratelimit-reset': 'later' }, T0);
    expect(lastThrottleDelay(pacer, T0)).toBe(1_000);
  });

  it('keeps the backoff when the fallback Reset is nearer than it', () => {
    const pacer = new Pacer({});
    const see = observer(pacer);
    see(429, {}, T0);
    see(429, { 'x-ratelimit-reset': String(T0_SEC + 1) }, T0 + 5_000);
    // Second 429: backoff 2 s beats a Reset 1 s away (already past, in fact).
    expect(lastThrottleDelay(pacer, T0 + 5_000)).toBe(2_000);
  });
});

describe('exponential backoff', () => {
  it('doubles with each 429 from 1 s and is capped at 32 s', () => {
    const pacer = new Pacer({});
    const see = observer(pacer);
    const delays: Array<number | undefined> = [];
    for (let i = 0; i < 8; i++) {
      const at = T0 + i * 100_000;
      see(429, { 'retry-after': '0' }, at);
      delays.push(lastThrottleDelay(pacer, at));
    }
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 32_000, 32_000]);
  });

  it('keeps growing over the run: a success between 429s does not reset it', () => {
    const pacer = new Pacer({});
    const see = observer(pacer);
    see(429, {}, T0);
    see(200, {}, T0 + 10_000);
    see(429, {}, T0 + 20_000);
    // A key throttled earlier in the run is near its limit; starting again at 1 s would hammer it.
    expect(lastThrottleDelay(pacer, T0 + 20_000)).toBe(2_000);
  });

  it('yields to a Retry-After longer than the backoff', () => {
    const pacer = new Pacer({});
    observer(pacer)(429, { 'retry-after': '7' }, T0);
    expect(lastThrottleDelay(pacer, T0)).toBe(7_000);
  });
});

describe('halting on repeated 429s', () => {
  it('asks to halt after two 429s in a row, not after one', () => {
    const pacer = new Pacer({});
    const see = observer(pacer);
    see(429, { 'retry-after': '1' }, T0);
    expect(pacer.throttledTooOften).toBe(false);
    see(429, { 'retry-after': '1' }, T0 + 1_250);
    expect(pacer.throttledTooOften).toBe(true);
  });

  it('does not halt when a non-429 response came between two 429s', () => {
    const pacer = new Pacer({});
    const see = observer(pacer);
    see(429, {}, T0);
    see(200, {}, T0 + 2_000);
    see(429, {}, T0 + 3_000);
    expect(pacer.throttledTooOften).toBe(false);
    expect(pacer.throttled).toBe(2);
  });

  it('does not count 429s to requests sent before the first 429 arrived (a concurrent burst in flight)', () => {
    const pacer = new Pacer({});
    // Requests 1-4 were all sent before any answer came back; 2 is the first 429 to arrive.
    pacer.observe(1, seen('key', response(200), T0), T0, 4);
    pacer.observe(2, seen('key', response(429, { 'retry-after': '1' }), T0 + 10), T0 + 10, 4);
    pacer.observe(3, seen('key', response(429, { 'retry-after': '1' }), T0 + 20), T0 + 20, 4);
    pacer.observe(4, seen('key', response(429, { 'retry-after': '1' }), T0 + 30), T0 + 30, 4);
    expect(pacer.throttledTooOften).toBe(false);
    expect(pacer.throttled).toBe(3);
    // Nor do they grow the backoff: the next real 429's wait is the second step (2 s), not the fourth.
    pacer.observe(5, seen('key', response(200), T0 + 2_000), T0 + 2_000, 5);
    pacer.observe(6, seen('key', response(429, { 'retry-after': '0' }), T0 + 3_000), T0 + 3_000, 6);
    expect(lastThrottleDelay(pacer, T0 + 3_000)).toBe(2_000);
  });

  it('halts on a 429 to a request sent after the first 429 arrived', () => {
    const pacer = new Pacer({});
    pacer.observe(1, seen('key', response(429, { 'retry-after': '1' }), T0), T0, 2);
    pacer.observe(2, seen('key', response(429, { 'retry-after': '1' }), T0 + 5), T0 + 5, 2);
    expect(pacer.throttledTooOften).toBe(false);
    pacer.observe(3, seen('key', response(429, { 'retry-after': '1' }), T0 + 1_300), T0 + 1_300, 3);
    expect(pacer.throttledTooOften).toBe(true);
  });

  it('keeps the later Retry-After of an in-flight 429', () => {
    const pacer = new Pacer({});
    pacer.observe(1, seen('key', response(429, { 'retry-after': '1' }), T0), T0, 2);
    pacer.observe(2, seen('key', response(429, { 'retry-after': '5' }), T0 + 5), T0 + 5, 2);
    expect(pacer.state.retryAfterUntil).toBe(T0 + 5_005);
  });

  it('does not let an in-flight success clear the count of 429s in a row', () => {
    const pacer = new Pacer({});
    pacer.observe(1, seen('key', response(429, { 'retry-after': '1' }), T0), T0, 2);
    pacer.observe(2, seen('key', response(200), T0 + 5), T0 + 5, 2);
    pacer.observe(3, seen('key', response(429, { 'retry-after': '1' }), T0 + 1_300), T0 + 1_300, 3);
    expect(pacer.throttledTooOften).toBe(true);
  });

  it('counts 429s of every auth mode', () => {
    const pacer = new Pacer({});
    const see = observer(pacer);
    // Any 429 is the server pushing back on this client; the ban risk is not per auth mode.
    see(429, {}, T0, 'none');
    see(429, {}, T0 + 2_000, 'wrong-key');
    expect(pacer.throttled).toBe(2);
    expect(pacer.throttledTooOften).toBe(true);
  });
});

describe('refusing a wait', () => {
  it("refuses a wait longer than maxWaitMs with reason 'wait-too-long'", () => {
    const pacer = new Pacer({ maxWaitMs: 10_000 });
    expect(pacer.refuseWait(10_000, 'x', T0)).toBeUndefined();
    expect(pacer.refuseWait(10_001, 'x', T0)).toMatchObject({ reason: 'wait-too-long', message: expect.stringContaining('10000 ms') as unknown });
  });

  it('allows 65 s by default and refuses more', () => {
    const pacer = new Pacer({});
    expect(pacer.refuseWait(65_000, 'x', T0)).toBeUndefined();
    expect(pacer.refuseWait(65_001, 'x', T0)?.reason).toBe('wait-too-long');
  });

  it('refuses the wait for a window that resets an hour later', () => {
    const pacer = new Pacer({});
    observer(pacer)(200, windowHeaders('0', String(T0_SEC + 3_600)), T0);
    const hold = pacer.holdBeforeSend(PACED_KEYED, 0, T0);
    expect(hold?.ms).toBe(3_600_000 + MARGIN);
    expect(pacer.refuseWait(hold?.ms ?? 0, hold?.reason ?? '', T0)?.reason).toBe('wait-too-long');
  });

  it("refuses a wait that would reach the run's deadline with reason 'deadline'", () => {
    const pacer = new Pacer({ deadlineAt: T0 + 20_000 });
    expect(pacer.refuseWait(19_999, 'x', T0)).toBeUndefined();
    // Sleeping only to be refused at the deadline would waste the time the deadline bounds.
    expect(pacer.refuseWait(20_000, 'x', T0)).toMatchObject({ reason: 'deadline' });
    expect(pacer.refuseWait(10_000, 'x', T0 + 15_000)?.reason).toBe('deadline');
  });

  it('has no deadline unless one is given', () => {
    const pacer = new Pacer({ maxWaitMs: Number.MAX_SAFE_INTEGER });
    expect(pacer.refuseWait(365 * 86_400_000, 'x', T0)).toBeUndefined();
  });
});

describe('reading X-RateLimit-* headers', () => {
  it('keeps the last known values when the headers are malformed', () => {
    const pacer = new Pacer({});
    const see = observer(pacer);
    see(200, windowHeaders('0', String(T0_SEC + 30)), T0);
    // Forgetting the Remaining of 0 would let the next request through to a certain 429.
    see(200, { 'x-ratelimit-limit': 'sixty', 'x-ratelimit-remaining': '-1', 'x-ratelimit-reset': '1.9e9' }, T0 + 100);
    expect(pacer.state).toEqual({ limit: 60, remaining: 0, reset: T0_SEC + 30 });
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0 + 100)?.ms).toBe(29_900 + MARGIN);
  });

  it('keeps the last known values when the headers are missing', () => {
    const pacer = new Pacer({});
    const see = observer(pacer);
    see(200, windowHeaders('0', String(T0_SEC + 30)), T0);
    // A proxy's error page typically carries none of them.
    see(502, {}, T0 + 100);
    expect(pacer.state).toEqual({ limit: 60, remaining: 0, reset: T0_SEC + 30 });
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0 + 100)?.ms).toBe(29_900 + MARGIN);
  });

  it('updates the values a later keyed response sends', () => {
    const pacer = new Pacer({});
    const see = observer(pacer);
    see(200, windowHeaders('0', String(T0_SEC + 30)), T0);
    see(200, windowHeaders(' 59 ', String(T0_SEC + 90), '100'), T0 + 100);
    // Surrounding whitespace is not part of a field value, so " 59 " is a valid count.
    expect(pacer.state).toEqual({ limit: 100, remaining: 59, reset: T0_SEC + 90 });
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0 + 100)).toBeUndefined();
  });

  it('reads a value as RATE-001 does: other whitespace than SP and HTAB makes it malformed, so what it knew stays', () => {
    const pacer = new Pacer({});
    const see = observer(pacer);
    see(200, windowHeaders('0', String(T0_SEC + 30)), T0);
    see(200, windowHeaders('59\u00a0', String(T0_SEC + 30)), T0 + 100);
    expect(pacer.state).toEqual({ limit: 60, remaining: 0, reset: T0_SEC + 30 });
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0 + 100)?.ms).toBe(29_900 + MARGIN);
  });
});

describe('unkeyed responses', () => {
  it("leave the key's account as it was", () => {
    const pacer = new Pacer({});
    const see = observer(pacer);
    see(200, windowHeaders('0', String(T0_SEC + 30)), T0);
    // Other auth modes are counted in other buckets: their 59 says nothing about the key's 0.
    see(200, windowHeaders('59', String(T0_SEC + 90), '1000'), T0 + 100, 'none');
    see(401, windowHeaders('59', String(T0_SEC + 90), '1000'), T0 + 200, 'wrong-key');
    see(400, windowHeaders('59', String(T0_SEC + 90), '1000'), T0 + 300, 'malformed');
    expect(pacer.state).toEqual({ limit: 60, remaining: 0, reset: T0_SEC + 30 });
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0 + 300)?.ms).toBe(29_700 + MARGIN);
  });

  it('do not start window pacing for the key', () => {
    const pacer = new Pacer({});
    observer(pacer)(200, windowHeaders('0', String(T0_SEC + 30)), T0, 'none');
    expect(pacer.state).toEqual({});
    expect(pacer.holdBeforeSend(PACED_KEYED, 0, T0)).toBeUndefined();
  });
});

describe('the limit probe (the request over a used-up window)', () => {
  it('is due for a paced keyed send when the server\'s own Remaining reached 0 and no 429 was seen', () => {
    const pacer = new Pacer({});
    observer(pacer)(200, windowHeaders('0', String(T0_SEC + 30)), T0);
    expect(atWindowLimit(PACED_KEYED, at(pacer, T0))).toBe(true);
  });

  it('is not due for unpaced or unkeyed sends, with keyed requests in flight, or while Remaining is above 0', () => {
    const pacer = new Pacer({});
    const observe = observer(pacer);
    observe(200, windowHeaders('1', String(T0_SEC + 30)), T0);
    expect(atWindowLimit(PACED_KEYED, at(pacer, T0))).toBe(false);
    observe(200, windowHeaders('0', String(T0_SEC + 30)), T0);
    expect(atWindowLimit({ paced: false, keyed: true }, at(pacer, T0))).toBe(false);
    expect(atWindowLimit({ paced: true, keyed: false }, at(pacer, T0))).toBe(false);
    expect(atWindowLimit(PACED_KEYED, at(pacer, T0, 1))).toBe(false);
  });

  it('is not due once the run has seen a 429, nor with less than a second of the window left', () => {
    const late = new Pacer({});
    observer(late)(200, windowHeaders('0', String(T0_SEC + 1)), T0);
    expect(atWindowLimit(PACED_KEYED, at(late, T0 + 1))).toBe(false);
    expect(atWindowLimit(PACED_KEYED, at(late, T0))).toBe(true);

    const throttled = new Pacer({});
    const observe = observer(throttled);
    observe(429, { 'retry-after': '0', ...windowHeaders('0', String(T0_SEC + 30)) }, T0);
    observe(200, windowHeaders('0', String(T0_SEC + 30)), T0 + 2_000);
    expect(atWindowLimit(PACED_KEYED, at(throttled, T0 + 2_000))).toBe(false);
  });

  it('retries exactly at Retry-After, without the backoff the ordinary retry adds', () => {
    const pacer = new Pacer({});
    observer(pacer)(429, { 'retry-after': '0', ...windowHeaders('0', String(T0_SEC + 30)) }, T0);
    expect(exactRetryMs(pacer, T0)).toBe(MARGIN);
    expect(pacer.holdBeforeRetry(T0)).toBe(1_000 + MARGIN);

    const later = new Pacer({});
    observer(later)(429, { 'retry-after': '3', ...windowHeaders('0', String(T0_SEC + 30)) }, T0);
    expect(exactRetryMs(later, T0 + 1_000)).toBe(2_000 + MARGIN);
  });
});

describe('Pacer.roomToOverlap: one more request alongside those in flight', () => {
  it('only while the last Remaining, less everything in flight and the new one, leaves one to spare', () => {
    const pacer = new Pacer({});
    expect(pacer.roomToOverlap(0, T0)).toBe(false);
    observer(pacer)(200, windowHeaders('5', String(T0_SEC + 3)), T0);
    expect(pacer.roomToOverlap(3, T0)).toBe(true);
    expect(pacer.roomToOverlap(4, T0)).toBe(false);
    // Once Reset has passed the Remaining seen is stale: nothing says the window has room.
    expect(pacer.roomToOverlap(0, T0 + 3_000)).toBe(false);
  });

  it('never once a 429 was met, nor without a Reset', () => {
    const throttled = new Pacer({});
    const observe = observer(throttled);
    observe(429, { 'retry-after': '0', ...windowHeaders('0', String(T0_SEC + 30)) }, T0);
    observe(200, windowHeaders('50', String(T0_SEC + 30)), T0 + 2_000);
    expect(throttled.roomToOverlap(0, T0 + 2_000)).toBe(false);

    const noReset = new Pacer({});
    observer(noReset)(200, { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '50' }, T0);
    expect(noReset.roomToOverlap(0, T0)).toBe(false);
  });
});
