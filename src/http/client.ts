/**
 * The one HTTP client every suite shares.
 *
 * It is deliberately conservative, because it may run against a customer's staging key that
 * a careless burst could get banned: a run-wide request budget, pacing on X-RateLimit-*,
 * at most one retry after a 429 (and only after Retry-After), no redirects (the key never
 * reaches another origin), bounded waits, and a halt after repeated transport failures.
 * Everything it sends is recorded as an Exchange with the key redacted.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { rootCertificates } from 'node:tls';
import { Agent } from 'undici';
import type { Dispatcher } from 'undici';
import { BudgetExhaustedError, RunHaltedError, TransportError } from './errors.js';
import type { HaltReason, TransportErrorKind } from './errors.js';
import type { AuthMode, AuthTemplate, Exchange, RecordedRequest, RecordedResponse } from './exchange.js';
import { createRedactor, REDACTED } from './redact.js';
import { parseRetryAfter } from './retry-after.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS';

export interface ClientOptions {
  /** May carry a path (".../v1"); request paths are appended to it, never replacing it. */
  baseUrl: string;
  apiKey: string;
  /** Per request: connect + headers + body. */
  timeoutMs: number;
  /** Response body cap; past it the connection is destroyed and the exchange is `truncated`. */
  maxBodyBytes: number;
  /** Run-wide budget, retries included: the (maxRequests+1)th send throws BudgetExhaustedError. */
  maxRequests: number;
  /** Longest single wait (default 65 000 ms); a longer one throws RunHaltedError instead. */
  maxWaitMs?: number;
  /**
   * Unix ms (on `now`) of the whole run's deadline: a send, retry or wait that would reach past
   * it throws RunHaltedError('deadline') without sending. Requests already in flight keep their
   * own timeout, so the run ends at most one timeout after the deadline.
   */
  deadlineAt?: number;
  /** Extra PEM CA, trusted in addition to the system roots. */
  ca?: string;
  onExchange?: (ex: Exchange) => void;
  onWait?: (ms: number, reason: string) => void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface CustomAuth {
  mode: AuthMode;
  /** The whole Authorization value, or undefined for no header. May contain the real key. */
  header: string | undefined;
}

export interface SendRequest {
  method: HttpMethod;
  /** "/pets" or "/pets/123", appended to the base URL's path as given (not re-encoded). */
  path: string;
  /** Ordered; names and values are percent-encoded here. An empty value gives "limit=". */
  query?: Array<[string, string]>;
  /** Raw body text, sent as is. */
  body?: string;
  contentType?: string;
  /**
   * Default 'key'. 'none': no Authorization. 'wrong-key': Bearer + a random key.
   * 'malformed' alone sends the key without a scheme; use the object form for other shapes.
   */
  auth?: AuthMode | CustomAuth;
  /** Extra request headers (not Authorization: use `auth`). */
  headers?: Record<string, string>;
  /** Requirement id or probe name, stored on the exchange. */
  purpose: string;
  /** Default true: wait for the window when X-RateLimit-Remaining is 0. */
  pace?: boolean;
  /** Default true: one retry after Retry-After. */
  retryOn429?: boolean;
}

export interface ClientStats {
  requests: number;
  keyedRequests: number;
  retries: number;
  waitedMs: number;
  /** 429 responses seen, whatever the auth mode. */
  throttled: number;
}

export interface RateLimitState {
  limit?: number;
  remaining?: number;
  /** X-RateLimit-Reset as the server sent it (Unix seconds per the spec). */
  reset?: number;
  /** Unix ms before which no request is sent, from the last 429's Retry-After (or fallback). */
  retryAfterUntil?: number;
}

export interface ConformanceClient {
  send(req: SendRequest): Promise<Exchange>;
  readonly exchanges: readonly Exchange[];
  readonly stats: Readonly<ClientStats>;
  readonly rateLimit: Readonly<RateLimitState>;
  /** Why the client stopped sending, once it has; every later send throws RunHaltedError. */
  readonly stopped: { reason: HaltReason; message: string } | undefined;
  remainingBudget(): number;
  redact(text: string): string;
  close(): Promise<void>;
}

const DEFAULT_MAX_WAIT_MS = 65_000;
/** Added to every computed deadline: server clocks and rounding of Reset/Retry-After to seconds. */
const WAIT_MARGIN_MS = 250;
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_CAP_MS = 32_000;
const MAX_CONSECUTIVE_TRANSPORT_FAILURES = 3;
const USER_AGENT = 'petstore-conformance/0.1.0';

const INVALID_PATH = /[^\u0021-\u00ff]/;
const INVALID_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const DIGITS = /^\d+$/;

export function createClient(options: ClientOptions): ConformanceClient {
  return new Client(options);
}

interface Prepared {
  method: HttpMethod;
  mode: AuthMode;
  /** Path + query relative to the base URL. */
  target: string;
  /** Path + query as sent to the origin. */
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  purpose: string;
  paced: boolean;
  retryOn429: boolean;
  authTemplate: AuthTemplate | undefined;
}

class Client implements ConformanceClient {
  private readonly origin: string;
  private readonly basePath: string;
  private readonly agent: Agent;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly maxBodyBytes: number;
  private readonly maxRequests: number;
  private readonly maxWaitMs: number;
  private readonly deadlineAt: number | undefined;
  private readonly onExchange: ((ex: Exchange) => void) | undefined;
  private readonly onWait: ((ms: number, reason: string) => void) | undefined;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly redactor: (text: string) => string;

  private readonly recorded: Exchange[] = [];
  private readonly counters: ClientStats = { requests: 0, keyedRequests: 0, retries: 0, waitedMs: 0, throttled: 0 };
  private readonly limits: RateLimitState = {};
  private seq = 0;
  private closed = false;
  private halted: RunHaltedError | undefined;
  private consecutiveTransportFailures = 0;
  private consecutive429 = 0;
  private inFlightKeyed = 0;
  /** X-RateLimit-Reset turned into Unix ms when it was observed. */
  private resetAtMs: number | undefined;
  /** The window we already waited out, so a stale Remaining=0 does not make us wait twice. */
  private waitedForResetAtMs: number | undefined;
  /** seq of the keyed response the window state comes from, and of the last 429. */
  private windowSeq = 0;
  private retryAfterSeq = 0;

  constructor(options: ClientOptions) {
    const base = new URL(options.baseUrl);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new TypeError(`baseUrl must be http or https, not ${base.protocol}`);
    }
    if (base.username !== '' || base.password !== '' || base.search !== '' || base.hash !== '') {
      throw new TypeError('baseUrl must not carry credentials, a query or a fragment');
    }
    if (options.apiKey === '' || INVALID_HEADER_VALUE.test(options.apiKey)) {
      throw new TypeError('apiKey must be a non-empty string usable in a header');
    }
    for (const [name, value] of [
      ['timeoutMs', options.timeoutMs],
      ['maxBodyBytes', options.maxBodyBytes],
      ['maxRequests', options.maxRequests],
    ] as const) {
      if (!Number.isFinite(value) || value < 0) throw new TypeError(`${name} must be a non-negative number`);
    }
    this.origin = base.origin;
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs;
    this.maxBodyBytes = options.maxBodyBytes;
    this.maxRequests = options.maxRequests;
    this.maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    this.deadlineAt = options.deadlineAt;
    this.onExchange = options.onExchange;
    this.onWait = options.onWait;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.redactor = createRedactor([options.apiKey]);
    this.agent = new Agent({
      // A `ca` option replaces Node's trust store, so the system roots are kept alongside the
      // private CA. Verification is pinned on: NODE_TLS_REJECT_UNAUTHORIZED=0 in a CI
      // environment must not silently send the key to an unverified server.
      connect: {
        timeout: options.timeoutMs,
        rejectUnauthorized: true,
        ...(options.ca !== undefined ? { ca: [...rootCertificates, options.ca] } : {}),
      },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  get exchanges(): readonly Exchange[] {
    return this.recorded;
  }

  get stats(): Readonly<ClientStats> {
    return { ...this.counters };
  }

  get rateLimit(): Readonly<RateLimitState> {
    return { ...this.limits };
  }

  get stopped(): { reason: HaltReason; message: string } | undefined {
    return this.halted === undefined ? undefined : { reason: this.halted.reason, message: this.halted.message };
  }

  remainingBudget(): number {
    return Math.max(0, this.maxRequests - this.counters.requests);
  }

  redact(text: string): string {
    return this.redactor(text);
  }

  async close(): Promise<void> {
    this.closed = true;
    // close() waits for in-flight requests; a hung server must not keep the run alive.
    let timer: NodeJS.Timeout | undefined;
    const graceful = this.agent.close().then(() => true);
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), 1_000);
    });
    const done = await Promise.race([graceful, late]);
    clearTimeout(timer);
    if (!done) await this.agent.destroy();
  }

  async send(req: SendRequest): Promise<Exchange> {
    const prepared = this.prepare(req);
    this.assertUsable();
    if (this.counters.requests >= this.maxRequests) throw new BudgetExhaustedError(this.maxRequests);
    await this.pace(prepared);
    const first = await this.dispatch(prepared, undefined);
    if (first.response?.status !== 429) return first;

    if (this.consecutive429 >= 2) {
      const halted = this.halt('throttled', `two 429 responses in a row (the last: exchange ${first.seq}); stopping so the key is not banned`);
      // The caller that asked for the raw 429 (the burst, the recovery probe) still gets its
      // evidence; only the sends after it are refused.
      if (!prepared.retryOn429) return first;
      throw halted;
    }
    if (!prepared.retryOn429) return first;

    const until = this.limits.retryAfterUntil ?? this.now();
    await this.wait(Math.max(0, until - this.now()) + WAIT_MARGIN_MS, `429 on exchange ${first.seq}: waiting before the single retry`);
    this.counters.retries++;
    const second = await this.dispatch(prepared, first.seq);
    if (second.response?.status === 429) {
      throw this.halt('throttled', `the retry after Retry-After got 429 again (exchanges ${first.seq} and ${second.seq}); stopping so the key is not banned`);
    }
    return second;
  }

  private assertUsable(): void {
    if (this.closed) throw new Error('the client is closed');
    if (this.halted) throw new RunHaltedError(this.halted.reason, this.halted.message);
    if (this.deadlineAt !== undefined && this.now() >= this.deadlineAt) {
      throw this.halt('deadline', `the run's deadline (${new Date(this.deadlineAt).toISOString()}) has passed; nothing more is sent`);
    }
  }

  private halt(reason: HaltReason, message: string): RunHaltedError {
    this.halted ??= new RunHaltedError(reason, message);
    return new RunHaltedError(reason, message);
  }

  private prepare(req: SendRequest): Prepared {
    const rawPath = req.path.startsWith('/') ? req.path : `/${req.path}`;
    const query =
      req.query && req.query.length > 0
        ? `?${req.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`
        : '';
    const target = `${rawPath}${query}`;
    const path = `${this.basePath}${target}`;
    if (INVALID_PATH.test(path)) {
      throw new TypeError(`path contains characters that cannot be sent: ${this.redact(JSON.stringify(req.path))}`);
    }

    const { mode, header } = this.resolveAuth(req.auth);
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': USER_AGENT };
    for (const [name, value] of Object.entries(req.headers ?? {})) {
      const lower = name.toLowerCase();
      if (lower === 'authorization') throw new TypeError('set Authorization through `auth`, not `headers`');
      headers[lower] = value;
    }
    if (req.contentType !== undefined) headers['content-type'] = req.contentType;
    if (header !== undefined) headers.authorization = header;
    for (const [name, value] of Object.entries(headers)) {
      if (!HEADER_NAME.test(name) || INVALID_HEADER_VALUE.test(value)) {
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
      authTemplate: header === undefined ? undefined : authTemplateOf(header, this.apiKey),
    };
  }

  private resolveAuth(auth: SendRequest['auth']): { mode: AuthMode; header: string | undefined } {
    if (typeof auth === 'object') return { mode: auth.mode, header: auth.header };
    switch (auth ?? 'key') {
      case 'key':
        return { mode: 'key', header: `Bearer ${this.apiKey}` };
      case 'none':
        return { mode: 'none', header: undefined };
      case 'wrong-key':
        // Shaped like a real key so a server cannot reject it on its format alone.
        return { mode: 'wrong-key', header: `Bearer ${randomBytes(24).toString('base64url')}` };
      case 'malformed':
        return { mode: 'malformed', header: this.apiKey };
    }
  }

  /** Waits out a pending Retry-After (for every send) and an exhausted window (paced keyed sends). */
  private async pace(p: Prepared): Promise<void> {
    const now = this.now();
    let until = 0;
    let reason = '';
    const retryAfterUntil = this.limits.retryAfterUntil;
    if (retryAfterUntil !== undefined && retryAfterUntil > now) {
      until = retryAfterUntil + WAIT_MARGIN_MS;
      reason = 'Retry-After of the last 429';
    }
    if (p.paced && p.mode === 'key' && this.windowExhausted(now) && this.resetAtMs !== undefined) {
      const windowEnd = this.resetAtMs + WAIT_MARGIN_MS;
      this.waitedForResetAtMs = this.resetAtMs;
      if (windowEnd > until) {
        until = windowEnd;
        reason = 'X-RateLimit-Remaining is 0 until X-RateLimit-Reset';
      }
    }
    if (until > now) await this.wait(until - now, reason);
  }

  private windowExhausted(now: number): boolean {
    const { remaining } = this.limits;
    if (remaining === undefined || this.resetAtMs === undefined) return false;
    if (this.resetAtMs <= now || this.waitedForResetAtMs === this.resetAtMs) return false;
    // A 429's Retry-After is the server's more specific instruction: once it has passed, the
    // Remaining=0 that came with the same 429 does not add a wait for the whole window.
    if (this.retryAfterSeq >= this.windowSeq && this.retryAfterSeq > 0) return false;
    return remaining - this.inFlightKeyed <= 0;
  }

  private async wait(ms: number, reason: string): Promise<void> {
    if (ms > this.maxWaitMs) {
      throw this.halt('wait-too-long', `would have to wait ${Math.ceil(ms)} ms (${reason}), more than the ${this.maxWaitMs} ms allowed`);
    }
    // Sleeping only to be refused at the deadline would waste the time the deadline bounds.
    if (this.deadlineAt !== undefined && this.now() + ms >= this.deadlineAt) {
      throw this.halt('deadline', `waiting ${Math.ceil(ms)} ms (${reason}) would pass the run's deadline (${new Date(this.deadlineAt).toISOString()}); nothing more is sent`);
    }
    if (ms <= 0) return;
    this.onWait?.(ms, reason);
    await this.sleep(ms);
    this.counters.waitedMs += ms;
  }

  private async dispatch(p: Prepared, retryOf: number | undefined): Promise<Exchange> {
    this.assertUsable();
    // Checked again right before sending: concurrent sends may have passed the first check.
    if (this.counters.requests >= this.maxRequests) throw new BudgetExhaustedError(this.maxRequests);
    this.counters.requests++;
    const keyed = p.mode === 'key';
    if (keyed) {
      this.counters.keyedRequests++;
      this.inFlightKeyed++;
    }
    const seq = ++this.seq;
    const sentAt = this.now();
    const started = performance.now();

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`no complete response within ${this.timeoutMs} ms`));
    }, this.timeoutMs);

    let response: RecordedResponse | undefined;
    let failure: { kind: TransportErrorKind; message: string } | undefined;
    try {
      const res = await this.agent.request({
        origin: this.origin,
        path: p.path,
        method: p.method,
        headers: p.headers,
        body: p.body ?? null,
        signal: controller.signal,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      const { bytes, truncated } = await readCapped(res.body, this.maxBodyBytes);
      response = {
        status: res.statusCode,
        headers: this.recordHeaders(res.headers),
        bodyText: this.redactBody(decodeUtf8(bytes, truncated), truncated),
        truncated,
      };
    } catch (err) {
      failure = classify(err, timedOut, this.timeoutMs);
    } finally {
      clearTimeout(timer);
      if (keyed) this.inFlightKeyed--;
    }

    const request: RecordedRequest = {
      method: p.method,
      url: this.redact(`${this.origin}${p.path}`),
      target: this.redact(p.target),
      headers: Object.fromEntries(Object.entries(p.headers).map(([k, v]) => [k, this.redact(v)])),
      auth: p.mode,
    };
    if (p.body !== undefined) request.body = this.redact(p.body);
    if (p.authTemplate !== undefined) request.authTemplate = p.authTemplate;

    const exchange: Exchange = {
      seq,
      request,
      sentAt,
      elapsedMs: Math.round((performance.now() - started) * 1000) / 1000,
      purpose: this.redact(p.purpose),
    };
    if (response !== undefined) exchange.response = response;
    if (failure !== undefined) exchange.error = { code: failure.kind, message: this.redact(failure.message) };
    if (retryOf !== undefined) exchange.retryOf = retryOf;

    this.record(exchange);
    this.observe(exchange);
    // State is updated before the callback so a throwing check cannot leave a 429 unremembered.
    this.onExchange?.(exchange);

    if (failure !== undefined) {
      const message = `${p.method} ${exchange.request.target}: ${exchange.error?.message ?? failure.kind}`;
      if (this.consecutiveTransportFailures >= MAX_CONSECUTIVE_TRANSPORT_FAILURES) {
        this.halt('transport', `${this.consecutiveTransportFailures} transport failures in a row, the last: ${message}`);
      }
      throw new TransportError(failure.kind, exchange, message);
    }
    return exchange;
  }

  private record(exchange: Exchange): void {
    // Concurrent sends may complete out of order; the record stays in seq order.
    let i = this.recorded.length;
    while (i > 0 && (this.recorded[i - 1]?.seq ?? 0) > exchange.seq) i--;
    this.recorded.splice(i, 0, exchange);
  }

  private observe(exchange: Exchange): void {
    const res = exchange.response;
    if (res === undefined) {
      this.consecutiveTransportFailures++;
      return;
    }
    this.consecutiveTransportFailures = 0;
    const now = this.now();

    if (exchange.request.auth === 'key') {
      const limit = parseCount(res.headers['x-ratelimit-limit']);
      const remaining = parseCount(res.headers['x-ratelimit-remaining']);
      const reset = parseCount(res.headers['x-ratelimit-reset']);
      // Missing or malformed values keep what we knew: forgetting a Remaining of 0 because a
      // proxy's error page lacks the headers would let the next request through.
      if (limit !== undefined) this.limits.limit = limit;
      if (remaining !== undefined) this.limits.remaining = remaining;
      if (reset !== undefined) {
        this.limits.reset = reset;
        this.resetAtMs = resetToMs(reset, now);
      }
      if (remaining !== undefined || reset !== undefined) this.windowSeq = exchange.seq;
    }

    if (res.status !== 429) {
      this.consecutive429 = 0;
      return;
    }
    this.counters.throttled++;
    this.consecutive429++;
    const backoff = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (this.counters.throttled - 1));
    const retryAfter = parseRetryAfter(res.headers['retry-after'], now);
    let delay = backoff;
    if (retryAfter !== undefined) {
      delay = Math.max(delay, retryAfter.delayMs);
    } else {
      const reset = parseCount(res.headers['x-ratelimit-reset']);
      if (reset !== undefined) delay = Math.max(delay, resetToMs(reset, now) - now);
    }
    this.limits.retryAfterUntil = now + delay;
    this.retryAfterSeq = exchange.seq;
  }

  private recordHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined) continue;
      const joined = Array.isArray(value) ? value.join(', ') : value;
      // Names too: a hostile server can echo the key as a header name (it is a valid token).
      out[this.redact(name.toLowerCase())] = this.redact(joined);
    }
    return out;
  }

  private redactBody(text: string, truncated: boolean): string {
    let out = this.redact(text);
    if (truncated) {
      // The cap may cut an echoed key in two; the first half must not survive either.
      for (let len = Math.min(this.apiKey.length - 1, out.length); len >= 4; len--) {
        if (out.endsWith(this.apiKey.slice(0, len))) {
          out = out.slice(0, out.length - len) + REDACTED;
          break;
        }
      }
    }
    return out;
  }
}

/** Reads at most `cap` bytes; past the cap the body is destroyed, which drops the connection. */
async function readCapped(
  body: Dispatcher.ResponseData['body'],
  cap: number,
): Promise<{ bytes: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of body) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      if (size + buf.length > cap) {
        chunks.push(buf.subarray(0, cap - size));
        size = cap;
        truncated = true;
        break;
      }
      chunks.push(buf);
      size += buf.length;
    }
  } finally {
    // undici keeps the connection busy until the body is consumed or destroyed.
    if (!body.destroyed) body.destroy();
  }
  return { bytes: Buffer.concat(chunks, size), truncated };
}

function decodeUtf8(bytes: Buffer, truncated: boolean): string {
  let end = bytes.length;
  if (truncated) {
    // Drop a multi-byte character the cap cut in half rather than show a replacement char.
    for (let i = end - 1; i >= Math.max(0, end - 4); i--) {
      const b = bytes[i] ?? 0;
      if ((b & 0xc0) === 0x80) continue;
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
      if (end - i < need) end = i;
      break;
    }
  }
  // ignoreBOM keeps a BOM in the text: it is evidence (JSON must not start with one).
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes.subarray(0, end));
}

function parseCount(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  return DIGITS.test(v) ? Number(v) : undefined;
}

/**
 * The spec says Unix seconds; a server sending milliseconds or a relative count of seconds
 * is judged by RATE-003, but the pacer still reads it the way that makes it wait, not hammer.
 */
function resetToMs(reset: number, now: number): number {
  if (reset >= 1e12) return reset;
  if (reset >= 1e9) return reset * 1000;
  return now + reset * 1000;
}

function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, cause, errors } = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') return code;
  // Happy-eyeballs connects fail with an AggregateError whose parts carry the code.
  if (Array.isArray(errors)) {
    for (const inner of errors) {
      const c = errorCode(inner);
      if (c !== undefined) return c;
    }
  }
  return cause === undefined ? undefined : errorCode(cause);
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const RESET_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_CLOSED', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH']);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME']);
const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_SIGNATURE_FAILURE',
  'CERT_REVOKED',
  'HOSTNAME_MISMATCH',
]);

function classify(err: unknown, timedOut: boolean, timeoutMs: number): { kind: TransportErrorKind; message: string } {
  const code = errorCode(err);
  const detail = err instanceof Error ? err.message : String(err);
  const label = code === undefined ? detail : `${code} ${detail}`;
  if (timedOut) return { kind: 'timeout', message: `timeout: no complete response within ${timeoutMs} ms` };
  if (code !== undefined && TIMEOUT_CODES.has(code)) {
    return { kind: 'timeout', message: `timeout: no complete response within ${timeoutMs} ms (${label})` };
  }
  if (code === 'ECONNREFUSED') return { kind: 'refused', message: `refused: ${label}` };
  if (code !== undefined && DNS_CODES.has(code)) return { kind: 'dns', message: `dns: ${label}` };
  if (code !== undefined && RESET_CODES.has(code)) return { kind: 'reset', message: `reset: ${label}` };
  if (code !== undefined && (TLS_CODES.has(code) || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_'))) {
    return { kind: 'tls', message: `tls: ${label}` };
  }
  return { kind: 'other', message: `other: ${label}` };
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
