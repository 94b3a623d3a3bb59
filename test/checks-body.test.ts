import { describe, expect, it } from 'vitest';
import { jsonBody, operationOf } from '../src/checks/body.js';
import { makeExchange } from './support/exchange-factory.js';

describe('jsonBody', () => {
  it('parses once and returns the same result object', () => {
    const ex = makeExchange({ body: '[1]' });
    const first = jsonBody(ex);
    expect(first).toEqual({ ok: true, value: [1] });
    expect(jsonBody(ex)).toBe(first);
  });

  it('keeps integers beyond 2^53 exact', () => {
    expect(jsonBody(makeExchange({ body: '{"id":9007199254740993}' }))).toEqual({ ok: true, value: { id: 9007199254740993n } });
  });

  it('is undefined for an empty or whitespace body and for no response', () => {
    expect(jsonBody(makeExchange({ body: '' }))).toBeUndefined();
    expect(jsonBody(makeExchange({ body: ' \r\n' }))).toBeUndefined();
    expect(jsonBody(makeExchange({ noResponse: true }))).toBeUndefined();
  });

  it('reports a parse error, and marks it when the body was truncated', () => {
    expect(jsonBody(makeExchange({ body: '<html>' }))).toMatchObject({ ok: false });
    expect(jsonBody(makeExchange({ body: '<html>' }))).not.toHaveProperty('truncated');
    expect(jsonBody(makeExchange({ body: '[{"id":1},', truncated: true }))).toMatchObject({ ok: false, truncated: true });
  });
});

describe('operationOf', () => {
  it.each([
    ['GET', '/pets', 'listPets'],
    ['GET', '/pets?limit=5&status=sold', 'listPets'],
    ['POST', '/pets', 'createPet'],
    ['GET', '/pets/42', 'getPet'],
    ['GET', '/pets/abc', 'getPet'],
    ['GET', '/pets/9223372036854775807?x=1', 'getPet'],
    ['GET', '/store/orders', 'listOrders'],
    ['GET', '/store/orders?page=2', 'listOrders'],
    ['get', '/pets', 'listPets'],
  ])('%s %s is %s', (method, target, op) => {
    expect(operationOf(makeExchange({ method, target }))).toBe(op);
  });

  it.each([
    ['DELETE', '/pets'],
    ['POST', '/pets/1'],
    ['GET', '/pets/'],
    ['GET', '/pets/1/photos'],
    ['GET', '/petsx'],
    ['POST', '/store/orders'],
    ['GET', '/'],
  ])('%s %s is no spec operation', (method, target) => {
    expect(operationOf(makeExchange({ method, target }))).toBeUndefined();
  });
});
