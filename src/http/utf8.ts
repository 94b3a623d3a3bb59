/**
 * Where bytes stop being UTF-8 text (the well-formed sequences of Unicode's table 3-7). JSON
 * exchanged between systems must be UTF-8 (RFC 8259 section 8.1), but a decoder that replaces what
 * is ill-formed with U+FFFD hides it: the transport says where a response's bytes were ill-formed,
 * and a request sent on purpose with such bytes is recorded as what it was, not as its decoding.
 */
import { isUtf8 } from 'node:buffer';

/** Whether the byte at `i` lies in lo..hi (a continuation byte by default). */
function byteIn(bytes: Uint8Array, i: number, lo = 0x80, hi = 0xbf): boolean {
  const b = bytes[i];
  return b !== undefined && b >= lo && b <= hi;
}

/** Length of the well-formed sequence starting at `i`, or 0 when the byte there starts none. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i] ?? 0;
  if (b0 < 0x80) return 1;
  const rest = (n: number): boolean => Array.from({ length: n }, (_, k) => byteIn(bytes, i + 2 + k)).every(Boolean);
  // The second byte's range depends on the first: it rules out overlong forms, surrogates and code points above U+10FFFF.
  const second: ReadonlyArray<[lo: number, hi: number, first: number, lastFirst: number, length: number]> = [
    [0x80, 0xbf, 0xc2, 0xdf, 2],
    [0xa0, 0xbf, 0xe0, 0xe0, 3],
    [0x80, 0xbf, 0xe1, 0xec, 3],
    [0x80, 0x9f, 0xed, 0xed, 3],
    [0x80, 0xbf, 0xee, 0xef, 3],
    [0x90, 0xbf, 0xf0, 0xf0, 4],
    [0x80, 0xbf, 0xf1, 0xf3, 4],
    [0x80, 0x8f, 0xf4, 0xf4, 4],
  ];
  const rule = second.find(([, , first, lastFirst]) => b0 >= first && b0 <= lastFirst);
  if (rule === undefined) return 0;
  const [lo, hi, , , length] = rule;
  return byteIn(bytes, i + 1, lo, hi) && rest(length - 2) ? length : 0;
}

/** Byte offset of the first ill-formed byte, or undefined when the bytes are well-formed UTF-8. */
export function firstIllFormedUtf8(bytes: Uint8Array): number | undefined {
  if (isUtf8(bytes)) return undefined;
  for (let i = 0; i < bytes.length; ) {
    const length = sequenceLength(bytes, i);
    if (length === 0) return i;
    i += length;
  }
  return undefined;
}

/** The bytes in order: runs of well-formed text, and each ill-formed byte on its own. */
export function utf8Parts(bytes: Uint8Array): Array<{ text: string } | { illFormed: number }> {
  const parts: Array<{ text: string } | { illFormed: number }> = [];
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  let start = 0;
  const flush = (end: number): void => {
    if (end > start) parts.push({ text: decoder.decode(bytes.subarray(start, end)) });
  };
  for (let i = 0; i < bytes.length; ) {
    const length = sequenceLength(bytes, i);
    if (length > 0) {
      i += length;
      continue;
    }
    flush(i);
    parts.push({ illFormed: bytes[i] ?? 0 });
    i += 1;
    start = i;
  }
  flush(bytes.length);
  return parts;
}

/**
 * The bytes as a record shows them: well-formed text decoded, each ill-formed byte as \xHH. Only
 * a rendering (a body that holds `\x` itself reads the same): the record keeps the bytes too.
 */
export function showBytes(bytes: Uint8Array): string {
  return utf8Parts(bytes)
    .map((part) => ('text' in part ? part.text : `\\x${part.illFormed.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
}
