/**
 * Exchanges for the checks' unit tests. Defaults describe a conforming keyed GET /pets answered
 * 200 with an empty page, so each test states only what it varies.
 */
import type { AuthMode, Exchange } from '../../src/http/exchange.js';
import { wholeBodyOf } from '../../src/http/kept-body.js';

/** A fixed instant keeps Date and Reset consistent and the tests deterministic. */
export const NOW_MS = Date.UTC(2025, 5, 2, 12, 0, 0);
export const NOW_S = NOW_MS / 1000;
export const NOW_HTTP_DATE = new Date(NOW_MS).toUTCString();

export interface ExchangeOptions {
  seq?: number;
  method?: string;
  target?: string;
  auth?: AuthMode;
  status?: number;
  /** Merged over the defaults; undefined removes a default header. */
  headers?: Record<string, string | undefined>;
  /** Raw body text; wins over `json`. */
  body?: string;
  /** A value serialised as JSON; bigints are written as exact numerals. */
  json?: unknown;
  truncated?: boolean;
  /** Makes an exchange without a response. */
  noResponse?: boolean;
  sentAt?: number;
  elapsedMs?: number;
  purpose?: string;
}

export function defaultHeaders(): Record<string, string> {
  return {
    'content-type': 'application/json',
    date: NOW_HTTP_DATE,
    'x-ratelimit-limit': '60',
    'x-ratelimit-remaining': '59',
    'x-ratelimit-reset': String(NOW_S + 60),
  };
}

/** JSON.stringify with bigints as bare numerals (placeholders avoid touching string contents). */
export function toJson(value: unknown): string {
  const marker = '__bigint__';
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${marker}${v.toString()}` : v));
  return text.replace(new RegExp(`"${marker}(-?\\d+)"`, 'g'), '$1');
}

let nextSeq = 1;

export function makeExchange(opts: ExchangeOptions = {}): Exchange {
  const target = opts.target ?? '/pets';
  const headers: Record<string, string> = defaultHeaders();
  for (const [name, value] of Object.entries(opts.headers ?? {})) {
    if (value === undefined) delete headers[name.toLowerCase()];
    else headers[name.toLowerCase()] = value;
  }
  const bodyText = opts.body ?? (opts.json === undefined ? '[]' : toJson(opts.json));
  // As the client's recorder describes a body longer than evidence keeps.
  const whole = wholeBodyOf(bodyText);
  return {
    seq: opts.seq ?? nextSeq++,
    request: {
      method: opts.method ?? 'GET',
      url: `https://petstore.invalid/v1${target}`,
      target,
      headers: { authorization: 'Bearer <redacted>' },
      auth: opts.auth ?? 'key',
    },
    ...(opts.noResponse === true
      ? { error: { code: 'ETIMEDOUT', message: 'timed out' } }
      : { response: { status: opts.status ?? 200, headers, bodyText, truncated: opts.truncated ?? false, ...(whole === undefined ? {} : { whole }) } }),
    sentAt: opts.sentAt ?? NOW_MS - 50,
    elapsedMs: opts.elapsedMs ?? 50,
    purpose: opts.purpose ?? 'unit-test',
  };
}

export const pet = (id: number | bigint, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  id,
  name: `pet ${id}`,
  categoryId: 1,
  status: 'available',
  ...extra,
});

export const errorBody = (status: number, code = 'some_code'): Record<string, unknown> => ({ code, message: 'something', status });
