/**
 * Names a store may not survive, sent only with --risk-breaking-store (CREATE-005): bytes that are
 * not UTF-8 inside the name's JSON string, lone UTF-16 surrogates written as escapes, and NUL.
 * Stacks have stored each and then answered 500 to every listing and getPet that includes the pet,
 * for every client, from then on (Ruby/Sinatra keeps the raw bytes, FastAPI the lone surrogate,
 * PostgreSQL refuses NUL), so a run sends none of them unless told the store is its own.
 *
 * Each probe's name is the request's marker, a label, and parts that are text or not: what a 201
 * may show is decided part by part (nameReading), and storeBreakingInputs tells whether any body
 * holds one of these inputs (a run without the flag must send none; replay re-sends none).
 */
import { stringifyJson } from '../interface/json.js';
import { firstIllFormedUtf8 } from '../http/utf8.js';

export type StoreBreakingKind = 'invalid-utf-8' | 'lone-surrogates' | 'nul';

/** A part of a probe's name: text, bytes that are not UTF-8, or a string that is not Unicode text (lone surrogates). */
type NamePart = { text: string } | { bytes: readonly number[] } | { notText: string };

export interface StoreBreakingProbe {
  kind: StoreBreakingKind;
  /** What the name holds, for messages and the report. */
  holds: string;
  /** Why a 400 is a reasonable answer to it. */
  refusal: string;
  /**
   * Whether a 201 may show each part that is not text replaced by U+FFFD (the replacement character
   * Unicode's decoders substitute; Go's encoding/json and Node's body parsers do it by default).
   * NUL is text: a store that keeps the name must keep it.
   */
  replaceable: boolean;
  parts: readonly NamePart[];
}

export const STORE_BREAKING_PROBES: readonly StoreBreakingProbe[] = [
  {
    kind: 'invalid-utf-8',
    holds: 'bytes that are not UTF-8 in the name (FF; C0 AF, an overlong "/"; ED A0 80, a surrogate encoded as if it were a character; E2 82, a sequence cut short)',
    refusal: 'the body is not JSON text, which is UTF-8 between systems (RFC 8259 section 8.1)',
    replaceable: true,
    parts: [{ text: 'invalid-utf-8 ' }, { bytes: [0xff] }, { text: ' ' }, { bytes: [0xc0, 0xaf] }, { text: ' ' }, { bytes: [0xed, 0xa0, 0x80] }, { text: ' ' }, { bytes: [0xe2, 0x82] }, { text: ' end' }],
  },
  {
    kind: 'lone-surrogates',
    holds: 'lone surrogates in the name (\\ud800 without its low half, \\udfff without its high half)',
    refusal: 'the name is not Unicode text (I-JSON, RFC 7493 section 2.1, forbids lone surrogates)',
    replaceable: true,
    parts: [{ text: 'lone-surrogates ' }, { notText: '\ud800' }, { text: ' ' }, { notText: '\udfff' }, { text: ' end' }],
  },
  {
    kind: 'nul',
    holds: 'the NUL character (\\u0000) in the name',
    refusal: 'the spec sets no rule on names, and many stores cannot hold NUL (PostgreSQL text)',
    replaceable: false,
    parts: [{ text: 'nul ' }, { notText: '\u0000' }, { text: ' end' }],
  },
];

/** The name as a JavaScript string, when it is one (bytes that are not UTF-8 are no string). */
export function probeName(probe: StoreBreakingProbe, marker: string): string | undefined {
  if (probe.parts.some((part) => 'bytes' in part)) return undefined;
  return marker + probe.parts.map((part) => ('text' in part ? part.text : 'notText' in part ? part.notText : '')).join('');
}

/** The createPet body: a NewPet of a category the server shows, the name's bytes written as given. */
export function probeBody(probe: StoreBreakingProbe, marker: string, categoryId: bigint, status: string): string | Uint8Array {
  const name = probeName(probe, marker);
  // The JSON writer escapes lone surrogates and NUL (\ud800, \u0000): the escapes are what is sent.
  if (name !== undefined) return stringifyJson({ name, categoryId, status });
  const [head, tail] = stringifyJson({ name: '\u0001', categoryId, status }).split('\\u0001');
  const inName = probe.parts.map((part) => ('bytes' in part ? Buffer.from(part.bytes) : Buffer.from(JSON.stringify('text' in part ? part.text : '').slice(1, -1), 'utf8')));
  return Buffer.concat([Buffer.from(`${head ?? ''}${JSON.stringify(marker).slice(1, -1)}`, 'utf8'), ...inName, Buffer.from(tail ?? '', 'utf8')]);
}

const REPLACEMENT = '\ufffd';

/**
 * How a name a 201 (or a read) shows relates to the probe's: 'exact' when it is the name sent,
 * 'replaced' when each part that is not text became one or more U+FFFD (a decoder's replacement:
 * one per byte or per ill-formed sequence, as stacks differ), undefined otherwise (another name,
 * a part dropped, bytes kept as lone surrogates).
 */
export function nameReading(probe: StoreBreakingProbe, marker: string, shown: string): 'exact' | 'replaced' | undefined {
  if (shown === probeName(probe, marker)) return 'exact';
  if (!probe.replaceable) return undefined;
  const escape = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
  const pattern = probe.parts.map((part) => ('text' in part ? escape(part.text) : `${REPLACEMENT}+`)).join('');
  return new RegExp(`^${escape(marker)}${pattern}$`, 'u').test(shown) ? 'replaced' : undefined;
}

/** \uXXXX escapes (and any other escape, consumed whole so that \\u0000 is text) of JSON text. */
const ESCAPE = /\\(?:u([0-9a-fA-F]{4})|[\s\S])/g;
const isHigh = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;

/** Lone surrogates and NUL in JSON text: as escapes, or as characters of the text itself. */
function inText(text: string): StoreBreakingKind[] {
  const kinds = new Set<StoreBreakingKind>();
  if (text.includes('\u0000')) kinds.add('nul');
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text)) kinds.add('lone-surrogates');
  const escapes = [...text.matchAll(ESCAPE)].map((m) => ({ unit: m[1] === undefined ? undefined : Number.parseInt(m[1], 16), start: m.index, end: m.index + m[0].length }));
  for (let i = 0; i < escapes.length; i++) {
    const { unit, end } = escapes[i] ?? { unit: undefined, end: 0 };
    if (unit === 0) kinds.add('nul');
    if (unit === undefined || !(isHigh(unit) || isLow(unit))) continue;
    const next = escapes[i + 1];
    // A high surrogate's escape must be followed at once by a low one's; a low one on its own is lone.
    if (isHigh(unit) && next?.unit !== undefined && isLow(next.unit) && next.start === end) i += 1;
    else kinds.add('lone-surrogates');
  }
  return [...kinds];
}

/** Which of these inputs a request body holds: none, for every body a run sends without --risk-breaking-store. */
export function storeBreakingInputs(body: string | Uint8Array): StoreBreakingKind[] {
  if (typeof body === 'string') return inText(body);
  const illFormed = firstIllFormedUtf8(body) !== undefined;
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(body);
  return [...(illFormed ? (['invalid-utf-8'] as const) : []), ...inText(text)];
}
