/**
 * A curl command line that reproduces a recorded exchange, so a report reader can replay any
 * piece of evidence. The key is never in the record; the line reads it from
 * $PETSTORE_API_KEY where it stood, and is otherwise POSIX-shell-quoted.
 */
import type { AuthTemplate, Exchange, ProxyUse } from './exchange.js';
import { PROXY_SECRET, REDACTED } from './redact.js';
import { APPENDED, type NearMiss } from './near-miss.js';
import { utf8Parts } from './utf8.js';

export const API_KEY_VARIABLE = 'PETSTORE_API_KEY';

/** A literal, or a shell expansion that is valid inside double quotes. */
type Piece = string | { expr: string };

const KEY: Piece = { expr: `$${API_KEY_VARIABLE}` };
/** Characters that are special inside double quotes (and `!`, history expansion in bash). */
const DQ_SPECIAL = /[$`"\\!]/;

function singleQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Literal parts joined by the key. */
function interleave(parts: readonly string[]): Piece[] {
  const pieces: Piece[] = [];
  parts.forEach((part, i) => {
    if (i > 0) pieces.push(KEY);
    if (part !== '') pieces.push(part);
  });
  return pieces;
}

function withKey(text: string): Piece[] {
  return interleave(text.split(REDACTED));
}

/** One shell word: double quotes when that reads naturally, else quoted pieces concatenated. */
function shellWord(pieces: readonly Piece[]): string {
  if (pieces.every((p) => typeof p !== 'string')) {
    return pieces.length === 0 ? "''" : `"${pieces.map((p) => (typeof p === 'string' ? p : p.expr)).join('')}"`;
  }
  if (pieces.some((p) => typeof p !== 'string') && pieces.every((p) => typeof p !== 'string' || !DQ_SPECIAL.test(p))) {
    let out = '';
    pieces.forEach((p, i) => {
      if (typeof p === 'string') {
        out += p;
        return;
      }
      const next = pieces[i + 1];
      // "$PETSTORE_API_KEYx" would name another variable.
      const braced = typeof next === 'string' && /^[A-Za-z0-9_]/.test(next) && p === KEY;
      out += braced ? `\${${API_KEY_VARIABLE}}` : p.expr;
    });
    return `"${out}"`;
  }
  return pieces.map((p) => (typeof p === 'string' ? singleQuote(p) : `"${p.expr}"`)).join('');
}

/** The near miss from the key, in POSIX sh: no record holds it (near-miss.ts). */
function nearMissPiece(miss: NearMiss): Piece {
  switch (miss) {
    case 'appended':
      return { expr: `\${${API_KEY_VARIABLE}}${APPENDED}` };
    case 'last-removed':
      return { expr: `\${${API_KEY_VARIABLE}%?}` };
    case 'case-flipped':
      return { expr: `$(printf '%s' "$${API_KEY_VARIABLE}" | tr 'A-Za-z' 'a-zA-Z')` };
  }
}

function authPieces(value: string, template: AuthTemplate | undefined): Piece[] {
  if (template === undefined) return withKey(value);
  if (template.encoding === 'raw') return interleave(template.parts);
  if (template.encoding === 'near-miss') return [template.prefix, nearMissPiece(template.miss)].filter((p) => p !== '');
  const alphabet = template.alphabet === 'base64url' ? ` | tr '+/' '-_'` : '';
  const strip = template.padded ? `'\\n'` : `'=\\n'`;
  const recode = `${alphabet} | tr -d ${strip}`;
  const encoded: Piece = { expr: `$(printf '%s' ${shellWord(interleave(template.plain))} | base64${recode})` };
  const pieces: Piece[] = [];
  if (template.prefix !== '') pieces.push(template.prefix);
  pieces.push(encoded);
  if (template.suffix !== '') pieces.push(template.suffix);
  return pieces;
}

function headerName(lower: string): string {
  return lower.replace(/(^|-)([a-z])/g, (_m, dash: string, ch: string) => `${dash}${ch.toUpperCase()}`);
}

/**
 * The proxy as the request took it: named by the variable it came from, or by its URL with a
 * placeholder for credentials no record holds. Without this a curl run in the same environment
 * would still pick HTTPS_PROXY up by itself, but not a proxy given as an option, nor the run's
 * refusal of the environment's. Always tunnelled (CONNECT), as the run's transport does.
 */
function proxyArgs(proxy: ProxyUse | undefined): string[] {
  if (proxy === undefined) return [];
  if ('direct' in proxy) return ['--noproxy', singleQuote('*')];
  const named = 'variable' in proxy ? shellWord([{ expr: `$${proxy.variable}` }]) : singleQuote(proxy.url);
  const user = 'url' in proxy && proxy.credentials ? ['--proxy-user', singleQuote(PROXY_SECRET)] : [];
  return ['--proxy', named, ...user, '--proxytunnel'];
}

export function toCurl(ex: Exchange): string {
  const { method, url, headers, body, authTemplate } = ex.request;
  const args: string[] = ['curl'];
  if (method === 'HEAD') {
    args.push('--head');
  } else {
    args.push('-i');
    // curl picks GET, or POST once --data-raw is given; anything else must be explicit.
    const implied = body === undefined ? 'GET' : 'POST';
    if (method !== implied) args.push('-X', method);
  }

  args.push(...proxyArgs(ex.request.proxy));
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (/[[\]{}]/.test(url)) args.push('--globoff');
  // curl would squash "/./" and "/../" the way URL parsing does; the request did not.
  if (parsed !== undefined && /(^|\/)\.\.?(\/|$|\?)/.test(url.slice(parsed.origin.length))) args.push('--path-as-is');
  args.push(shellWord(withKey(url)));

  for (const [name, value] of Object.entries(headers)) {
    const valuePieces = name === 'authorization' ? authPieces(value, authTemplate) : withKey(value);
    const prefix = `${headerName(name)}: `;
    const first = valuePieces[0];
    const merged: Piece[] = typeof first === 'string' ? [prefix + first, ...valuePieces.slice(1)] : [prefix, ...valuePieces];
    args.push('-H', shellWord(merged));
  }
  const bytes = ex.request.bodyBase64 === undefined ? undefined : Buffer.from(ex.request.bodyBase64, 'base64');
  if (body !== undefined) {
    // Without this curl would add its own form Content-Type to the replay.
    if (headers['content-type'] === undefined) args.push('-H', singleQuote('Content-Type:'));
    if (bytes === undefined) args.push('--data-raw', shellWord(withKey(body)));
    else args.push('--data-binary', '@-');
  }
  // Bytes that are not UTF-8 cannot stand in a shell word as text: POSIX printf writes them from octal escapes.
  return `${bytes === undefined ? '' : `printf ${singleQuote(printfFormat(bytes))} | `}${args.join(' ')}`;
}

/** A printf format that writes exactly these bytes: text as is (its backslashes and % escaped), each ill-formed byte as an octal escape. */
function printfFormat(bytes: Uint8Array): string {
  return utf8Parts(bytes)
    .map((part) => ('text' in part ? part.text.replace(/\\/g, '\\\\').replace(/%/g, '%%') : `\\${part.illFormed.toString(8).padStart(3, '0')}`))
    .join('');
}
