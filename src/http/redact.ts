/**
 * Redaction of the run's API key from anything we record or print.
 *
 * A key can leak in more shapes than its raw text: percent-encoded in a URL (with either hex
 * case, or over-encoded), form-encoded, JSON-escaped in a body, or inside base64 as in a Basic
 * credential "x:<key>" (standard or URL-safe alphabet, possibly percent-encoded itself). Every
 * one of those shapes is matched, so a server that echoes the key back cannot get it into a
 * report either.
 */

export const REDACTED = '<redacted>';
/** What a record shows in place of the proxy's credentials, should anything ever carry them. */
export const PROXY_SECRET = '<proxy credentials>';

/**
 * Base64 runs shorter than this are not redacted on their own: a handful of base64 characters
 * would match unrelated text. Keys are far longer in practice.
 */
const MIN_BASE64_CORE = 6;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

function hexClass(hexDigit: string): string {
  const upper = hexDigit.toUpperCase();
  const lower = hexDigit.toLowerCase();
  return upper === lower ? upper : `[${upper}${lower}]`;
}

function percentPattern(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) {
    const hex = byte.toString(16).padStart(2, '0');
    out += `%${hexClass(hex[0] ?? '0')}${hexClass(hex[1] ?? '0')}`;
  }
  return out;
}

/** The key as raw text, percent-encoded (any subset of its characters), form-encoded or JSON-escaped. */
function textPattern(secret: string): string {
  const encoder = new TextEncoder();
  let out = '';
  for (const ch of secret) {
    const alternatives = new Set<string>([escapeRegExp(ch), percentPattern(encoder.encode(ch))]);
    if (ch === ' ') alternatives.add('\\+');
    const jsonEscaped = JSON.stringify(ch).slice(1, -1);
    if (jsonEscaped !== ch) alternatives.add(escapeRegExp(jsonEscaped));
    out += `(?:${[...alternatives].join('|')})`;
  }
  return out;
}

/**
 * The base64 characters that depend only on the key's bytes, for each of the three byte
 * alignments the key can have inside the encoded plaintext ("x:" + key puts it at offset 2).
 * Characters mixing key bits with neighbouring bytes are left out, which leaks at most a
 * few bits at either edge.
 */
function base64Cores(secret: string): string[] {
  const keyBytes = Buffer.from(secret, 'utf8');
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const plain = Buffer.concat([Buffer.alloc(offset), keyBytes]);
    const encoded = plain.toString('base64');
    const start = Math.ceil((offset * 8) / 6);
    const end = Math.floor(((offset + keyBytes.length) * 8) / 6);
    const core = encoded.slice(start, end);
    if (core.length >= MIN_BASE64_CORE) cores.push(core);
  }
  return cores;
}

/** Matches the core in either base64 alphabet, raw or percent-encoded. */
function base64Pattern(core: string): string {
  let out = '';
  for (const ch of core) {
    if (ch === '+') out += '(?:[+-]|%2[bB])';
    else if (ch === '/') out += '(?:[/_]|%2[fF])';
    else out += ch;
  }
  return out;
}

/** A pure function replacing every known shape of every secret with `replacement` ("<redacted>", the key's). */
export function createRedactor(secrets: readonly string[], replacement = REDACTED): (text: string) => string {
  const usable = [...new Set(secrets.filter((s) => s.length > 0))].sort((a, b) => b.length - a.length);
  if (usable.length === 0) return (text) => text;
  const textPatterns = usable.map(textPattern);
  const corePatterns = usable
    .flatMap(base64Cores)
    .sort((a, b) => b.length - a.length)
    .map(base64Pattern);
  // Text forms first: at a given position the raw key is the better (longer) match.
  const pattern = new RegExp([...textPatterns, ...corePatterns].join('|'), 'g');
  return (text) => text.replace(pattern, replacement);
}

export function redact(text: string, secrets: readonly string[]): string {
  return createRedactor(secrets)(text);
}
