/**
 * Turns a SendRequest into what goes on the wire: the path joined onto the base URL's, the query
 * encoded, the headers checked and the Authorization value built. Everything that cannot be sent
 * as given is refused here, before the budget is touched.
 */
import { randomBytes } from 'node:crypto';
import type { AuthMode, AuthTemplate } from './exchange.js';
import { nearMissOf, type NearMiss } from './near-miss.js';
import type { GatewayHeader } from './gateway-headers.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS';

export interface CustomAuth {
  mode: Exclude<AuthMode, 'near-miss'>;
  /** The whole Authorization value, or undefined for no header. May contain the real key. */
  header: string | undefined;
}

/** Bearer + a near miss of the run's key (near-miss.ts): recorded by its kind, never its value. */
export interface NearMissAuth {
  mode: 'near-miss';
  miss: NearMiss;
}

export interface SendRequest {
  method: HttpMethod;
  /** "/pets" or "/pets/123", appended to the base URL's path as given (not re-encoded). */
  path: string;
  /** Default false: `path` is taken from the origin, not the base URL's path (the preflight's look for the right base); the exchange's `target` is then the path from the origin, its `url` exact as always. */
  fromOrigin?: boolean;
  /** Ordered; names and values are percent-encoded here. An empty value gives "limit=". */
  query?: Array<[string, string]>;
  /** Raw body text, sent as is (UTF-8); or bytes, sent exactly, for a body that must not be UTF-8 (recorded with bodyBase64). */
  body?: string | Uint8Array;
  contentType?: string;
  /**
   * Default 'key'. 'none': no Authorization. 'wrong-key': Bearer + a random key.
   * 'malformed' alone sends the key without a scheme; use the object form for other shapes.
   */
  auth?: Exclude<AuthMode, 'near-miss'> | CustomAuth | NearMissAuth;
  /** Extra request headers (not Authorization: use `auth`). */
  headers?: Record<string, string>;
  /** Requirement id or probe name, stored on the exchange. */
  purpose: string;
  /** Default true: wait for the window when X-RateLimit-Remaining is 0. */
  pace?: boolean;
  /** Default true: one retry after Retry-After. */
  retryOn429?: boolean;
  /** Default false: after a 429, wait exactly its Retry-After instead of the longer of it and the backoff (the run's send policy does: src/rate-limit/exact-retry.ts). */
  exactRetryAfter?: boolean;
}

export interface PreparedRequest {
  method: HttpMethod;
  mode: AuthMode;
  /** Path + query relative to the base URL. */
  target: string;
  /** Path + query as sent to the origin. */
  path: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
  purpose: string;
  paced: boolean;
  retryOn429: boolean;
  exactRetryAfter: boolean;
  authTemplate: AuthTemplate | undefined;
}

export interface BaseUrl {
  origin: string;
  /** The base URL's path without trailing slashes ("" for the root). */
  basePath: string;
}

export interface PrepareContext extends BaseUrl {
  apiKey: string;
  userAgent: string;
  /** Sent on every request, whatever its credential (gateway-headers.ts); a test's own header of the same name wins. */
  gatewayHeaders?: readonly GatewayHeader[];
  /** Error messages quote the caller's path, which may contain the key. */
  redact: (text: string) => string;
}

const INVALID_PATH = /[^\u0021-\u00ff]/;
const INVALID_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function parseBaseUrl(baseUrl: string): BaseUrl {
  const base = new URL(baseUrl);
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new TypeError(`baseUrl must be http or https, not ${base.protocol}`);
  }
  if (base.username !== '' || base.password !== '' || base.search !== '' || base.hash !== '') {
    throw new TypeError('baseUrl must not carry credentials, a query or a fragment');
  }
  return { origin: base.origin, basePath: base.pathname.replace(/\/+$/, '') };
}

export function isSendableHeaderValue(value: string): boolean {
  return !INVALID_HEADER_VALUE.test(value);
}

export function createPreparer(context: PrepareContext): (req: SendRequest) => PreparedRequest {
  return (req) => {
    const rawPath = req.path.startsWith('/') ? req.path : `/${req.path}`;
    const query =
      req.query && req.query.length > 0
        ? `?${req.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`
        : '';
    const target = `${rawPath}${query}`;
    const path = req.fromOrigin === true ? target : `${context.basePath}${target}`;
    if (INVALID_PATH.test(path)) {
      throw new TypeError(`path contains characters that cannot be sent: ${context.redact(JSON.stringify(req.path))}`);
    }

    const { mode, header, template } = resolveAuth(req.auth, context.apiKey);
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': context.userAgent };
    for (const { name, value } of context.gatewayHeaders ?? []) headers[name.toLowerCase()] = value;
    for (const [name, value] of Object.entries(req.headers ?? {})) {
      const lower = name.toLowerCase();
      if (lower === 'authorization') throw new TypeError('set Authorization through `auth`, not `headers`');
      headers[lower] = value;
    }
    if (req.contentType !== undefined) headers['content-type'] = req.contentType;
    if (header !== undefined) headers.authorization = header;
    for (const [name, value] of Object.entries(headers)) {
      if (!HEADER_NAME.test(name) || !isSendableHeaderValue(value)) {
        throw new TypeError(`header ${JSON.stringify(name)} cannot be sent as given`);
      }
    }

    return {
      method: req.method,
      mode,
      target,
      path,
      headers,
      body: req.body,
      purpose: req.purpose,
      paced: req.pace ?? true,
      retryOn429: req.retryOn429 ?? true,
      exactRetryAfter: req.exactRetryAfter ?? false,
      authTemplate: template ?? (header === undefined ? undefined : authTemplateOf(header, context.apiKey)),
    };
  };
}

export function resolveAuth(auth: SendRequest['auth'], apiKey: string): { mode: AuthMode; header: string | undefined; template?: AuthTemplate } {
  if (typeof auth === 'object') {
    if (auth.mode !== 'near-miss') return { mode: auth.mode, header: auth.header };
    const template: AuthTemplate = { encoding: 'near-miss', prefix: 'Bearer ', miss: auth.miss };
    return { mode: 'near-miss', header: authHeaderFrom(template, apiKey), template };
  }
  switch (auth ?? 'key') {
    case 'key':
      return { mode: 'key', header: `Bearer ${apiKey}` };
    case 'none':
      return { mode: 'none', header: undefined };
    case 'wrong-key':
      // Shaped like a real key so a server cannot reject it on its format alone.
      return { mode: 'wrong-key', header: `Bearer ${randomBytes(24).toString('base64url')}` };
    case 'malformed':
      return { mode: 'malformed', header: apiKey };
  }
}

/** Where the key stands in an Authorization value, for curl lines (see AuthTemplate). */
export function authTemplateOf(header: string, key: string): AuthTemplate | undefined {
  if (header.includes(key)) return { encoding: 'raw', parts: header.split(key) };
  const token = /[A-Za-z0-9+/_-]+=*/g;
  for (let m = token.exec(header); m !== null; m = token.exec(header)) {
    const candidate = m[0];
    const alphabet = /[-_]/.test(candidate) ? 'base64url' : 'base64';
    const decoded = Buffer.from(candidate, alphabet).toString('utf8');
    if (!decoded.includes(key)) continue;
    // Only a faithful round trip proves the token is exactly this encoding.
    const reencoded = Buffer.from(decoded, 'utf8').toString(alphabet);
    if (reencoded.replace(/=+$/, '') !== candidate.replace(/=+$/, '')) continue;
    return {
      encoding: 'base64',
      prefix: header.slice(0, m.index),
      plain: decoded.split(key),
      suffix: header.slice(m.index + candidate.length),
      alphabet,
      padded: candidate.endsWith('='),
    };
  }
  return undefined;
}

/** The inverse of authTemplateOf: the Authorization value with `key` back where the run's key stood. */
export function authHeaderFrom(template: AuthTemplate, key: string): string {
  if (template.encoding === 'raw') return template.parts.join(key);
  if (template.encoding === 'near-miss') return `${template.prefix}${nearMissOf(key, template.miss)}`;
  const encoded = Buffer.from(template.plain.join(key), 'utf8').toString(template.alphabet);
  // Node's base64url never pads and its base64 always does; the template says what was sent.
  const unpadded = encoded.replace(/=+$/, '');
  const token = template.padded ? unpadded.padEnd(Math.ceil(unpadded.length / 4) * 4, '=') : unpadded;
  return `${template.prefix}${token}${template.suffix}`;
}
