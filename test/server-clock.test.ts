/**
 * The server's clock from the freshest Date headers (src/checks/server-clock.ts), and the timing
 * checks judged against it: a cached Date that stands still or lags is an observation, never a
 * failure, while a server whose clock is really off keeps its verdict and a Reset that really
 * lies still fails.
 */
import { describe, expect, it } from 'vitest';
import { findEarly429s } from '../src/checks/early-429.js';
import { checkRateLimitHeaders } from '../src/checks/rate-limit-headers.js';
import { checkRefillBeforeReset } from '../src/checks/rate-limit-sequence.js';
import { checkRetryAfterAgreesWithReset, checkRetryHonoured } from '../src/checks/retry-after-reset.js';
import { observeDateLag, serverClockOf, serverMoment, ServerClockReading } from '../src/checks/server-clock.js';
import type { Exchange } from '../src/http/exchange.js';
import { NOW_MS, NOW_S, makeExchange } from './support/exchange-factory.js';
import { observations, violations } from './support/findings.js';

const httpDate = (ms: number): string => new Date(ms).toUTCString();

let seq = 0;
/**
 * A keyed response sent at NOW_MS + atMs and answered 10 ms later, whose Date reads `dateMs`
 * (default: the server's clock then, which runs `offsetMs` ahead of the local one).
 */
function at(atMs: number, headers: Record<string, string | undefined>, opts: { dateMs?: number; offsetMs?: number; status?: number } = {}): Exchange {
  seq += 1;
  const serverNow = NOW_MS + atMs + 5 + (opts.offsetMs ?? 0);
  const dateMs = opts.dateMs ?? Math.floor(serverNow / 1000) * 1000;
  return makeExchange({ seq, sentAt: NOW_MS + atMs, elapsedMs: 10, status: opts.status ?? 200, headers: { date: httpDate(dateMs), ...headers } });
}

const window = (remaining: number, reset: number) => ({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': String(reset) });

describe('ServerClockReading', () => {
  it('bounds the offset from below by the freshest Date and narrows it to about one exchange across a second turn', () => {
    // The server's clock runs 300 ms ahead of the local one.
    const exchanges = [0, 300, 600, 690, 705, 900].map((t) => at(t, {}, { offsetMs: 300 }));
    const clock = serverClockOf(exchanges);
    expect(clock).toBeDefined();
    if (clock === undefined) return;
    expect(clock.low).toBeLessThanOrEqual(300);
    expect(clock.low).toBeGreaterThanOrEqual(300 - 20);
    expect(clock.high).toBeGreaterThanOrEqual(300);
    expect(clock.narrowHigh).toBeGreaterThanOrEqual(300);
    expect(clock.narrowHigh).toBeLessThanOrEqual(300 + 20);
  });

  it('keeps the freshest Date when later ones stand still (a Date built once per connection)', () => {
    const first = at(0, {});
    const stale = [1500, 3000, 4500].map((t) => at(t, {}, { dateMs: NOW_MS }));
    const reading = new ServerClockReading();
    for (const ex of [first, ...stale]) reading.observe(ex);
    const clock = reading.clock;
    // Read from the first response alone: the offset is 0 to 5 ms, within its second.
    expect(clock?.low).toBe(NOW_MS - (NOW_MS + 10));
    expect(clock?.high).toBeGreaterThanOrEqual(5);
    expect(clock?.narrowHigh).toBeGreaterThanOrEqual(clock?.low ?? 0);
    // The last response was handled 4.5 s after the first, whatever its Date says.
    const moment = serverMoment(stale[2] as Exchange, clock);
    expect(moment?.earliest).toBeGreaterThanOrEqual(NOW_MS + 4_500 - 10);
    expect(moment?.latest).toBeGreaterThanOrEqual(NOW_MS + 4_505);
  });

  it('places a response by its own Date when there is no clock, and nowhere without a Date', () => {
    const ex = at(0, {});
    expect(serverMoment(ex, undefined)).toEqual({ earliest: NOW_MS, latest: NOW_MS + 1000 });
    expect(serverMoment(makeExchange({ headers: { date: undefined } }), undefined)).toBeUndefined();
    expect(serverClockOf([makeExchange({ headers: { date: undefined } })])).toBeUndefined();
  });
});

describe('observeDateLag', () => {
  it('says what was seen of a Date that stood still, as a notable RATE-003 observation', () => {
    const exchanges = [at(0, {}), ...[1000, 2000, 3000, 4000, 5000].map((t) => at(t, {}, { dateMs: NOW_MS }))];
    const found = observeDateLag(exchanges, serverClockOf(exchanges));
    expect(observations(found, 'RATE-003')).toHaveLength(1);
    expect(found[0]?.notable).toBe(true);
    expect(found[0]?.exchange).toBe(exchanges[5]?.seq);
    expect(found[0]?.message).toMatch(/^The Date header lagged the server's clock on 3 of 6 responses, by up to 5\.0 s .*stood still on 6 responses over 5\.0 s of the local clock/);
    expect(found[0]?.message).toContain('not held against the server');
  });

  it('says nothing of fresh Dates, nor of a cache that turns its second a few milliseconds late', () => {
    const fresh = [0, 400, 800, 1200, 1600].map((t) => at(t, {}));
    expect(observeDateLag(fresh, serverClockOf(fresh))).toEqual([]);
    // Node's own Date cache: 30 ms into a new second it still shows the last one.
    const late = [...fresh, at(1980, {}), at(2030, {}, { dateMs: NOW_MS + 1000 }), at(2100, {})];
    expect(observeDateLag(late, serverClockOf(late))).toEqual([]);
    expect(observeDateLag(late, undefined)).toEqual([]);
  });
});

describe('timing checks against the server\'s clock', () => {
  /** A 429 near the end of a 3 s window, then the retry once it has reset, whose Date stood still 5 s before. */
  function staleRetry(): { exchanges: Exchange[]; throttled: Exchange; retry: Exchange } {
    const fresh = at(0, window(10, NOW_S + 3));
    const throttled = at(2_900, { ...window(0, NOW_S + 3), 'retry-after': '1' }, { status: 429 });
    const retry = at(4_100, window(59, NOW_S + 6), { dateMs: NOW_MS - 1_000 });
    return { exchanges: [fresh, throttled, retry], throttled, retry };
  }

  it('does not take a refill for early when the Date stood still (the issue\'s RATE-003 false failure)', () => {
    const { exchanges, throttled, retry } = staleRetry();
    const clock = serverClockOf(exchanges);
    expect(violations(checkRefillBeforeReset(throttled, retry, clock))).toEqual([]);
    // Judged by the retry's own Date, as before, the window looked full again 4 s early.
    expect(violations(checkRefillBeforeReset(throttled, retry), 'RATE-003')).toHaveLength(1);
  });

  it('still fails a Reset that really comes too late, and a Reset in the past that a stale Date would hide', () => {
    const exchanges = [at(0, window(10, NOW_S + 3600)), at(2_000, window(59, NOW_S + 3602))];
    expect(violations(checkRefillBeforeReset(exchanges[0] as Exchange, exchanges[1] as Exchange, serverClockOf(exchanges)), 'RATE-003')).toHaveLength(1);
    const stale = [at(0, window(10, NOW_S + 3)), at(30_000, window(40, NOW_S + 20), { dateMs: NOW_MS })];
    const clock = serverClockOf(stale);
    expect(violations(checkRateLimitHeaders(stale[1] as Exchange, { clock }), 'RATE-003')).toHaveLength(1);
    expect(violations(checkRateLimitHeaders(stale[1] as Exchange))).toEqual([]);
  });

  it('keeps a server whose clock is really behind conforming: Date and Reset agree with each other', () => {
    const behind = { offsetMs: -100_000 };
    const exchanges = [at(0, window(20, NOW_S - 97), behind), at(100, window(19, NOW_S - 97), behind)];
    const clock = serverClockOf(exchanges);
    for (const ex of exchanges) expect(violations(checkRateLimitHeaders(ex, { clock }))).toEqual([]);
    expect(violations(checkRefillBeforeReset(exchanges[0] as Exchange, exchanges[1] as Exchange, clock))).toEqual([]);
  });

  it('does not put a 429 of the next window in the earlier one because its Date stood still', () => {
    const announced = at(0, window(30, NOW_S + 4));
    // The next window's 429 (its own Reset) on a connection whose Date was built in the first window's
    // first second: on that Date alone the 429 lies surely more than 2 s before the first Reset.
    const throttled = at(4_500, { ...window(0, NOW_S + 6), 'retry-after': '2' }, { status: 429, dateMs: NOW_MS });
    const exchanges = [announced, throttled];
    expect(violations(findEarly429s(exchanges, 'dedicated', serverClockOf(exchanges)))).toEqual([]);
    expect(violations(findEarly429s(exchanges, 'dedicated'), 'RATE-002')).toHaveLength(1);
  });

  it('counts Retry-After from the server\'s clock: a stale Date neither fails a right one nor hides a late one', () => {
    const { exchanges } = staleRetry();
    const stale429 = at(5_000, { ...window(0, NOW_S + 6), 'retry-after': '1' }, { status: 429, dateMs: NOW_MS - 1_000 });
    const clock = serverClockOf([...exchanges, stale429]);
    expect(violations(checkRetryAfterAgreesWithReset(stale429, clock))).toEqual([]);
    const late = at(5_000, { ...window(0, NOW_S + 6), 'retry-after': '9' }, { status: 429, dateMs: NOW_MS - 1_000 });
    expect(violations(checkRetryAfterAgreesWithReset(late, serverClockOf([...exchanges, late])), 'RATE-006')).toHaveLength(1);
    expect(violations(checkRetryAfterAgreesWithReset(late), 'RATE-006')).toEqual([]);
  });

  it('places a refused retry in a later window by the server\'s clock, not by its stale Date', () => {
    const first = at(0, { ...window(0, NOW_S + 3), 'retry-after': '3' }, { status: 429 });
    const again = at(3_200, { ...window(0, NOW_S + 6), 'retry-after': '3' }, { status: 429, dateMs: NOW_MS });
    const clock = serverClockOf([first, again]);
    // A new window on a shared key another client used up first: recorded, not failed.
    expect(violations(checkRetryHonoured(first, again, 'shared', 60n, clock))).toEqual([]);
    expect(observations(checkRetryHonoured(first, again, 'shared', 60n, clock), 'RATE-006')).toHaveLength(1);
  });
});
