import { describe, expect, it } from 'vitest';
import { checkRetryAfter } from '../src/checks/retry-after.js';
import { NOW_MS, makeExchange } from './support/exchange-factory.js';
import { observations, violations } from './support/findings.js';

const throttled = (retryAfter: string | undefined) => makeExchange({ status: 429, body: '', headers: { 'retry-after': retryAfter } });

describe('RATE-005 (Retry-After format)', () => {
  it('accepts delta-seconds and records the form', () => {
    const f = checkRetryAfter(throttled('30'));
    expect(violations(f)).toEqual([]);
    expect(observations(f, 'RATE-005').map((o) => o.message)).toEqual(['Retry-After in delta-seconds: 30']);
  });

  it('accepts an HTTP-date and records it', () => {
    const f = checkRetryAfter(throttled(new Date(NOW_MS + 45_000).toUTCString()));
    expect(violations(f)).toEqual([]);
    expect(observations(f, 'RATE-005')[0]?.message).toMatch(/^Retry-After as an HTTP-date: .* 45 s ahead$/);
  });

  it('fails a 429 without Retry-After', () => {
    expect(violations(checkRetryAfter(throttled(undefined)), 'RATE-005')).toHaveLength(1);
  });

  it.each(['soon', '1.5', '-3', '30s', '2025-06-02T12:00:45Z'])('fails Retry-After %j', (value) => {
    expect(violations(checkRetryAfter(throttled(value)), 'RATE-005')).toHaveLength(1);
  });

  it('ignores other statuses', () => {
    expect(checkRetryAfter(makeExchange({ status: 503, headers: { 'retry-after': 'soon' } }))).toEqual([]);
    expect(checkRetryAfter(makeExchange())).toEqual([]);
  });
});
