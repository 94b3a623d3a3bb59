/** RATE-003 over the run (findResetsMovingBack, findResetsPassedWithNothingGivenBack): pure functions over exchanges. */
import { describe, expect, it } from 'vitest';
import { findResetsMovingBack, findResetsPassedWithNothingGivenBack } from '../src/checks/rate-limit-sequence.js';
import { NOW_MS, NOW_S, makeExchange, type ExchangeOptions } from './support/exchange-factory.js';
import { violations } from './support/findings.js';

const httpDate = (ms: number): string => new Date(ms).toUTCString();

/** Keyed exchange `seq` answered at NOW_MS + atMs (local and server clocks agree), announcing Reset NOW_S + resetIn. */
const at = (seq: number, atMs: number, resetIn: number, opts: ExchangeOptions = {}) =>
  makeExchange({
    seq,
    sentAt: NOW_MS + atMs - 10,
    elapsedMs: 10,
    ...opts,
    headers: { date: httpDate(NOW_MS + atMs), 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '30', 'x-ratelimit-reset': String(NOW_S + resetIn), ...opts.headers },
  });

describe('RATE-003: a Reset never moves back', () => {
  it('fails a Reset earlier than one the same operation announced before, naming both', () => {
    const f = violations(findResetsMovingBack([at(1, 0, 6), at(2, 1_000, 3)]), 'RATE-003');
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ exchange: 2, pairedWith: 1, expected: { kind: 'window-until', value: NOW_MS + 6_000 } });
    expect(f[0]?.message).toContain('moved back');
  });

  it('passes Resets that stay or move on, as fixed windows, sliding logs and token buckets give them', () => {
    expect(findResetsMovingBack([at(1, 0, 3), at(2, 1_000, 3), at(3, 3_500, 6), at(4, 4_000, 7)])).toEqual([]);
  });

  it('compares within one operation: a limit kept per route has a Reset of its own', () => {
    const list = at(1, 0, 6, { target: '/pets' });
    const get = at(2, 1_000, 3, { target: '/pets/1' });
    expect(findResetsMovingBack([list, get])).toEqual([]);
    expect(violations(findResetsMovingBack([list, get, at(3, 1_500, 4, { target: '/pets' })]), 'RATE-003')).toHaveLength(1);
  });

  it('does not order responses in flight together, nor compare a daily quota\'s distant Reset', () => {
    // Exchange 2 was sent before exchange 1 was answered: the server may have handled it first.
    const overlapped = at(2, 5, 3, { sentAt: NOW_MS - 20, elapsedMs: 25 });
    expect(findResetsMovingBack([at(1, 0, 6), overlapped])).toEqual([]);
    // The day bound (Reset hours away), then the window again.
    expect(findResetsMovingBack([at(1, 0, 3_600), at(2, 1_000, 3)])).toEqual([]);
  });

  it('reports one finding per operation however often its Reset moved back', () => {
    expect(findResetsMovingBack([at(1, 0, 9), at(2, 1_000, 6), at(3, 2_000, 3)])).toHaveLength(1);
  });
});

describe('RATE-003: a Reset that passed gives something back', () => {
  /** Keyed `seq` at NOW_MS + atMs with Remaining `remaining` under Reset NOW_S + resetIn. */
  const told = (seq: number, atMs: number, remaining: number, resetIn: number, opts: ExchangeOptions = {}) =>
    at(seq, atMs, resetIn, { ...opts, headers: { 'x-ratelimit-remaining': String(remaining), ...opts.headers } });

  it('fails a Reset passed with nothing given back on a dedicated key (a counter twice the announced window), naming both', () => {
    // Reset +2 s announced with 40 left; at 4.2 s, surely past it, one more request shows 39: nothing came back.
    const f = violations(findResetsPassedWithNothingGivenBack([told(1, 0, 40, 2), told(2, 4_200, 39, 6)], 'dedicated'), 'RATE-003');
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ exchange: 2, pairedWith: 1, expected: { kind: 'remaining-at-least', value: 40 } });
    expect(f[0]?.message).toContain('nothing was given back');
  });

  it('passes what fixed windows, sliding logs and token buckets give back, and a Reset not surely passed', () => {
    // A fixed window full again; a sliding log's oldest request back (one request more than the fall owes).
    expect(findResetsPassedWithNothingGivenBack([told(1, 0, 40, 2), told(2, 4_200, 59, 6)], 'dedicated')).toEqual([]);
    expect(findResetsPassedWithNothingGivenBack([told(1, 0, 40, 2), told(2, 4_200, 40, 6)], 'dedicated')).toEqual([]);
    // 2.9 s: within the whole second before the Reset's second and the one after, a Reset may still be this one's.
    expect(findResetsPassedWithNothingGivenBack([told(1, 0, 40, 2), told(2, 2_900, 39, 2)], 'dedicated')).toEqual([]);
  });

  it('allows for the run\'s requests in between and, on a shared key, for other users', () => {
    const between = Array.from({ length: 5 }, (_, i) => told(2 + i, 1_000 + 10 * i, 39 - i, 2));
    // Six requests since exchange 1 (five in between and the later one) explain a fall to 34, not to 33.
    expect(findResetsPassedWithNothingGivenBack([told(1, 0, 40, 2), ...between, told(7, 4_200, 35, 6)], 'dedicated')).toEqual([]);
    expect(violations(findResetsPassedWithNothingGivenBack([told(1, 0, 40, 2), ...between, told(7, 4_200, 34, 6)], 'dedicated'), 'RATE-003')).toHaveLength(1);
    // Shared (the default): others may have spent max(2, 10 % of 60) = 6 as well.
    expect(findResetsPassedWithNothingGivenBack([told(1, 0, 40, 2), told(2, 4_200, 34, 6)])).toEqual([]);
    expect(violations(findResetsPassedWithNothingGivenBack([told(1, 0, 40, 2), told(2, 4_200, 32, 6)]), 'RATE-003')).toHaveLength(1);
  });

  it('compares within one operation, in order, per-minute windows only, and not a 429 nor an earlier response at its Limit', () => {
    const list = told(1, 0, 40, 2, { target: '/pets' });
    expect(findResetsPassedWithNothingGivenBack([list, told(2, 4_200, 39, 6, { target: '/pets/1' })], 'dedicated')).toEqual([]);
    // Sent before exchange 1 was answered: no order to read.
    expect(findResetsPassedWithNothingGivenBack([told(1, 0, 40, 2), told(2, 4_200, 39, 6, { sentAt: NOW_MS - 20, elapsedMs: 4_220 })], 'dedicated')).toEqual([]);
    // The day's Reset, hours away, binds the later response.
    expect(findResetsPassedWithNothingGivenBack([told(1, 0, 40, 2), told(2, 4_200, 39, 3_600)], 'dedicated')).toEqual([]);
    expect(findResetsPassedWithNothingGivenBack([told(1, 0, 40, 2), told(2, 4_200, 0, 6, { status: 429 })], 'dedicated')).toEqual([]);
    expect(findResetsPassedWithNothingGivenBack([told(1, 0, 60, 2), told(2, 4_200, 59, 6)], 'dedicated')).toEqual([]);
  });

  it('reports one finding per operation', () => {
    expect(findResetsPassedWithNothingGivenBack([told(1, 0, 40, 2), told(2, 4_200, 39, 6), told(3, 8_400, 38, 10)], 'dedicated')).toHaveLength(1);
  });
});
