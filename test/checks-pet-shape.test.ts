import { describe, expect, it } from 'vitest';
import { checkPetShape, petsOf } from '../src/checks/pet-shape.js';
import { makeExchange, pet } from './support/exchange-factory.js';
import { observations, violations } from './support/findings.js';

const listing = (json: unknown) => makeExchange({ json });
const created = (json: unknown) => makeExchange({ method: 'POST', status: 201, json });
const fetched = (json: unknown) => makeExchange({ target: '/pets/1', json });

describe('PET-001', () => {
  it('passes a listing of valid Pets and a valid created or fetched Pet', () => {
    expect(checkPetShape(listing([pet(1), pet(2, { status: 'sold' })]))).toEqual([]);
    expect(checkPetShape(created(pet(3)))).toEqual([]);
    expect(checkPetShape(fetched(pet(1)))).toEqual([]);
  });

  it('accepts a Pet without status', () => {
    expect(checkPetShape(fetched({ id: 1, name: 'a', categoryId: 2 }))).toEqual([]);
  });

  it('accepts ids and categoryIds above 2^53 read as bigints, up to the int64 maximum', () => {
    expect(checkPetShape(listing([pet(9007199254740993n), pet(9223372036854775807n, { categoryId: 9007199254740995n })]))).toEqual([]);
  });

  it('fails an id beyond int64', () => {
    expect(violations(checkPetShape(fetched(pet(9223372036854775808n))), 'PET-001')).toHaveLength(1);
  });

  it('records extra fields as one observation, never a violation', () => {
    const f = checkPetShape(listing([pet(1, { color: 'red' }), pet(2, { tags: [] })]));
    expect(violations(f)).toEqual([]);
    const o = observations(f, 'PET-001');
    expect(o).toHaveLength(1);
    expect(o[0]?.message).toContain('color');
    expect(o[0]?.message).toContain('tags');
  });

  it('words listing errors the same for every item and response; which pets (counted from 1) is the detail', () => {
    const f = violations(checkPetShape(listing([pet(1), pet(2), pet(3), { id: 'x', name: 'n', categoryId: 1 }])), 'PET-001');
    expect(f.map((v) => [v.message, v.detail])).toEqual([['a pet in the listing: /id must be integer', 'pet #4 of 4']]);
    expect(f[0]?.message).not.toMatch(/\[\d+\]|#\d/);
  });

  it('one finding per distinct error of a response, naming the items that show it', () => {
    const broken = Array.from({ length: 8 }, (_, i) => pet(i + 1, { status: 'lost' }));
    const f = violations(checkPetShape(listing([pet(0), ...broken])), 'PET-001');
    expect(f).toHaveLength(1);
    expect(f[0]?.message).toMatch(/^a pet in the listing: \/status must be one of/);
    expect(f[0]?.detail).toBe('pets #2, #3, #4, #5, #6 and 3 more of 9');
  });

  it('fails a wrong status value and a non-object item', () => {
    const f = violations(checkPetShape(listing([pet(1, { status: 'lost' }), 7])), 'PET-001');
    expect(f.map((v) => [v.message, v.detail])).toEqual([
      [expect.stringMatching(/^a pet in the listing: \/status must be one of/), 'pet #1 of 2'],
      ['a pet in the listing must be object', 'pet #2 of 2'],
    ]);
    expect(violations(checkPetShape(fetched({ id: 'x', name: 'n', categoryId: 1 })), 'PET-001').map((v) => v.message)).toEqual(['the body: /id must be integer']);
  });

  it('caps the distinct errors of one response at five plus a count of the rest', () => {
    const wrong = { id: 'x', name: 1, categoryId: 'y', status: 'lost', extra: 1 };
    const f = violations(checkPetShape(listing([wrong, 7, { id: -1.5 }, { name: null }, []])), 'PET-001');
    expect(f.length).toBe(6);
    expect(f[5]?.message).toBe('further Pet schema errors in the same response');
    expect(f[5]?.detail).toMatch(/^\d+ more distinct errors$/);
  });

  it('fails an empty or non-JSON created Pet', () => {
    expect(violations(checkPetShape(makeExchange({ method: 'POST', status: 201, body: '' })), 'PET-001')).toHaveLength(1);
    expect(violations(checkPetShape(makeExchange({ method: 'POST', status: 201, body: 'ok' })), 'PET-001')).toHaveLength(1);
  });

  it('returns nothing for a listing that is not an array (LIST-001 judges it) and for other responses', () => {
    expect(checkPetShape(listing({ items: [] }))).toEqual([]);
    expect(checkPetShape(makeExchange({ status: 401, json: { code: 'x', message: 'y', status: 401 } }))).toEqual([]);
    expect(checkPetShape(makeExchange({ target: '/store/orders', json: [{ id: 'x' }] }))).toEqual([]);
    expect(checkPetShape(makeExchange({ noResponse: true }))).toEqual([]);
  });
});

describe('PET-002', () => {
  it('fails duplicate ids within one listing', () => {
    const f = violations(checkPetShape(listing([pet(1), pet(2), pet(1)])), 'PET-002');
    expect(f).toHaveLength(1);
    expect(f[0]?.message).toBe('Received one id on several pets of a listing / Expected unique ids in one listing');
    expect(f[0]?.detail).toBe('id 1 on pets #1, #3 of 3');
  });

  it('compares bigint ids exactly', () => {
    expect(violations(checkPetShape(listing([pet(9007199254740993n), pet(9007199254740992)])), 'PET-002')).toEqual([]);
    expect(violations(checkPetShape(listing([pet(9007199254740993n), pet(9007199254740993n)])), 'PET-002')).toHaveLength(1);
  });
});

describe('petsOf', () => {
  it('returns the object items of a listing and the single Pet of a creation or fetch', () => {
    expect(petsOf(listing([pet(1), 3, pet(2)]))).toHaveLength(2);
    expect(petsOf(created(pet(5)))).toEqual([pet(5)]);
    expect(petsOf(fetched(pet(6)))).toEqual([pet(6)]);
  });

  it('returns nothing for other responses', () => {
    expect(petsOf(listing({}))).toEqual([]);
    expect(petsOf(makeExchange({ status: 500, json: [pet(1)] }))).toEqual([]);
    expect(petsOf(makeExchange({ noResponse: true }))).toEqual([]);
  });
});
