import { describe, expect, it } from 'vitest';
import { checkUtf8Body, illFormedUtf8Text } from '../src/checks/utf8-body.js';
import { crossCuttingChecks } from '../src/checks/cross-cutting.js';
import { firstIllFormedUtf8 } from '../src/http/utf8.js';
import type { Exchange } from '../src/http/exchange.js';
import { makeExchange, type ExchangeOptions } from './support/exchange-factory.js';
import { violations } from './support/findings.js';

/** An exchange whose body is these bytes, read as the transport reads them: the offset found on the bytes, the text decoded with U+FFFD. */
function fromBytes(bytes: Buffer, options: ExchangeOptions = {}): Exchange {
  const ex = makeExchange({ ...options, body: new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes) });
  const at = firstIllFormedUtf8(bytes);
  if (ex.response !== undefined && at !== undefined) ex.response.illFormedUtf8At = at;
  return ex;
}

const listing = (names: Buffer[]): Buffer =>
  Buffer.concat([Buffer.from('['), ...names.flatMap((name, i) => [Buffer.from(`${i === 0 ? '' : ','}{"id":${i + 7},"name":"`), name, Buffer.from('","categoryId":1}')]), Buffer.from(']')]);

describe('firstIllFormedUtf8', () => {
  it('passes well-formed UTF-8 of every length, 4-byte sequences included', () => {
    expect(firstIllFormedUtf8(Buffer.from('a é € 🐈 \u{10ffff}', 'utf8'))).toBeUndefined();
  });
  it.each([
    ['an overlong form', [0x61, 0xc0, 0xaf], 1],
    ['an overlong 3-byte form', [0x61, 0x62, 0xe0, 0x80, 0xaf], 2],
    ['a UTF-16 surrogate', [0xed, 0xa0, 0x80], 0],
    ['a truncated sequence', [0x61, 0xe2, 0x82], 1],
    ['a truncated 4-byte sequence before text', [0xf0, 0x9f, 0x90, 0x41], 0],
    ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80], 0],
    ['a lone continuation byte', [0x41, 0x80], 1],
  ])('finds %s at its offset', (_what, bytes, offset) => {
    expect(firstIllFormedUtf8(Buffer.from(bytes))).toBe(offset);
  });
});

describe('MEDIA-001 on the bytes', () => {
  it('fails a listing with the byte offset and the pet (index and id) the bytes belong to', () => {
    const bytes = listing([Buffer.from('Rex'), Buffer.from('é🐈'), Buffer.from([0x42, 0xc3, 0x28])]);
    const ex = fromBytes(bytes);
    const offset = bytes.lastIndexOf(0xc3);
    const found = violations(checkUtf8Body(ex));
    expect(found).toHaveLength(1);
    expect(found[0]?.requirement).toBe('MEDIA-001');
    expect(found[0]?.detail).toBe(`its bytes stop being UTF-8 at byte ${offset}, in pet #3 of 3 (index 2, id 9)`);
  });

  it('names the pet of a single Pet body', () => {
    const ex = fromBytes(Buffer.concat([Buffer.from('{"id":42,"name":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('","categoryId":1}')]), { target: '/pets/42' });
    expect(illFormedUtf8Text(ex)).toBe('its bytes stop being UTF-8 at byte 17, in the pet with id 42');
  });

  it('passes valid multi-byte UTF-8 and JSON escapes', () => {
    const ex = fromBytes(listing([Buffer.from('é€🐈 \\"q\\" \\\\ \\n \\u00e9 \\ud83d\\udc08', 'utf8')]));
    expect(checkUtf8Body(ex)).toEqual([]);
  });

  it('judges the census (GET /pets?limit=100) like every response: the cross-cutting checks fail it', () => {
    const names = Array.from({ length: 33 }, (_, i) => (i === 30 ? Buffer.from([0x41, 0xc0, 0xaf]) : Buffer.from(`pet ${i + 1}`)));
    const ex = fromBytes(listing(names), { target: '/pets?limit=100', purpose: 'census' });
    const found = violations(crossCuttingChecks(ex)).filter((f) => f.requirement === 'MEDIA-001');
    expect(found.map((f) => f.detail)).toEqual([expect.stringContaining('in pet #31 of 33 (index 30, id 37)')]);
  });

  it("leaves CREATE-005's probes to CREATE-005: an observation, no violation", () => {
    const ex = fromBytes(Buffer.concat([Buffer.from('{"id":1,"name":"'), Buffer.from([0xff]), Buffer.from('","categoryId":1}')]), { method: 'POST', status: 201, purpose: 'CREATE-005 invalid-utf-8' });
    expect(violations(checkUtf8Body(ex))).toEqual([]);
    expect(checkUtf8Body(ex)).toHaveLength(1);
  });
});
