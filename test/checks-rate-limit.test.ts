import { describe, expect, it } from 'vitest';
import { checkRateLimitHeaders } from '../src/checks/rate-limit-headers.js';
import { NOW_MS, NOW_S, makeExchange } from './support/exchange-factory.js';
import { violations } from './support/findings.js';

const withHeaders = (headers: Record<string, string | undefined>, extra: Parameters<typeof makeExchange>[0] = {}) =>
  makeExchange({ ...extra, headers });

describe('RATE-001', () => {
  it('passes the three headers as integers, on errors too', () => {
    expect(checkRateLimitHeaders(makeExchange())).toEqual([]);
    expect(checkRateLimitHeaders(makeExchange({ status: 429, body: '' }))).toEqual([]);
  });

  it.each(['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])('fails a missing %s', (name) => {
    const f = violations(checkRateLimitHeaders(withHeaders({ [name]: undefined })), 'RATE-001');
    expect(f).toHaveLength(1);
    expect(f[0]?.message).toMatch(/^Received no X-RateLimit-/);
  });

  it.each(['1.5', '-1', '60s', '', '+5', '60, 60', '0x10'])('fails the value %j', (value) => {
    expect(violations(checkRateLimitHeaders(withHeaders({ 'x-ratelimit-limit': value })), 'RATE-001')).toHaveLength(1);
  });

  it('yields nothing without a response', () => {
    expect(checkRateLimitHeaders(makeExchange({ noResponse: true }))).toEqual([]);
  });
});

describe('RATE-002 (Remaining ≤ Limit)', () => {
  it('passes Remaining equal to Limit and fails Remaining above it', () => {
    expect(checkRateLimitHeaders(withHeaders({ 'x-ratelimit-remaining': '60' }))).toEqual([]);
    expect(violations(checkRateLimitHeaders(withHeaders({ 'x-ratelimit-remaining': '61' })), 'RATE-002')).toHaveLength(1);
  });
});

describe('RATE-003', () => {
  it.each([NOW_S - 1, NOW_S, NOW_S + 60, NOW_S + 86_400])('accepts Reset %i against the Date header', (reset) => {
    expect(violations(checkRateLimitHeaders(withHeaders({ 'x-ratelimit-reset': String(reset) })))).toEqual([]);
  });

  it.each([NOW_S - 2, NOW_S - 5])('fails Reset %i, already in the past beyond the Date header\'s second', (reset) => {
    expect(violations(checkRateLimitHeaders(withHeaders({ 'x-ratelimit-reset': String(reset) })), 'RATE-003')).toHaveLength(1);
  });

  it('diagnoses a relative number of seconds', () => {
    const f = violations(checkRateLimitHeaders(withHeaders({ 'x-ratelimit-reset': '42' })), 'RATE-003');
    expect(f).toHaveLength(1);
    expect(f[0]?.message).toContain('looks like a relative number of seconds');
  });

  it('diagnoses milliseconds', () => {
    const f = violations(checkRateLimitHeaders(withHeaders({ 'x-ratelimit-reset': String(NOW_MS + 60_000) })), 'RATE-003');
    expect(f[0]?.message).toContain('looks like milliseconds');
  });

  it('fails a Reset in the past or more than a day ahead', () => {
    expect(violations(checkRateLimitHeaders(withHeaders({ 'x-ratelimit-reset': String(NOW_S - 60) })), 'RATE-003')).toHaveLength(1);
    expect(violations(checkRateLimitHeaders(withHeaders({ 'x-ratelimit-reset': String(NOW_S + 86_400 + 120) })), 'RATE-003')).toHaveLength(1);
  });

  it('uses the Date header, not the local clock, when there is one', () => {
    // Local clock an hour ahead of the server: the server's own time is what Reset is relative to.
    const ex = makeExchange({ sentAt: NOW_MS + 3_600_000, headers: { 'x-ratelimit-reset': String(NOW_S + 30) } });
    expect(violations(checkRateLimitHeaders(ex))).toEqual([]);
  });

  it('without Date, allows the local clock 300 s of skew', () => {
    const skewed = { date: undefined, 'x-ratelimit-reset': String(NOW_S - 200) };
    expect(violations(checkRateLimitHeaders(withHeaders(skewed)))).toEqual([]);
    const far = { date: undefined, 'x-ratelimit-reset': String(NOW_S - 400) };
    expect(violations(checkRateLimitHeaders(withHeaders(far)), 'RATE-003')).toHaveLength(1);
  });
});

describe('RATE-004', () => {
  it('compares keyed responses with the plan', () => {
    expect(checkRateLimitHeaders(makeExchange(), { plan: 'free' })).toEqual([]);
    const f = violations(checkRateLimitHeaders(makeExchange(), { plan: 'pro' }), 'RATE-004');
    expect(f.map((v) => v.message)).toEqual(['Received X-RateLimit-Limit 60 / Expected 300, the per-minute limit of the pro plan']);
    expect(violations(checkRateLimitHeaders(withHeaders({ 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '999' }), { plan: 'business' }))).toEqual([]);
  });

  it('compares with a custom plan\'s per-minute limit (an Enterprise key)', () => {
    const custom = withHeaders({ 'x-ratelimit-limit': '500', 'x-ratelimit-remaining': '499' });
    expect(violations(checkRateLimitHeaders(custom, { plan: 'custom:500/50000' }))).toEqual([]);
    expect(violations(checkRateLimitHeaders(custom, { plan: 'custom:600/60000' }), 'RATE-004').map((v) => v.message)).toEqual(['Received X-RateLimit-Limit 500 / Expected 600, the per-minute limit of the custom:600/60000 plan']);
  });

  it('says nothing without a plan or for requests not made with the key', () => {
    expect(checkRateLimitHeaders(withHeaders({ 'x-ratelimit-limit': '7', 'x-ratelimit-remaining': '6' }))).toEqual([]);
    expect(checkRateLimitHeaders(makeExchange({ auth: 'wrong-key' }), { plan: 'pro' })).toEqual([]);
    expect(checkRateLimitHeaders(makeExchange({ auth: 'none' }), { plan: 'pro' })).toEqual([]);
  });
});

