/**
 * The rate-limit area's shared notions (src/rate-limit/): the requests counted between two
 * responses, surely (a lower bound) and possibly (an upper bound), and the one rule of the same
 * window. Each case states the timing that decides it.
 */
import { describe, expect, it } from 'vitest';
import { CountedRequests, limiterCounted, possiblyCountedBetween } from '../src/rate-limit/counting.js';
import { resetsRepeatedPast, sameWindow } from '../src/rate-limit/window.js';
import type { Exchange } from '../src/http/exchange.js';
import { NOW_MS, makeExchange, type ExchangeOptions } from './support/exchange-factory.js';

/** A keyed exchange sent at `at` ms after NOW_MS and answered `took` ms later. */
const ex = (seq: number, at: number, took = 10, opts: ExchangeOptions = {}): Exchange => makeExchange({ seq, sentAt: NOW_MS + at, elapsedMs: took, ...opts });

describe('what the limiter surely counted', () => {
  it('is a keyed request served with Remaining on its answer', () => {
    expect(limiterCounted(ex(1, 0))).toBe(true);
    expect(limiterCounted(ex(1, 0, 10, { status: 429 }))).toBe(false);
    expect(limiterCounted(ex(1, 0, 10, { auth: 'none' }))).toBe(false);
    expect(limiterCounted(ex(1, 0, 10, { headers: { 'x-ratelimit-remaining': undefined } }))).toBe(false);
    expect(limiterCounted(ex(1, 0, 10, { noResponse: true }))).toBe(false);
  });

  it('between two responses: sent once the first was answered, answered before the second was sent, and the second itself', () => {
    const from = ex(1, 0);
    const inOrder = ex(2, 20);
    const overlapsFrom = ex(3, 5, 30); // sent before `from` was answered
    const overlapsTo = ex(4, 95, 20); // answered after `to` was sent
    const refused = ex(5, 40, 10, { status: 429 });
    const withoutKey = ex(6, 50, 10, { auth: 'none' });
    const to = ex(7, 100);
    const counting = new CountedRequests([to, overlapsTo, from, inOrder, overlapsFrom, refused, withoutKey]);
    expect(counting.surelyBetween(from, to)).toBe(2);
    // Possibly counted: every request whose handling may fall between the two, whatever its answer or credentials.
    expect(possiblyCountedBetween([from, inOrder, overlapsFrom, overlapsTo, refused, withoutKey, to], from, to)).toBe(6);
  });

  it('a later response the limiter did not count adds nothing to what it surely counted', () => {
    const from = ex(1, 0);
    const to = ex(2, 20, 10, { status: 429 });
    expect(new CountedRequests([from, to]).surelyBetween(from, to)).toBe(0);
    expect(possiblyCountedBetween([from, to], from, to)).toBe(1);
  });

  it('within a window length before a response: what a sliding log of that length still holds', () => {
    const old = ex(1, 0);
    const recent = [ex(2, 600), ex(3, 700)];
    const to = ex(4, 1_000);
    const counting = new CountedRequests([old, ...recent, to]);
    expect(counting.surelyWithin(to, 500)).toBe(3);
    expect(counting.surelyWithin(to, 2_000)).toBe(4);
  });
});

describe('the same window', () => {
  const reset = NOW_MS + 10_000;
  const at = (ms: number): Exchange => ex(2, ms - NOW_MS, 10, { headers: { date: new Date(ms).toUTCString() } });
  const earlier = { ex: ex(1, 0), resetMs: reset };

  it('holds under the same Reset until its moment has come', () => {
    expect(sameWindow(earlier, { ex: at(NOW_MS + 5_000), resetMs: reset }, undefined)).toBe(true);
    expect(sameWindow(earlier, { ex: at(reset + 1_000), resetMs: reset }, undefined)).toBe(false);
  });

  it('holds under another Reset, or none, only surely more than the whole-second tolerance before the earlier Reset', () => {
    expect(sameWindow(earlier, { ex: at(NOW_MS + 5_000), resetMs: reset + 60_000 }, undefined)).toBe(true);
    expect(sameWindow(earlier, { ex: at(NOW_MS + 5_000) }, undefined)).toBe(true);
    expect(sameWindow(earlier, { ex: at(reset - 1_500) }, undefined)).toBe(false);
  });

  it('does not hold under a Reset the server repeated surely past its moment, except surely well before it', () => {
    const resetHeader = { 'x-ratelimit-reset': String(reset / 1000) };
    const named = (ms: number): Exchange => ex(3, ms - NOW_MS, 10, { headers: { date: new Date(ms).toUTCString(), ...resetHeader } });
    // Named 1.5 s after its moment: within the whole-second tolerance, not yet a Reset repeated past it.
    expect(resetsRepeatedPast([named(reset + 1_500)], undefined)).toEqual(new Set());
    const past = resetsRepeatedPast([named(reset - 4_000), named(reset + 3_000)], undefined);
    expect(past).toEqual(new Set([reset]));
    expect(resetsRepeatedPast([ex(4, reset + 3_000 - NOW_MS, 10, { auth: 'none', headers: { date: new Date(reset + 3_000).toUTCString(), ...resetHeader } })], undefined)).toEqual(new Set());
    expect(sameWindow(earlier, { ex: at(reset - 500), resetMs: reset }, undefined)).toBe(true);
    expect(sameWindow(earlier, { ex: at(reset - 500), resetMs: reset }, undefined, past)).toBe(false);
    expect(sameWindow(earlier, { ex: at(reset - 3_500), resetMs: reset }, undefined, past)).toBe(true);
  });

  it('cannot be told without any clock for a response of another Reset', () => {
    const undated = ex(2, 100, 10, { headers: { date: undefined } });
    expect(sameWindow(earlier, { ex: undated, resetMs: reset + 60_000 }, undefined)).toBe(false);
    expect(sameWindow(earlier, { ex: undated, resetMs: reset }, undefined)).toBe(true);
  });
});
