/**
 * RATE-006's choice of request (src/session/recovery.ts): the same verdict whichever path gave the
 * run its 429 (limit probe, mid-run top-up, burst at the end), since which one a run takes follows
 * the machine's load.
 */
import { describe, expect, it } from 'vitest';
import { recoveryStep } from '../src/session/recovery.js';
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
