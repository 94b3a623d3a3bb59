/**
 * RATE-006's choice of request (src/session/recovery.ts): the same verdict whichever path gave the
 * run its 429 (limit probe, mid-run top-up, burst at the end), since which one a run takes follows
 * the machine's load.
 */
import { describe, expect, it } from 'vitest';
import { recoveryStep, STALE_RESET_SHOWS_AFTER_MS, staleResetProbeAt } from '../src/session/recovery.js';
import type { Exchange } from '../src/http/exchange.js';
import { NOW_MS, makeExchange } from './support/exchange-factory.js';

const refused = (headers: Record<string, string | undefined>): Exchange => makeExchange({ seq: 10, status: 429, sentAt: NOW_MS, elapsedMs: 2, headers: { 'x-ratelimit-remaining': '0', ...headers } });
const after = (seq: number, retryOf?: number): Exchange => ({ ...makeExchange({ seq, sentAt: NOW_MS + 3_000 }), ...(retryOf === undefined ? {} : { retryOf }) });
const base = { nowMs: NOW_MS + 10, maxWaitMs: 65_000 };

describe('RATE-006: the request judged as sent after Retry-After', () => {
  it('is none after a 429 without a usable Retry-After, whichever request followed it', () => {
    const throttledBy = refused({ 'retry-after': undefined });
    const reason = 'the 429 of exchange 10 gave no usable Retry-After (RATE-005), so there is no moment to retry at';
    // The burst at the end: nothing followed.
    expect(recoveryStep({ ...base, throttledBy, exchanges: [throttledBy] })).toEqual({ kind: 'cannot', reason });
    // The limit probe: the client's retry waited its own backoff, and was served.
    const retry = after(11, 10);
    expect(recoveryStep({ ...base, throttledBy, exchanges: [throttledBy, retry] })).toEqual({ kind: 'cannot', reason });
    // The mid-run top-up: its next request waited the same backoff.
    const recovery = after(11);
    expect(recoveryStep({ ...base, throttledBy, exchanges: [throttledBy, recovery], topUp: { result: { throttled: throttledBy }, recovery } })).toEqual({ kind: 'cannot', reason });
    // Nor an unreadable one.
    expect(recoveryStep({ ...base, throttledBy: refused({ 'retry-after': 'soon' }), exchanges: [] }).kind).toBe('cannot');
  });

  it('is the client\'s retry of the limit probe, which waited exactly Retry-After', () => {
    const throttledBy = refused({ 'retry-after': '2' });
    const retry = after(11, 10);
    expect(recoveryStep({ ...base, throttledBy, exchanges: [throttledBy, after(12), retry] })).toEqual({ kind: 'judge', ex: retry });
  });

  it('is the top-up\'s next request when its 429 is the one judged, and not another 429\'s', () => {
    const throttledBy = refused({ 'retry-after': '2' });
    const recovery = after(11);
    expect(recoveryStep({ ...base, throttledBy, exchanges: [throttledBy, recovery], topUp: { result: { throttled: throttledBy }, recovery } })).toEqual({ kind: 'judge', ex: recovery });
    const other = refused({ 'retry-after': '2' });
    expect(recoveryStep({ ...base, throttledBy, exchanges: [throttledBy, recovery], topUp: { result: { throttled: other }, recovery } })).toEqual({ kind: 'send', retryAt: NOW_MS + 2 + 2_000 });
  });

  it('is sent at Retry-After when nothing waited for it yet, unless that is beyond --max-wait', () => {
    const throttledBy = refused({ 'retry-after': '120' });
    expect(recoveryStep({ ...base, throttledBy, exchanges: [throttledBy] })).toEqual({ kind: 'cannot', reason: 'Retry-After "120" asks for a longer wait than the 65 s allowed (--max-wait)' });
    expect(recoveryStep({ ...base, maxWaitMs: 180_000, throttledBy, exchanges: [throttledBy] })).toEqual({ kind: 'send', retryAt: NOW_MS + 2 + 120_000 });
  });
});

describe('RATE-003: the request past the recovery, where its Reset may be stale (staleResetProbeAt)', () => {
  // The server's clock as the run's Dates pin it: the local clock, give or take a round trip.
  const clock = { low: 0, high: 1_000, narrowHigh: 20 };
  /** A keyed response handled `atMs` from NOW_MS (local = server clock), with its Date's whole second. */
  const keyed = (seq: number, atMs: number, remaining: number, resetS: number, status = 200, retryAfter?: string): Exchange =>
    makeExchange({
      seq,
      status,
      sentAt: NOW_MS + atMs - 10,
      elapsedMs: 10,
      headers: {
        date: new Date(Math.floor((NOW_MS + atMs) / 1000) * 1000).toUTCString(),
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': String(NOW_MS / 1000 + resetS),
        ...(retryAfter === undefined ? {} : { 'retry-after': retryAfter }),
      },
    });
  const plan = (exchanges: Exchange[], more: Partial<{ nowMs: number; maxWaitMs: number }> = {}): number | undefined => {
    const throttledBy = exchanges.find((e) => e.response?.status === 429);
    const recovery = exchanges.at(-1);
    if (throttledBy === undefined || recovery === undefined) throw new Error('a 429 and a recovery');
    return staleResetProbeAt({ throttledBy, recovery, exchanges, clock, nowMs: NOW_MS + 1_000, maxWaitMs: 65_000, ...more });
  };

  it('is planned past a Reset that did not move on with the refill, far enough for it to lie beyond RATE-003\'s tolerance', () => {
    // Computed once: the recovery, served with the window full again, repeats the 429's Reset.
    const run = [keyed(1, -1_900, 59, 0), keyed(2, -500, 0, 0, 429, '1'), keyed(3, 500, 59, 0)];
    expect(plan(run)).toBe(NOW_MS + STALE_RESET_SHOWS_AFTER_MS);
  });

  it('is planned past a Reset a second on where the run measured longer windows, and not where a fixed window names its end', () => {
    const before = [keyed(1, -2_990, 59, 0), keyed(2, -500, 0, 0, 429, '1')];
    // Crept on a second from the 429's while the run saw a Reset about 3 s ahead.
    expect(plan([...before, keyed(3, 10, 59, 1)])).toBe(NOW_MS + 1_000 + STALE_RESET_SHOWS_AFTER_MS);
    // The next 3 s window's end: nothing to wait for.
    expect(plan([...before, keyed(3, 10, 59, 3)])).toBeUndefined();
  });

  it('is not planned on windows of a second, whose Reset after the refill is the next window\'s', () => {
    const run = [keyed(1, -900, 59, 0), keyed(2, -300, 0, 0, 429, '1'), keyed(3, 700, 59, 1)];
    expect(plan(run)).toBeUndefined();
  });

  it('is not planned after a refused recovery, beyond --max-wait, or where a keyed request already went that late', () => {
    const run = [keyed(1, -1_900, 59, 0), keyed(2, -500, 0, 0, 429, '1')];
    expect(plan([...run, keyed(3, 500, 0, 0, 429, '1')])).toBeUndefined();
    expect(plan([...run, keyed(3, 500, 59, 0)], { maxWaitMs: 1_000 })).toBeUndefined();
    const late = keyed(4, STALE_RESET_SHOWS_AFTER_MS + 100, 58, 8);
    const recovery = keyed(3, 500, 59, 0);
    const throttledBy = run[1];
    if (throttledBy === undefined) throw new Error('the 429');
    expect(staleResetProbeAt({ throttledBy, recovery, exchanges: [...run, recovery, late], clock, nowMs: NOW_MS + 1_000, maxWaitMs: 65_000 })).toBeUndefined();
  });
});
