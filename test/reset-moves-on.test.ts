/** RATE-003 over the run (findResetsMovingBack): a pure function over exchanges. */
import { describe, expect, it } from 'vitest';
import { findResetsMovingBack } from '../src/checks/rate-limit-sequence.js';
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
