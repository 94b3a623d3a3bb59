/**
 * The inputs that can leave a store broken (CREATE-005, --risk-breaking-store): the bodies the
 * probes send, what a 201 may show for each, the detector that proves a run without the flag
 * sends none of them, and the UTF-8 reading that tells bytes that are not text from text.
 */
import { isUtf8 } from 'node:buffer';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { nameReading, probeBody, probeName, STORE_BREAKING_PROBES, storeBreakingInputs, type StoreBreakingKind } from '../src/arbitraries/store-breaking.js';
import { newPetBody, newPetExamples, markedInput } from '../src/arbitraries/newPet.js';
import { invalidNewPetExamples } from '../src/arbitraries/invalidNewPet.js';
import { withMarker } from '../src/arbitraries/marker.js';
import { firstIllFormedUtf8, showBytes } from '../src/http/utf8.js';
import { createClient } from '../src/http/client.js';
import { isJsonObject, parseJson } from '../src/interface/json.js';

const MARKER = 'pc-0123456789-7-';
const probe = (kind: StoreBreakingKind): (typeof STORE_BREAKING_PROBES)[number] => {
  const found = STORE_BREAKING_PROBES.find((p) => p.kind === kind);
  if (found === undefined) throw new Error(`no probe ${kind}`);
  return found;
};
const asText = (body: string | Uint8Array): string => (typeof body === 'string' ? body : new TextDecoder().decode(body));

describe('the probes', () => {
  test('each body holds its own input and no other, in a NewPet of the category and status given', () => {
    for (const p of STORE_BREAKING_PROBES) {
      const body = probeBody(p, MARKER, 42n, 'pending');
      expect(storeBreakingInputs(body), p.kind).toEqual([p.kind]);
      // Decoded as a lenient server would, the rest is a NewPet of that category and status, named with the marker.
      const parsed = parseJson(asText(body));
      const value = parsed.ok && isJsonObject(parsed.value) ? parsed.value : {};
      expect([value['categoryId'], value['status']], p.kind).toEqual([42, 'pending']);
      expect(String(value['name']).startsWith(`${MARKER}${p.kind} `), p.kind).toBe(true);
    }
  });

  test('invalid UTF-8 is bytes: FF, an overlong "/", an encoded surrogate and a cut sequence, between spaces', () => {
    const body = probeBody(probe('invalid-utf-8'), MARKER, 1n, 'sold');
    expect(typeof body).not.toBe('string');
    const bytes = Buffer.from(body);
    expect(bytes.includes(Buffer.from([0x20, 0xff, 0x20, 0xc0, 0xaf, 0x20, 0xed, 0xa0, 0x80, 0x20, 0xe2, 0x82, 0x20]))).toBe(true);
    expect(probeName(probe('invalid-utf-8'), MARKER)).toBeUndefined();
  });

  test('lone surrogates and NUL are JSON escapes in a text body, read back as the name sent', () => {
    const surrogates = probeBody(probe('lone-surrogates'), MARKER, 1n, 'sold');
    expect(surrogates).toContain('\\ud800 \\udfff');
    const nul = probeBody(probe('nul'), MARKER, 1n, 'sold');
    expect(nul).toContain('nul \\u0000 end');
    for (const [kind, body] of [['lone-surrogates', surrogates], ['nul', nul]] as const) {
      const parsed = parseJson(asText(body));
      expect(parsed.ok && isJsonObject(parsed.value) ? parsed.value['name'] : undefined).toBe(probeName(probe(kind), MARKER));
    }
  });

  test('what a 201 may show: the name sent, or each part that is not text replaced by U+FFFD; never a part dropped or kept as lone surrogates', () => {
    const utf8 = probe('invalid-utf-8');
    // What Node's decoder (WHATWG: one U+FFFD per maximal ill-formed part) makes of the body.
    const decoded = parseJson(asText(probeBody(utf8, MARKER, 1n, 'sold')));
    const whatwg = decoded.ok && isJsonObject(decoded.value) ? String(decoded.value['name']) : '';
    expect(nameReading(utf8, MARKER, whatwg)).toBe('replaced');
    // Go replaces byte by byte: more U+FFFD for the same parts.
    expect(nameReading(utf8, MARKER, `${MARKER}invalid-utf-8 \ufffd \ufffd\ufffd \ufffd\ufffd\ufffd \ufffd\ufffd end`)).toBe('replaced');
    expect(nameReading(utf8, MARKER, `${MARKER}invalid-utf-8    end`)).toBeUndefined();
    expect(nameReading(utf8, MARKER, `${MARKER}invalid-utf-8 \udcff \ufffd \ufffd \ufffd end`)).toBeUndefined();
    expect(nameReading(utf8, MARKER, `${MARKER}invalid-utf-8 ÿ À¯ í  â end`)).toBeUndefined();

    const lone = probe('lone-surrogates');
    expect(nameReading(lone, MARKER, `${MARKER}lone-surrogates \ud800 \udfff end`)).toBe('exact');
    expect(nameReading(lone, MARKER, `${MARKER}lone-surrogates \ufffd \ufffd end`)).toBe('replaced');
    expect(nameReading(lone, MARKER, `${MARKER}lone-surrogates   end`)).toBeUndefined();

    const nul = probe('nul');
    expect(nameReading(nul, MARKER, `${MARKER}nul \u0000 end`)).toBe('exact');
    expect(nameReading(nul, MARKER, `${MARKER}nul  end`)).toBeUndefined();
    expect(nameReading(nul, MARKER, `${MARKER}nul \ufffd end`)).toBeUndefined();
  });
});

describe('storeBreakingInputs', () => {
  test('escapes are read as JSON reads them: a pair is text, an escaped backslash is not an escape', () => {
    expect(storeBreakingInputs('{"name":"\\ud83d\\udc36 🐶 \\\\u0000 \\\\ud800"}')).toEqual([]);
    expect(storeBreakingInputs('{"name":"\\ud83d x"}')).toEqual(['lone-surrogates']);
    expect(storeBreakingInputs('{"name":"x \\udc36"}')).toEqual(['lone-surrogates']);
    expect(storeBreakingInputs('{"name":"\\ud83d\\ud83d\\udc36"}')).toEqual(['lone-surrogates']);
    expect(storeBreakingInputs('{"name":"\\ud83d"}')).toEqual(['lone-surrogates']);
    expect(storeBreakingInputs('{"name":"\\u0000"}')).toEqual(['nul']);
    expect(storeBreakingInputs('{"name":"raw \u0000 and \ud800"}').sort()).toEqual(['lone-surrogates', 'nul']);
    expect(storeBreakingInputs(Buffer.from('{"name":"é"}', 'utf8'))).toEqual([]);
    expect(storeBreakingInputs(Buffer.from([0x7b, 0xff, 0x7d]))).toEqual(['invalid-utf-8']);
  });

  test('no fixed createPet body of a run holds one (valid examples with the name they are sent with, every invalid class)', () => {
    const bodies = [
      ...newPetExamples(7n).map((e) => newPetBody(markedInput(e.input, MARKER))),
      ...invalidNewPetExamples().map((e) => withMarker(e.body, MARKER)),
    ];
    for (const body of bodies) expect(storeBreakingInputs(body), body).toEqual([]);
  });
});

describe('UTF-8', () => {
  test.prop([fc.uint8Array({ maxLength: 24 })], { numRuns: 2_000 })('firstIllFormedUtf8 agrees with Node: undefined exactly for well-formed bytes, else where a fatal decoder stops', (bytes) => {
    const at = firstIllFormedUtf8(bytes);
    expect(at === undefined).toBe(isUtf8(bytes));
    if (at === undefined) return;
    // Everything before it decodes; the bytes from it on do not start with a character.
    expect(isUtf8(bytes.subarray(0, at))).toBe(true);
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(at, at + 4))).toThrow();
  });

  test('offsets and the \\xHH rendering', () => {
    expect(firstIllFormedUtf8(Buffer.from('aé🐶', 'utf8'))).toBeUndefined();
    expect(firstIllFormedUtf8(Buffer.from([0x61, 0xc3]))).toBe(1);
    expect(firstIllFormedUtf8(Buffer.from([0x61, 0xed, 0xa0, 0x80]))).toBe(1);
    expect(firstIllFormedUtf8(Buffer.from([0xf4, 0x90, 0x80, 0x80]))).toBe(0);
    expect(showBytes(Buffer.concat([Buffer.from('é ', 'utf8'), Buffer.from([0xc0, 0xaf]), Buffer.from(' x')]))).toBe('é \\xC0\\xAF x');
  });

  test('a response whose body is not UTF-8 is recorded with where its bytes stopped being text', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(Buffer.concat([Buffer.from('{"name":"ab', 'utf8'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = createClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, apiKey: 'k', timeoutMs: 5_000, maxBodyBytes: 65_536, maxRequests: 3 });
    try {
      const bad = await client.send({ method: 'GET', path: '/pets/1', purpose: 'utf-8 test' });
      expect(bad.response?.illFormedUtf8At).toBe(11);
      expect(bad.response?.bodyText).toBe('{"name":"ab\ufffd\ufffd\ufffd"}');
    } finally {
      await client.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
