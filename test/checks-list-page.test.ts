import { describe, expect, it } from 'vitest';
import { checkAllHaveStatus, checkIsPetsArray, checkPageLength, checkRejectedOrBounded, checkShowsCreated } from '../src/checks/list-page.js';
import type { JsonObject } from '../src/interface/json.js';
import { fixedInvalidLimits, NUMBER_LIKE_LIMITS } from '../src/arbitraries/limits.js';
import { errorBody, makeExchange, pet } from './support/exchange-factory.js';
import { observations, violations } from './support/findings.js';

const page = (n: number, extra: Record<string, unknown> = {}) => Array.from({ length: n }, (_, i) => pet(i + 1, extra));

describe('checkIsPetsArray', () => {
  it('returns nothing for a 200 JSON array', () => {
    expect(checkIsPetsArray(makeExchange({ json: page(2) }), 'LIST-001')).toEqual([]);
  });

  it('fails other statuses, a server error saying so', () => {
    expect(violations(checkIsPetsArray(makeExchange({ status: 500, body: '' }), 'LIST-001'))[0]?.message).toContain('server error on client input');
    expect(violations(checkIsPetsArray(makeExchange({ status: 401, json: errorBody(401) }), 'LIST-001'))).toHaveLength(1);
    expect(violations(checkIsPetsArray(makeExchange({ noResponse: true }), 'LIST-001'))).toHaveLength(1);
  });

  it('fails a 200 body that is empty, not JSON or not an array', () => {
    for (const body of ['', 'nope', '{"items":[]}', 'null']) {
      expect(violations(checkIsPetsArray(makeExchange({ body }), 'LIST-001'))).toHaveLength(1);
    }
  });
});

describe('checkPageLength', () => {
  it('passes a page within max and of the expected length', () => {
    expect(checkPageLength(makeExchange({ json: page(20) }), { requirement: 'LIST-002', max: 20, expectedExactly: 20 })).toEqual([]);
  });

  it('fails a page beyond max, or shorter than expected', () => {
    expect(violations(checkPageLength(makeExchange({ json: page(21) }), { requirement: 'LIST-002', max: 20 }))).toHaveLength(1);
    expect(violations(checkPageLength(makeExchange({ json: page(5) }), { requirement: 'LIST-003', max: 10, expectedExactly: 7 }))).toHaveLength(1);
  });

  it('says nothing about a response that is not a 200 array', () => {
    expect(checkPageLength(makeExchange({ status: 400, json: errorBody(400) }), { requirement: 'LIST-003', max: 1 })).toEqual([]);
  });
});

describe('checkAllHaveStatus', () => {
  it('passes when every Pet has the status', () => {
    expect(checkAllHaveStatus(makeExchange({ json: page(3, { status: 'sold' }) }), 'sold', 'LIST-005')).toEqual([]);
    expect(checkAllHaveStatus(makeExchange({ json: [] }), 'sold', 'LIST-005')).toEqual([]);
  });

  it('fails another status and a missing status', () => {
    const f = violations(checkAllHaveStatus(makeExchange({ json: [pet(1, { status: 'sold' }), pet(2, { status: 'pending' }), { id: 3, name: 'x', categoryId: 1 }] }), 'sold', 'LIST-005'));
    expect(f.map((v) => v.message)).toEqual(['Received [1] has status "pending" / Expected status "sold"', 'Received [2] has no status / Expected status "sold"']);
  });
});

describe('checkRejectedOrBounded', () => {
  const opts = { requirement: 'LIST-004', maxItems: 100 };

  it('accepts a 400 with any body and records it', () => {
    const f = checkRejectedOrBounded(makeExchange({ target: '/pets?limit=0', status: 400, body: 'bad' }), opts);
    expect(violations(f)).toEqual([]);
    expect(observations(f)[0]?.message).toContain('rejected with 400');
  });

  it('accepts a bounded 200 page and records its size', () => {
    const f = checkRejectedOrBounded(makeExchange({ target: '/pets?limit=101', json: page(100) }), opts);
    expect(violations(f)).toEqual([]);
    expect(observations(f)[0]?.message).toContain('accepted: 100 items');
  });

  it('fails a server error, another status, a non-array 200 and a page beyond maxItems', () => {
    expect(violations(checkRejectedOrBounded(makeExchange({ status: 500, body: '' }), opts))[0]?.message).toContain('server error on client input');
    expect(violations(checkRejectedOrBounded(makeExchange({ status: 422, json: errorBody(422) }), opts))).toHaveLength(1);
    expect(violations(checkRejectedOrBounded(makeExchange({ json: {} }), opts))).toHaveLength(1);
    expect(violations(checkRejectedOrBounded(makeExchange({ json: page(101) }), opts))).toHaveLength(1);
  });
});

describe('checkRejectedOrBounded with minItems (LIST-004 on a store known to hold pets)', () => {
  const opts = { requirement: 'LIST-004', maxItems: 100, minItems: 1 };

  it('fails an empty page, which no limit in 1..100 produces from a non-empty store', () => {
    const f = violations(checkRejectedOrBounded(makeExchange({ target: '/pets?limit=0', json: [] }), opts));
    expect(f).toHaveLength(1);
    expect(f[0]?.message).toContain('Received 0 items for /pets?limit=0 from a store known to hold pets');
  });

  it('accepts a clamped page of one, a 400, and an empty page when the store may be empty', () => {
    expect(violations(checkRejectedOrBounded(makeExchange({ json: page(1) }), opts))).toEqual([]);
    expect(violations(checkRejectedOrBounded(makeExchange({ status: 400, json: errorBody(400) }), opts))).toEqual([]);
    expect(violations(checkRejectedOrBounded(makeExchange({ json: [] }), { ...opts, minItems: 0 }))).toEqual([]);
  });
});

describe('LIST-004 and the limits number parsers read', () => {
  const opts = { requirement: 'LIST-004', maxItems: 100, minItems: 1 };
  const STORE = 120;
  const answer = (raw: string, items: number) => makeExchange({ target: `/pets?limit=${encodeURIComponent(raw)}`, json: page(Math.min(items, STORE)) });

  it('accepts a server that reads limits leniently when the reading lands inside 1..100 (0x10, 5.0, 1e2, +5, padded)', () => {
    for (const raw of ['0x10', '5.0', '1e2', '+5', ' 5', '0b11']) {
      const read = Number(raw);
      expect(Number.isInteger(read) && read >= 1 && read <= 100, raw).toBe(true);
      expect(violations(checkRejectedOrBounded(answer(raw, read), opts)), raw).toEqual([]);
    }
  });

  it('sends none of those lenient in-range readings as a fixed invalid limit', () => {
    const inRange = (raw: string): boolean => raw.trim() !== '' && Number.isInteger(Number(raw)) && Number(raw) >= 1 && Number(raw) <= 100;
    expect(fixedInvalidLimits().filter(inRange)).toEqual([]);
    expect(NUMBER_LIKE_LIMITS.map((l) => l.value)).toEqual(['Infinity', '-Infinity', 'NaN', '1e3', '1_000', '9223372036854775808']);
  });

  it('fails every careless reading of the fixed number-like limits on a store past 100: the whole store, or an empty page', () => {
    // Number() (and int() for 1_000) let through unchecked, then slice(0, limit).
    const careless = (raw: string): number => (raw === '1_000' ? 1000 : Number(raw));
    for (const { value, above } of NUMBER_LIKE_LIMITS) {
      const read = careless(value);
      const items = Number.isNaN(read) || read < 0 ? 0 : read;
      expect(items > 100, value).toBe(above);
      expect(violations(checkRejectedOrBounded(answer(value, items), opts)), value).toHaveLength(1);
    }
  });
});

describe('checkShowsCreated', () => {
  const big = 2n ** 53n + 1n;
  const created = [pet(3, { status: 'sold' }), pet(big, { status: 'sold' })] as JsonObject[];
  const opts = { requirement: 'LIST-005', status: 'sold', limit: 100, created };

  it('passes a page with room left that holds every created pet, ids above 2^53 compared exactly', () => {
    const ex = makeExchange({ body: `[${JSON.stringify(pet(1, { status: 'sold' }))},{"id":${big},"name":"n","categoryId":1,"status":"sold"},${JSON.stringify(pet(3, { status: 'sold' }))}]` });
    expect(checkShowsCreated(ex, opts)).toEqual([]);
  });

  it('fails a page with room left that drops a created pet, naming its id', () => {
    const ex = makeExchange({ body: `[${JSON.stringify(pet(3, { status: 'sold' }))},{"id":${big - 1n},"name":"n","categoryId":1,"status":"sold"}]` });
    const f = violations(checkShowsCreated(ex, opts));
    expect(f).toHaveLength(1);
    expect(f[0]?.message).toContain(`without pet ${big}, created by this run`);
  });

  it('says nothing about a full page (no order is defined) or a response that is not a 200 array', () => {
    expect(checkShowsCreated(makeExchange({ json: page(2, { status: 'sold' }) }), { ...opts, limit: 2 })).toEqual([]);
    expect(checkShowsCreated(makeExchange({ status: 400, json: errorBody(400) }), opts)).toEqual([]);
  });
});
