import { describe, expect, test } from 'vitest';
import { isUnixSecondsReset, resetKind } from '../src/rate-limit/reset-kind.js';

describe('resetKind: one reading of what an X-RateLimit-Reset value is', () => {
  test('a count of seconds, Unix seconds and Unix milliseconds are told apart at 1e9 and 1e11', () => {
    expect(resetKind(0)).toBe('relative-seconds');
    expect(resetKind(60)).toBe('relative-seconds');
    expect(resetKind(999_999_999)).toBe('relative-seconds');
    expect(resetKind(1_000_000_000)).toBe('unix-seconds');
    expect(resetKind(1_796_000_000n)).toBe('unix-seconds');
    expect(resetKind(99_999_999_999)).toBe('unix-seconds');
    expect(resetKind(100_000_000_000)).toBe('unix-milliseconds');
    expect(resetKind(1_796_000_000_000n)).toBe('unix-milliseconds');
  });

  test('only Unix seconds are the absolute Reset the spec names, as number or bigint', () => {
    expect(isUnixSecondsReset(1_796_000_000)).toBe(true);
    expect(isUnixSecondsReset(1_796_000_000n)).toBe(true);
    expect(isUnixSecondsReset(1_796_000_000_000)).toBe(false);
    expect(isUnixSecondsReset(30n)).toBe(false);
    expect(isUnixSecondsReset(undefined)).toBe(false);
  });
});
