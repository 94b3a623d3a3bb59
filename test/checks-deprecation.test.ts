import { describe, expect, it } from 'vitest';
import { checkDeprecation } from '../src/checks/deprecation.js';
import { makeExchange, pet } from './support/exchange-factory.js';
import { observations, violations } from './support/findings.js';

const SUNSET = 'Thu, 05 Dec 2030 00:00:00 GMT';
const getPet = (headers: Record<string, string | undefined>, status = 200) =>
  makeExchange({ target: '/pets/1', status, json: pet(1), headers });

describe('GET-004', () => {
  it('passes well-formed headers and records them', () => {
    const f = checkDeprecation(getPet({ deprecation: '@1688169599', sunset: SUNSET }));
    expect(violations(f)).toEqual([]);
    expect(observations(f, 'GET-004')).toHaveLength(1);
  });

  it('returns nothing when both headers are absent', () => {
    expect(checkDeprecation(getPet({}))).toEqual([]);
  });

  it('fails Deprecation or Sunset on another operation, which the spec does not deprecate', () => {
    const listing = (headers: Record<string, string | undefined>) => makeExchange({ target: '/pets?limit=100', status: 200, json: [pet(1)], headers });
    expect(violations(checkDeprecation(listing({ deprecation: '@1735689600', sunset: SUNSET }))).map((f) => f.message)).toEqual([
      expect.stringContaining('Received Deprecation and Sunset on listPets / Expected them on getPet alone'),
    ]);
    expect(violations(checkDeprecation(listing({ sunset: SUNSET })))).toHaveLength(1);
    expect(checkDeprecation(listing({}))).toEqual([]);
  });

  it('accepts a negative date, surrounding spaces and structured-field parameters', () => {
    expect(violations(checkDeprecation(getPet({ deprecation: '@-1' })))).toEqual([]);
    expect(violations(checkDeprecation(getPet({ deprecation: ' @1688169599 ' })))).toEqual([]);
    expect(violations(checkDeprecation(getPet({ deprecation: '@1688169599;note="x"' })))).toEqual([]);
  });

  it('fails a bare true, saying RFC 9745 needs a date', () => {
    const f = violations(checkDeprecation(getPet({ deprecation: 'true' })), 'GET-004');
    expect(f).toHaveLength(1);
    expect(f[0]?.message).toContain('RFC 9745 needs');
  });

  it.each(['1688169599', '@1.5', '@', 'Sat, 01 Jul 2023 00:00:00 GMT', '@1688169599, @1'])('fails Deprecation %j', (value) => {
    expect(violations(checkDeprecation(getPet({ deprecation: value })), 'GET-004')).toHaveLength(1);
  });

  it('fails a Sunset that is not an HTTP-date', () => {
    expect(violations(checkDeprecation(getPet({ sunset: '2030-12-05' })), 'GET-004')).toHaveLength(1);
    expect(violations(checkDeprecation(getPet({ sunset: 'Wed, 05 Dec 2030 00:00:00 GMT' })), 'GET-004')).toHaveLength(1);
  });

  it('fails a Sunset earlier than Deprecation', () => {
    const deprecation = `@${Date.UTC(2031, 0, 1) / 1000}`;
    const f = violations(checkDeprecation(getPet({ deprecation, sunset: SUNSET })), 'GET-004');
    expect(f).toHaveLength(1);
    expect(f[0]?.message).toContain('before Deprecation');
  });

  it('judges the form of every getPet response\'s headers; on another operation, only that they are there', () => {
    expect(violations(checkDeprecation(getPet({ deprecation: 'true' }, 404)), 'GET-004')).toHaveLength(1);
    expect(violations(checkDeprecation(makeExchange({ headers: { deprecation: 'true' } }))).map((f) => f.message)).toEqual([expect.stringContaining('on listPets')]);
    expect(checkDeprecation(makeExchange({ headers: { 'x-other': 'true' } }))).toEqual([]);
    expect(checkDeprecation(makeExchange({ target: '/pets/1', noResponse: true }))).toEqual([]);
  });
});

describe('GET-005', () => {
  it('passes any time on 5 December 2030 (UTC)', () => {
    expect(violations(checkDeprecation(getPet({ sunset: 'Thu, 05 Dec 2030 23:59:59 GMT' })))).toEqual([]);
  });

  it('fails another day', () => {
    const f = violations(checkDeprecation(getPet({ sunset: 'Fri, 06 Dec 2030 00:00:00 GMT' })), 'GET-005');
    expect(f).toHaveLength(1);
    expect(f[0]?.message).toContain('2030-12-06');
  });

  it('passes an absent Sunset', () => {
    expect(violations(checkDeprecation(getPet({ deprecation: '@1688169599' })), 'GET-005')).toEqual([]);
  });
});
