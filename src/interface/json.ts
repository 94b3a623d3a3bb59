/**
 * Lossless JSON. JSON.parse rounds integers beyond 2^53 to the nearest double, which would make a
 * Pet id of 2^53+1 indistinguishable from 2^53 and break round trips to GET /pets/{id}. Here such
 * integers become bigint with their exact value; everything else keeps JSON.parse's types.
 */
import { parse, stringify } from 'lossless-json';

export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export type ParseResult = { ok: true; value: JsonValue } | { ok: false; error: string };

/**
 * Beyond this many digits an integral numeral stays a (possibly infinite) double: it is out of
 * every integer range we check anyway, and an exponent like 1e1000000 must not allocate a huge bigint.
 */
const MAX_EXACT_DIGITS = 400;

const NUMERAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * The exact integer a JSON numeral denotes, or undefined when it is not integral. JSON Schema calls
 * 9223372036854775807.0 and 9.223372036854775807e18 integers too, so they are handled, not only
 * plain digit strings.
 */
function exactInteger(text: string): bigint | undefined {
  const m = NUMERAL.exec(text);
  if (m === null) return undefined;
  const [, sign = '', intDigits = '', fracDigits = '', expText = '0'] = m;
  const exponent = Number(expText);
  let digits = intDigits + fracDigits;
  let scale = exponent - fracDigits.length;
  if (scale < 0) {
    const dropped = digits.slice(scale);
    if (!/^0*$/.test(dropped)) return undefined;
    digits = digits.slice(0, scale) || '0';
    scale = 0;
  }
  const significant = digits.replace(/^0+/, '') || '0';
  if (significant === '0') return 0n;
  if (significant.length + scale > MAX_EXACT_DIGITS) return undefined;
  const magnitude = BigInt(significant) * 10n ** BigInt(scale);
  return sign === '-' ? -magnitude : magnitude;
}

function parseNumber(text: string): number | bigint {
  const asNumber = Number(text);
  if (Number.isSafeInteger(asNumber)) return asNumber;
  const exact = exactInteger(text);
  if (exact === undefined || (exact >= BigInt(Number.MIN_SAFE_INTEGER) && exact <= BigInt(Number.MAX_SAFE_INTEGER))) {
    return asNumber;
  }
  return exact;
}

/** lossless-json returns unknown; its output is JSON data by construction, this narrows it for the compiler. */
function isJsonValue(value: unknown): value is JsonValue {
  switch (typeof value) {
    case 'boolean':
    case 'number':
    case 'bigint':
    case 'string':
      return true;
    case 'object':
      if (value === null) return true;
      if (Array.isArray(value)) return value.every(isJsonValue);
      return Object.values(value).every(isJsonValue);
    default:
      return false;
  }
}

export function parseJson(text: string): ParseResult {
  try {
    const value: unknown = parse(text, null, {
      parseNumber,
      // Last occurrence wins, as with JSON.parse and most server-side parsers (RFC 8259 leaves it open).
      onDuplicateKey: ({ newValue }) => newValue,
    });
    if (!isJsonValue(value)) return { ok: false, error: 'parser returned a non-JSON value' };
    return { ok: true, value };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

function assertFinite(value: JsonValue): void {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`${value} has no JSON representation`);
  } else if (Array.isArray(value)) {
    value.forEach(assertFinite);
  } else if (isJsonObject(value)) {
    Object.values(value).forEach(assertFinite);
  }
}

/**
 * Serialises with bigints as bare numerals, so 9007199254740993n is sent as 9007199254740993.
 * Throws on NaN and ±Infinity rather than writing null, since the request would not say what the
 * test meant to send.
 */
export function stringifyJson(value: JsonValue): string {
  assertFinite(value);
  const text = stringify(value);
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
}

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
