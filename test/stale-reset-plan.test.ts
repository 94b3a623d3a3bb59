/** The keyed request that makes a Reset that crept on show whatever the window phase (staleResetProbeAt): pure functions over exchanges. */
import { describe, expect, it } from 'vitest';
import { STALE_RESET_SHOWS_AFTER_MS, resetMovedWithoutRefill, staleResetProbeAt } from '../src/session/stale-reset-plan.js';
import { NOW_MS, NOW_S, makeExchange, type ExchangeOptions } from './support/exchange-factory.js';

/** Keyed exchange `seq` answered at NOW_MS + atMs with Remaining `remaining`, announcing Reset NOW_S + resetIn. */
const at = (seq: number, atMs: number, remaining: number, resetIn: number, opts: ExchangeOptions = {}) =>
  makeExchange({
    seq,
    sentAt: NOW_MS + atMs - 10,
    elapsedMs: 10,
    ...opts,
    headers: { date: new Date(NOW_MS + atMs).toUTCString(), 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': String(NOW_S + resetIn), ...opts.headers },
  });

/** A Reset that crept a second on while Remaining kept falling: what makes the request worth its wait. */
const crept = [at(1, 0, 40, 1), at(2, 1_100, 39, 2)];

describe('RATE-003 on every path: a keyed request far enough past the refill', () => {
  const recovery = at(5, 3_000, 59, 4);
  it('is planned STALE_RESET_SHOWS_AFTER_MS after the served recovery once a Reset moved on with nothing given back, when the run sent none that late', () => {
    expect(STALE_RESET_SHOWS_AFTER_MS).toBe(5_000);
    expect(staleResetProbeAt(recovery, [...crept, recovery], NOW_MS, 65_000)).toBe(NOW_MS + 8_000);
  });

  it('is not needed once a keyed request was sent that late, nor after a refused or unanswered recovery', () => {
    expect(staleResetProbeAt(recovery, [...crept, recovery, at(6, 9_000, 58, 10)], NOW_MS, 65_000)).toBeUndefined();
    expect(staleResetProbeAt(at(5, 0, 0, 3, { status: 429 }), crept, NOW_MS, 65_000)).toBeUndefined();
    expect(staleResetProbeAt(makeExchange({ seq: 5, noResponse: true }), crept, NOW_MS, 65_000)).toBeUndefined();
  });

  it('is not sent where every Reset moved on with a refill (fixed windows, the embedded run\'s), nor beyond --max-wait', () => {
    const refilled = [at(1, 0, 40, 1), at(2, 1_100, 59, 2)];
    expect(staleResetProbeAt(recovery, [...refilled, recovery], NOW_MS, 65_000)).toBeUndefined();
    expect(staleResetProbeAt(recovery, [...crept, recovery], NOW_MS, 4_000)).toBeUndefined();
  });
});

describe('a Reset moved on with nothing given back', () => {
  it('is seen on two keyed responses of one operation in order, the later Reset later and Remaining no higher than the fall owes', () => {
    expect(resetMovedWithoutRefill(crept)).toBe(true);
    // Something given back: one more than the fall of one request owes.
    expect(resetMovedWithoutRefill([at(1, 0, 40, 1), at(2, 1_100, 40, 2)])).toBe(false);
    // The same Reset: a window going on.
    expect(resetMovedWithoutRefill([at(1, 0, 40, 1), at(2, 500, 39, 1)])).toBe(false);
  });

  it('is not read across operations, from responses in flight together, nor from 429s', () => {
    expect(resetMovedWithoutRefill([at(1, 0, 40, 1), at(2, 1_100, 39, 2, { target: '/pets/1' })])).toBe(false);
    expect(resetMovedWithoutRefill([at(1, 0, 40, 1), at(2, 1_100, 39, 2, { sentAt: NOW_MS - 20, elapsedMs: 1_120 })])).toBe(false);
    expect(resetMovedWithoutRefill([at(1, 0, 40, 1), at(2, 1_100, 0, 2, { status: 429 })])).toBe(false);
  });
});
