import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { display } from '../src/conformance/display.js';
import { parseJson } from '../src/interface/json.js';

describe('display (shrunk counterexamples)', () => {
  it('writes big integers as digits, so the text is JSON that curl can send and parses back exactly', () => {
    const input = Object.assign(Object.create(null) as object, { name: 'pc-x', categoryId: -86623088586718889n, status: undefined });
    const text = display(input);
    expect(text).toBe('{"name":"pc-x","categoryId":-86623088586718889}');
    expect(text).not.toMatch(/\dn\b/);
    expect(parseJson(text)).toEqual({ ok: true, value: { name: 'pc-x', categoryId: -86623088586718889n } });
  });

  it('renders what fast-check would have written as 123n, and values JSON cannot hold, as JSON', () => {
    expect(fc.stringify(9007199254740993n)).toBe('9007199254740993n');
    expect(display(9007199254740993n)).toBe('9007199254740993');
    expect(display([1, undefined, Number.NaN])).toBe('[1,null,"NaN"]');
    expect(display('a "quoted" name')).toBe('"a \\"quoted\\" name"');
  });
});
