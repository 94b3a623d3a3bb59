import { describe, expect, it } from 'vitest';
import { isJsonObject, parseJson, stringifyJson, type JsonValue } from '../src/interface/json.js';

function parsed(text: string): JsonValue {
  const result = parseJson(text);
  if (!result.ok) throw new Error(`expected valid JSON: ${result.error}`);
  return result.value;
}

describe('parseJson', () => {
  it('keeps safe integers and fractions as numbers', () => {
    expect(parsed('[0, -0, 1, 9007199254740991, -9007199254740991, 1.5, 1e3, -2.5e-3]')).toEqual([
      0, -0, 1, 9007199254740991, -9007199254740991, 1.5, 1000, -0.0025,
    ]);
  });

  it('turns integers beyond 2^53 into exact bigints', () => {
    expect(parsed('9007199254740992')).toBe(9007199254740992n);
    expect(parsed('9007199254740993')).toBe(9007199254740993n);
    expect(parsed('-9007199254740993')).toBe(-9007199254740993n);
    expect(parsed('9223372036854775807')).toBe(9223372036854775807n);
    expect(parsed('-9223372036854775808')).toBe(-9223372036854775808n);
    expect(parsed('9223372036854775808')).toBe(2n ** 63n);
    expect(parsed('123456789012345678901234567890')).toBe(123456789012345678901234567890n);
  });

  it('reads integral numerals in decimal or exponent notation exactly', () => {
    expect(parsed('9223372036854775807.0')).toBe(9223372036854775807n);
    expect(parsed('9.223372036854775807e18')).toBe(9223372036854775807n);
    expect(parsed('1e30')).toBe(10n ** 30n);
    // Not integral, so it stays a double (rounded like JSON.parse would).
    expect(parsed('9007199254740993.5')).toBe(Number('9007199254740993.5'));
    expect(parsed('1e100000')).toBe(Infinity);
  });

  it('reports invalid JSON without throwing', () => {
    for (const text of ['', '{', '{"a":1,}', 'abc', "{'a':1}", '[1 2]', 'NaN', '01']) {
      const result = parseJson(text);
      expect(result.ok, text).toBe(false);
      if (!result.ok) expect(result.error).not.toBe('');
    }
  });

  it('takes the last of duplicate keys, like JSON.parse', () => {
    expect(parsed('{"a":1,"a":2}')).toEqual({ a: 2 });
  });

  it('parses deep structures', () => {
    const depth = 200;
    const text = '['.repeat(depth) + '{"id":9007199254740993}' + ']'.repeat(depth);
    let value: JsonValue | undefined = parsed(text);
    for (let i = 0; i < depth; i++) value = Array.isArray(value) ? value[0] : undefined;
    expect(value).toEqual({ id: 9007199254740993n });
  });
});

describe('stringifyJson', () => {
  it('round-trips ids beyond 2^53 exactly', () => {
    for (const id of [2n ** 53n + 1n, 9223372036854775807n, -9223372036854775808n, 2n ** 63n]) {
      const text = stringifyJson({ id, name: 'x' });
      expect(text).toBe(`{"id":${id.toString()},"name":"x"}`);
      expect(parsed(text)).toEqual({ id, name: 'x' });
    }
  });

  it('round-trips nested values', () => {
    const value: JsonValue = { a: [1, 2.5, null, true, 'é🐶', { b: -(2n ** 63n) }], c: {} };
    expect(parsed(stringifyJson(value))).toEqual(value);
  });

  it('refuses numbers JSON cannot carry', () => {
    expect(() => stringifyJson([NaN])).toThrow(TypeError);
    expect(() => stringifyJson({ a: Infinity })).toThrow(TypeError);
  });
});

describe('isJsonObject', () => {
  it('accepts objects only', () => {
    expect(isJsonObject({})).toBe(true);
    expect(isJsonObject([])).toBe(false);
    expect(isJsonObject(null)).toBe(false);
    expect(isJsonObject(1n)).toBe(false);
    expect(isJsonObject(undefined)).toBe(false);
  });
});
