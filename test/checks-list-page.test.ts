import { describe, expect, it } from 'vitest';
import { checkAllHaveStatus, checkIsPetsArray, checkPageLength, checkRejectedOrBounded } from '../src/checks/list-page.js';
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
