/** The keyed request that makes a Reset that crept on show whatever the window phase (staleResetProbeAt): a pure function over exchanges. */
import { describe, expect, it } from 'vitest';
import { STALE_RESET_SHOWS_AFTER_MS, STALE_RESET_WINDOW_MS, staleResetProbeAt } from '../src/session/stale-reset-plan.js';
import { NOW_MS, NOW_S, makeExchange, type ExchangeOptions } from './support/exchange-factory.js';

/** Keyed exchange `seq` answered at NOW_MS + atMs, announcing Reset NOW_S + resetIn. */
const at = (seq: number, atMs: number, resetIn: number, opts: ExchangeOptions = {}) =>
  makeExchange({ seq, sentAt: NOW_MS + atMs - 10, elapsedMs: 10, ...opts, headers: { date: new Date(NOW_MS + atMs).toUTCString(), 'x-ratelimit-reset': String(NOW_S + resetIn), ...opts.headers } });

const THREE_S = 3_000;

describe('RATE-003 on every path: a keyed request far enough past the refill', () => {
  const recovery = at(5, 0, 3);
  it('is planned STALE_RESET_SHOWS_AFTER_MS after the served recovery when the run sent none that late, on windows of 3 s', () => {
    expect(STALE_RESET_SHOWS_AFTER_MS).toBe(5_000);
    expect(staleResetProbeAt(recovery, [recovery, at(6, 1_000, 3)], THREE_S, NOW_MS, 65_000)).toBe(NOW_MS + 5_000);
  });

  it('is not needed once a keyed request was sent that late, nor after a refused or unanswered recovery', () => {
    expect(staleResetProbeAt(recovery, [recovery, at(6, 6_000, 9)], THREE_S, NOW_MS, 65_000)).toBeUndefined();
    expect(staleResetProbeAt(at(5, 0, 3, { status: 429 }), [], THREE_S, NOW_MS, 65_000)).toBeUndefined();
    expect(staleResetProbeAt(makeExchange({ seq: 5, noResponse: true }), [], THREE_S, NOW_MS, 65_000)).toBeUndefined();
  });

  it('is not sent on windows of 2 s or less (the embedded run\'s), nor beyond --max-wait', () => {
    expect(staleResetProbeAt(recovery, [recovery], STALE_RESET_WINDOW_MS, NOW_MS, 65_000)).toBeUndefined();
    expect(staleResetProbeAt(recovery, [recovery], 1_000, NOW_MS, 65_000)).toBeUndefined();
    expect(staleResetProbeAt(recovery, [recovery], THREE_S, NOW_MS, 4_000)).toBeUndefined();
  });
});
