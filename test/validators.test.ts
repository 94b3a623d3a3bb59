import { describe, expect, it } from 'vitest';
import { parseJson, type JsonValue } from '../src/interface/json.js';
import { SCHEMA_NAMES } from '../src/interface/openapi.js';
import { compileValidator, componentValidatorSource, extraProperties, validate, validateWith, viewOf } from '../src/interface/validators.js';

function body(text: string): JsonValue {
  const result = parseJson(text);
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

const pet = (id: string, extra = ''): JsonValue => body(`{"id":${id},"name":"Rex","categoryId":1${extra}}`);

describe('validate Pet', () => {
  it('accepts valid pets, with or without status, with extra properties', () => {
    expect(validate('Pet', pet('1'))).toEqual([]);
    expect(validate('Pet', pet('1', ',"status":"sold"'))).toEqual([]);
    expect(validate('Pet', pet('1', ',"colour":"brown"'))).toEqual([]);
    expect(validate('Pet', pet('-9223372036854775808'))).toEqual([]);
  });

  it('judges int64 ids by their exact value', () => {
    expect(validate('Pet', pet('9007199254740993'))).toEqual([]);
    expect(validate('Pet', pet('9223372036854775807'))).toEqual([]);
    expect(validate('Pet', pet('9223372036854775807.0'))).toEqual([]);
    expect(validate('Pet', pet('9223372036854775808'))).toEqual([
      '/id must be an integer in the int64 range (-2^63 to 2^63-1)',
    ]);
    expect(validate('Pet', pet('-9223372036854775809'))).toHaveLength(1);
    expect(validate('Pet', pet('1e400'))).toHaveLength(1);
    expect(validate('Pet', pet('1.5'))).toEqual(['/id must be integer']);
  });

  it('reports a status outside the enumeration', () => {
    expect(validate('Pet', pet('1', ',"status":"adopted"'))).toEqual([
      '/status must be one of "available", "pending", "sold"',
    ]);
    expect(validate('Pet', pet('1', ',"status":null'))).toContain('/status must be string');
  });

  it('reports every missing field and wrong type at once', () => {
    expect(validate('Pet', body('{"name":5}'))).toEqual([
      "(root) must have required property 'categoryId'",
      '/name must be string',
      "(root) must have required property 'id'",
    ]);
    expect(validate('Pet', null)).toEqual(['(root) must be object']);
  });

  it('validates Pets item by item', () => {
    expect(validate('Pets', body('[]'))).toEqual([]);
    expect(validate('Pets', body('[{"id":1,"name":"a","categoryId":2},{"id":"1","name":"b","categoryId":2}]'))).toEqual([
      '/1/id must be integer',
    ]);
    expect(validate('Pets', body('{}'))).toEqual(['(root) must be array']);
  });
});

describe('validate NewPet, PetStatus, Error', () => {
  it('NewPet needs name and categoryId, not id', () => {
    expect(validate('NewPet', body('{"name":"a","categoryId":9223372036854775807}'))).toEqual([]);
    expect(validate('NewPet', body('{"name":"a"}'))).toEqual(["(root) must have required property 'categoryId'"]);
    expect(validate('NewPet', body('{"name":"a","categoryId":9223372036854775808}'))).toHaveLength(1);
  });

  it('PetStatus is the enumeration', () => {
    expect(validate('PetStatus', 'pending')).toEqual([]);
    expect(validate('PetStatus', 'AVAILABLE')).toHaveLength(1);
  });

  it('Error needs code, message and an integer status', () => {
    expect(validate('Error', body('{"code":"unauthorized","message":"no key","status":401,"extra":true}'))).toEqual([]);
    expect(validate('Error', body('{"code":1,"status":"401"}'))).toEqual([
      "(root) must have required property 'message'",
      '/code must be string',
      '/status must be integer',
    ]);
  });
});

describe('viewOf', () => {
  it('maps bigints to doubles on the same side of the int64 bounds', () => {
    expect(viewOf(2n ** 63n - 1n)).toBeLessThan(2 ** 63);
    expect(viewOf(-(2n ** 63n))).toBe(-(2 ** 63));
    expect(viewOf(-(2n ** 63n) - 1n)).toBeLessThan(-(2 ** 63));
    expect(viewOf(10n ** 400n)).toBeGreaterThanOrEqual(2 ** 64);
    expect(viewOf({ a: [2n ** 53n + 1n] })).toEqual({ a: [2 ** 53] });
  });

  it('keeps an own __proto__ property as data', () => {
    const view = viewOf(body('{"__proto__":{"x":1}}'));
    expect(Object.keys(view as object)).toEqual(['__proto__']);
  });
});

describe('extraProperties', () => {
  it('lists undeclared properties, following allOf and items', () => {
    expect(extraProperties('Pet', pet('1', ',"colour":"brown","status":"sold"'))).toEqual(['colour']);
    expect(extraProperties('NewPet', pet('1'))).toEqual(['id']);
    expect(extraProperties('Pets', body('[{"id":1,"a":1},{"b":2,"a":3},5]'))).toEqual(['a', 'b']);
    expect(extraProperties('Error', body('{"code":"x","message":"y","status":1,"details":[]}'))).toEqual(['details']);
    expect(extraProperties('Pet', 'text')).toEqual([]);
  });
});

describe('compileValidator', () => {
  it('uses the same strict instance', () => {
    expect(() => compileValidator({ type: 'object', frobnicate: true })).toThrow(/unknown keyword/);
    expect(compileValidator({ type: 'integer', format: 'int32' })(2 ** 31)).toHaveLength(1);
  });
});

describe('generated validators (dist/schemas/validators.mjs)', () => {
  it('are what validate() uses after a build', () => {
    expect(componentValidatorSource, 'dist/schemas/validators.mjs missing or older than openapi.yaml: npm run build').toBe('generated');
  });

  it('give the same messages as the validators Ajv compiles', () => {
    const ids = [
      '0', '-1', '9007199254740993', '-9007199254740993', '9223372036854775807', '9223372036854775807.0',
      '9223372036854775808', '-9223372036854775808', '-9223372036854775809', '18446744073709551616',
      '1e400', '-1e400', '1.5', '"1"', 'null', 'true', '[]', '{}',
    ];
    const values: JsonValue[] = [
      ...ids.map((id) => pet(id)),
      ...ids.map((id) => body(`{"name":"a","categoryId":${id},"status":"sold"}`)),
      ...ids.map((id) => body(`{"code":"x","message":"y","status":${id}}`)),
      body(`[${ids.map((id) => `{"id":${id},"name":"a","categoryId":${id}}`).join(',')}]`),
      pet('1', ',"status":"adopted"'),
      pet('1', ',"status":null'),
      body('{"name":5}'),
      body('{"code":1,"status":"401"}'),
      body('[{"id":1},5,"x",null]'),
      'available',
      'AVAILABLE',
      9223372036854775808n,
      -9223372036854775809n,
      null,
      [],
      {},
    ];
    for (const name of SCHEMA_NAMES) {
      for (const value of values) {
        expect(validateWith('generated', name, value), `${name} ${String(value)}`).toEqual(validateWith('compiled', name, value));
      }
    }
  });
});
