/**
 * The window length (src/rate-limit/window-length.ts), read two ways on purpose: the shortest the
 * responses allow (a lower bound, for rules that fail a refill) and the longest seen (for plans
 * and the line between the minute's Reset and the day's); and how far ahead a Reset lies.
 */
import { describe, expect, it } from 'vitest';
import { observedWindowMs, resetAheadMs, resetBeyondWindow, shortestWindowMs } from '../src/rate-limit/window-length.js';
import { serverClockOf } from '../src/checks/server-clock.js';
import type { Exchange } from '../src/http/exchange.js';
import { NOW_MS, NOW_S, makeExchange, type ExchangeOptions } from './support/exchange-factory.js';

/** A response answered at `atMs` after NOW_MS (its Date that second), with a Reset of `reset` (Unix seconds, or as sent). */
const answered = (atMs: number, reset: number | string, opts: ExchangeOptions = {}): Exchange =>
  makeExchange({ sentAt: NOW_MS + atMs - 10, elapsedMs: 10, ...opts, headers: { date: new Date(NOW_MS + atMs).toUTCString(), 'x-ratelimit-reset': String(reset), ...opts.headers } });

describe('how far ahead a Reset lies', () => {
  it('is measured from the server\'s time of the response, for a Reset in Unix seconds only', () => {
    expect(resetAheadMs(answered(0, NOW_S + 30))).toBe(30_000);
    expect(resetAheadMs(answered(0, '30'))).toBeUndefined();
    expect(resetAheadMs(answered(0, String(NOW_MS + 30_000)))).toBeUndefined();
    expect(resetAheadMs(answered(0, NOW_S + 30, { headers: { 'x-ratelimit-reset': undefined } }))).toBeUndefined();
  });

  it('lies beyond a window only by more than a Reset\'s whole seconds: another limit\'s', () => {
    expect(resetBeyondWindow(62_000, 60_000)).toBe(false);
    expect(resetBeyondWindow(62_001, 60_000)).toBe(true);
  });
});

describe('the window length the run observed, for plans', () => {
  it('is the longest time to a Reset within a minute on a served keyed response', () => {
    const exchanges = [answered(0, NOW_S + 30), answered(1_000, NOW_S + 45), answered(2_000, NOW_S + 20)];
    expect(observedWindowMs(exchanges)).toBe(44_000);
  });

  it('passes over a 429, an unauthenticated request, a day\'s Reset and a Reset passed; the spec\'s minute when nothing is left', () => {
    const others = [answered(0, NOW_S + 45, { status: 429 }), answered(0, NOW_S + 45, { auth: 'none' }), answered(0, NOW_S + 3_600), answered(0, NOW_S - 1)];
    expect(observedWindowMs(others)).toBe(60_000);
    expect(observedWindowMs([...others, answered(0, NOW_S + 10)])).toBe(10_000);
    expect(observedWindowMs([])).toBe(60_000);
  });
});

describe('the two readings differ on purpose', () => {
  it('the shortest window allows less than the observed one, by what a Reset may overstate', () => {
    const exchanges = [answered(0, NOW_S + 30), answered(400, NOW_S + 30), answered(800, NOW_S + 30)];
    const clock = serverClockOf(exchanges);
    const shortest = shortestWindowMs(exchanges, clock);
    expect(shortest).toBeDefined();
    expect(shortest).toBeLessThan(observedWindowMs(exchanges, clock));
    expect(observedWindowMs(exchanges, clock)).toBeLessThanOrEqual(30_000);
    // Without the server's clock no bound a verdict rests on is read; a plan still has the minute's.
    expect(shortestWindowMs(exchanges, undefined)).toBeUndefined();
  });

  it('the shortest reads only responses the limiter surely counted (with Remaining); the observed any served one', () => {
    const withoutRemaining = [answered(0, NOW_S + 30, { headers: { 'x-ratelimit-remaining': undefined } })];
    expect(shortestWindowMs(withoutRemaining, serverClockOf(withoutRemaining))).toBeUndefined();
    expect(observedWindowMs(withoutRemaining)).toBe(30_000);
  });
});
