import { describe, expect, it } from 'vitest';
import { parseHttpDate, parseHttpDateAnyForm, parseRetryAfter } from '../src/http/retry-after.js';

const NOV_6_1994 = Date.UTC(1994, 10, 6, 8, 49, 37);
const NOW = Date.UTC(2025, 0, 1, 12, 0, 0);

describe('parseHttpDate (IMF-fixdate only)', () => {
  it('parses the RFC 9110 example', () => {
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(NOV_6_1994);
  });

  it('round-trips Date#toUTCString', () => {
    const ms = Date.UTC(2030, 11, 5, 0, 0, 0);
    expect(parseHttpDate(new Date(ms).toUTCString())).toBe(ms);
  });

  it.each([
    ['rfc850 form', 'Sunday, 06-Nov-94 08:49:37 GMT'],
    ['asctime form', 'Sun Nov  6 08:49:37 1994'],
    ['lower-case day name (HTTP-date is case-sensitive)', 'sun, 06 Nov 1994 08:49:37 GMT'],
    ['single-digit day', 'Sun, 6 Nov 1994 08:49:37 GMT'],
    ['UTC instead of GMT', 'Sun, 06 Nov 1994 08:49:37 UTC'],
    ['numeric offset', 'Sun, 06 Nov 1994 08:49:37 +0000'],
    ['missing seconds', 'Sun, 06 Nov 1994 08:49 GMT'],
    ['wrong weekday', 'Mon, 06 Nov 1994 08:49:37 GMT'],
    ['30 February', 'Sun, 30 Feb 2025 08:49:37 GMT'],
    ['hour 24', 'Sun, 06 Nov 1994 24:00:00 GMT'],
    ['ISO 8601', '1994-11-06T08:49:37Z'],
    ['double space', 'Sun,  06 Nov 1994 08:49:37 GMT'],
    ['garbage', 'soon'],
    ['empty', ''],
  ])('rejects %s', (_label, value) => {
    expect(parseHttpDate(value)).toBeUndefined();
  });

  it('rejects undefined', () => {
    expect(parseHttpDate(undefined)).toBeUndefined();
  });
});

describe('parseHttpDateAnyForm', () => {
  it('accepts the obsolete forms and names them', () => {
    expect(parseHttpDateAnyForm('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toEqual({ ms: NOV_6_1994, form: 'rfc850' });
    expect(parseHttpDateAnyForm('Sun Nov  6 08:49:37 1994', NOW)).toEqual({ ms: NOV_6_1994, form: 'asctime' });
    expect(parseHttpDateAnyForm('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toEqual({ ms: NOV_6_1994, form: 'imf-fixdate' });
  });

  it('puts a two-digit rfc850 year within 50 years of now', () => {
    const parsed = parseHttpDateAnyForm('Thursday, 05-Dec-30 00:00:00 GMT', NOW);
    expect(parsed?.ms).toBe(Date.UTC(2030, 11, 5));
  });

  it('gives the same answer for a value it parsed before, except where the century depends on now', () => {
    // Parsed results are kept (every check reads the same Date headers again): a second call, at
    // another time, must not tell anything else; an rfc850 date alone is read against its own now.
    for (const value of ['Sun, 06 Nov 1994 08:49:37 GMT', 'Sun Nov  6 08:49:37 1994', 'Mon, 06 Nov 1994 08:49:37 GMT', 'soon']) {
      const first = parseHttpDateAnyForm(value, NOW);
      expect(parseHttpDateAnyForm(value, Date.UTC(2090, 0, 1))).toEqual(first);
    }
    const rfc850 = 'Thursday, 05-Dec-30 00:00:00 GMT';
    expect(parseHttpDateAnyForm(rfc850, NOW)?.ms).toBe(Date.UTC(2030, 11, 5));
    // Read in 1990 it is 5 December 1930, a Friday: the weekday contradicts it.
    expect(parseHttpDateAnyForm(rfc850, Date.UTC(1990, 0, 1))).toBeUndefined();
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('120', NOW)).toEqual({ delayMs: 120_000, form: 'delta-seconds' });
    expect(parseRetryAfter('0', NOW)).toEqual({ delayMs: 0, form: 'delta-seconds' });
    expect(parseRetryAfter(' 7 ', NOW)).toEqual({ delayMs: 7_000, form: 'delta-seconds' });
    expect(parseRetryAfter('007', NOW)).toEqual({ delayMs: 7_000, form: 'delta-seconds' });
  });

  it('reads an HTTP-date relative to now', () => {
    const value = new Date(NOW + 30_000).toUTCString();
    expect(parseRetryAfter(value, NOW)).toEqual({ delayMs: 30_000, form: 'http-date', dateForm: 'imf-fixdate' });
  });

  it('turns a date in the past into no delay', () => {
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toEqual({ delayMs: 0, form: 'http-date', dateForm: 'imf-fixdate' });
  });

  it('accepts the obsolete date forms for robustness', () => {
    expect(parseRetryAfter('Sun Nov  6 08:49:37 1994', NOV_6_1994 - 1_000)).toEqual({
      delayMs: 1_000,
      form: 'http-date',
      dateForm: 'asctime',
    });
  });

  it.each(['1.5', '-1', '+5', '10ms', '10s', '1e3', '0x10', '', ' ', 'soon', '5, 5', 'NaN', 'Infinity', '١٢'])(
    'rejects %j',
    (value) => {
      expect(parseRetryAfter(value, NOW)).toBeUndefined();
    },
  );

  it('rejects undefined', () => {
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
  });
});
