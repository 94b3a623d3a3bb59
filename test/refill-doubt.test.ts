/**
 * The refill doubt (src/rate-limit/refill-doubt.ts): keyed sends wait for the next Reset only where
 * a Reset passed with nothing given back, never where a window refilled as every limiter does.
 */
import { describe, expect, it } from 'vitest';
import { RefillDoubt } from '../src/rate-limit/refill-doubt.js';
import { Pacer } from '../src/http/pacer.js';
import type { Exchange } from '../src/http/exchange.js';
import { NOW_MS, makeExchange } from './support/exchange-factory.js';

/** A keyed response handled `atMs` after NOW_MS (local = server clock), naming a Reset `resetS` seconds after NOW_MS. */
const keyed = (seq: number, atMs: number, remaining: number, resetS: number): Exchange =>
  makeExchange({
    seq,
    sentAt: NOW_MS + atMs - 5,
    elapsedMs: 5,
    headers: { date: new Date(Math.floor((NOW_MS + atMs) / 1000) * 1000).toUTCString(), 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': String(NOW_MS / 1000 + resetS) },
  });

const paced = { paced: true, keyed: true, retryOn429: true, exactRetryAfter: false };
const holdAt = (doubt: RefillDoubt, atMs: number): number | undefined => doubt.time(paced, { pacer: new Pacer({ maxWaitMs: 65_000 }), inFlightKeyed: 0, now: NOW_MS + atMs })?.hold?.ms;

/** The doubt after it was shown `exchanges` in order. */
function shown(exchanges: Exchange[]): RefillDoubt {
  const doubt = new RefillDoubt();
  exchanges.forEach((ex, i) => doubt.observe(ex, exchanges.slice(0, i + 1), i + 1));
  return doubt;
}

describe('the refill doubt', () => {
  it('holds keyed sends until the next Reset when the one before passed with nothing given back', () => {
    // A counter of 8 s under Resets of 4: at the Reset of 4 s, Remaining goes on falling.
    const doubt = shown([keyed(1, 1_000, 50, 4), keyed(2, 1_100, 49, 4), keyed(3, 4_100, 48, 8), keyed(4, 4_150, 47, 8)]);
    const ms = holdAt(doubt, 4_200);
    // Until the Reset of 8 s has surely passed locally, and the pacer's margin.
    expect(ms).toBeGreaterThanOrEqual(8_000 - 4_200);
    expect(ms).toBeLessThan(8_000 - 4_200 + 1_500);
    expect(holdAt(doubt, 9_500)).toBeUndefined();
    // Only paced keyed sends.
    expect(doubt.time({ ...paced, keyed: false }, { pacer: new Pacer({ maxWaitMs: 65_000 }), inFlightKeyed: 0, now: NOW_MS + 4_200 })).toBeUndefined();
  });

  it('reads a window opened by requests in flight together by the response with most left, once none sent before it is still in flight', () => {
    // Four requests go out together just after the Reset of 4 s and are answered in the order they
    // were counted (36 to 33): any of them may have been counted before the first answer came.
    const together = [36, 35, 34, 33].map((remaining, i) => ({ ...keyed(3 + i, 4_110 + i, remaining, 8), sentAt: NOW_MS + 4_100 }));
    // Then two at a time, each pair sent as the one before is answered: every answer but the last overlaps a request still in flight.
    const pairs = [32, 31, 30, 29].map((remaining, i) => ({ ...keyed(7 + i, 4_120 + 10 * Math.floor(i / 2) + (i % 2), remaining, 8), sentAt: NOW_MS + 4_113 + 10 * Math.floor(i / 2) }));
    const exchanges = [keyed(1, 1_000, 38, 4), keyed(2, 1_100, 37, 4), ...together, ...pairs];
    const doubt = new RefillDoubt();
    // What was sent and answered when each is observed: the four together are recorded by the time the first is.
    const recordedBy = [1, 2, 6, 6, 6, 6, 10, 10, 10, 10];
    exchanges.forEach((ex, i) => doubt.observe(ex, exchanges.slice(0, recordedBy[i]), recordedBy[i] ?? 0));
    expect(holdAt(doubt, 4_250)).toBeGreaterThanOrEqual(8_000 - 4_250);
  });

  it('waits for a request still in flight that may have been counted first: a sliding log gives back one', () => {
    // The log gives back one at its Reset: the request counted first there shows 37, as before it;
    // the one counted after it (36) is answered first.
    const first = { ...keyed(4, 4_130, 37, 8), sentAt: NOW_MS + 4_100 };
    const second = { ...keyed(3, 4_110, 36, 8), sentAt: NOW_MS + 4_100 };
    const earlier = [keyed(1, 1_000, 38, 4), keyed(2, 1_100, 37, 4)];
    const doubt = new RefillDoubt();
    earlier.forEach((ex, i) => doubt.observe(ex, earlier.slice(0, i + 1), i + 1));
    doubt.observe(second, [...earlier, second], 4);
    doubt.observe(first, [...earlier, second, first], 4);
    const after = keyed(5, 4_200, 35, 8);
    doubt.observe(after, [...earlier, second, first, after], 5);
    expect(holdAt(doubt, 4_250)).toBeUndefined();
  });

  it('stays silent where the window refilled, where it had spent nothing, and before the Reset has passed', () => {
    // A fixed window: everything back at the Reset, even with a dozen requests in flight across it.
    const dozen = Array.from({ length: 12 }, (_, i) => keyed(3 + i, 4_100 + i, 59 - i, 8));
    expect(holdAt(shown([keyed(1, 1_000, 50, 4), keyed(2, 1_100, 49, 4), ...dozen]), 4_200)).toBeUndefined();
    // Nothing spent before the Reset: nothing to give back.
    expect(holdAt(shown([keyed(1, 1_000, 60, 4), keyed(2, 4_100, 59, 8)]), 4_200)).toBeUndefined();
    // A later Reset named before the earlier one passed by the server's Date: no window has ended.
    expect(holdAt(shown([keyed(1, 1_000, 50, 4), keyed(2, 3_500, 49, 8)]), 3_600)).toBeUndefined();
  });
});
