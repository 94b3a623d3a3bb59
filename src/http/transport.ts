/**
 * One HTTP request over undici, as the conformance client needs it: a hard per-request timeout
 * (connect + headers + body), no redirects (undici's Agent follows none, so the key never reaches
 * another origin), the body read up to a byte cap, and every failure classified instead of thrown.
 * It knows nothing of keys, budgets or rate limits.
 */
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { rootCertificates } from 'node:tls';
// The Agent and the request API straight from their modules: undici's index also loads fetch,
// WebSocket, caches, mocks and proxies, ~9 MB of memory in the suite's worker that a run never uses.
// undici is pinned to 7.x (package.json), whose layout these paths follow.
import Agent from 'undici/lib/dispatcher/agent.js';
import request from 'undici/lib/api/api-request.js';
import type { buildConnector, Dispatcher, Pool as PoolType, ProxyAgent as ProxyAgentType } from 'undici';
import type { TransportErrorKind } from './errors.js';
import { firstIllFormedUtf8 } from './utf8.js';

const require = createRequire(import.meta.url);

/** A client certificate for mutual TLS: PEM texts, already checked to belong together (src/api/client-identity.ts). */
export interface ClientCertificate {
  cert: string;
  key: string;
  passphrase?: string;
}

/** The proxy every request is tunnelled through (CONNECT), and its Proxy-Authorization when it has credentials. */
export interface TransportProxy {
  url: string;
  authorization?: string;
}

export interface TransportOptions {
  origin: string;
  timeoutMs: number;
  /** Past it the connection is destroyed and the response is `truncated`. */
  maxBodyBytes: number;
  /** Extra PEM CA, trusted in addition to the system roots (the target's, and an https proxy's). */
  ca?: string | undefined;
  proxy?: TransportProxy | undefined;
  clientCertificate?: ClientCertificate | undefined;
}

export interface WireRequest {
  method: Dispatcher.HttpMethod;
  /** Path + query as sent to the origin. */
  path: string;
  headers: Record<string, string>;
  /** Text is sent as UTF-8; bytes exactly as given (a body that is not UTF-8 on purpose). */
  body: string | Uint8Array | undefined;
}

export interface WireResponse {
  status: number;
  /** Names lower-cased; repeated headers joined with ", ". Not redacted. */
  headers: Record<string, string>;
  /** At most the byte cap, decoded as UTF-8 (an ill-formed byte as U+FFFD). Not redacted. */
  bodyText: string;
  /** Byte offset of the first byte that is not UTF-8, when there is one: bodyText shows it as U+FFFD. */
  illFormedUtf8At?: number;
  truncated: boolean;
  /** ms from sending the request to its response's headers (the rest of the time read the body). */
  headersMs: number;
}

export interface TransportFailure {
  kind: TransportErrorKind;
  message: string;
}

export type TransportOutcome = { response: WireResponse; failure?: undefined } | { response?: undefined; failure: TransportFailure };

/** TLS options of a connection: verification pinned on, the extra CA beside the system roots. */
function tlsOptions(timeoutMs: number, ca: string | undefined): { timeout: number; rejectUnauthorized: true; ca?: string[] } {
  // A `ca` option replaces Node's trust store, so the system roots are kept alongside the
  // private CA. Verification is pinned on: NODE_TLS_REJECT_UNAUTHORIZED=0 in a CI
  // environment must not silently send the key to an unverified server.
  return { timeout: timeoutMs, rejectUnauthorized: true, ...(ca !== undefined ? { ca: [...rootCertificates, ca] } : {}) };
}

/**
 * The connector of the proxy's connection, with no server name (SNI) when the proxy is reached by
 * an IP address. undici's ProxyAgent gives the connection to an https proxy its URL's host name as
 * servername, an address too (`[::1]` brackets and all), which RFC 6066 forbids in SNI, Node warns
 * of on stderr, and Node then checks the proxy's certificate against: `[::1]` matches no
 * certificate. Without one, Node checks the certificate against the host connected to, the address.
 */
function withoutAddressServername(connect: buildConnector.connector): buildConnector.connector {
  return (options, callback) => {
    const { servername, ...rest } = options;
    // undici passes null where its types say string | undefined (a proxy reached over plain http).
    const address = typeof servername === 'string' && isIP(servername.replace(/^\[|\]$/g, '')) !== 0;
    connect(address ? rest : options, callback);
  };
}

/**
 * The dispatcher of a run. Through a proxy, every request goes through a CONNECT tunnel, an http
 * target's too (where curl would forward it): so nothing the proxy says (a 407, a 502 when it
 * cannot reach the target, a cached answer) can ever be taken for the server's response, and the
 * bytes the server gets are the ones the suite sent. ProxyAgent is loaded only then: undici's
 * proxy modules cost memory a direct run does not need.
 */
function createDispatcher(options: TransportOptions): Dispatcher {
  const { timeoutMs, proxy, clientCertificate } = options;
  const targetTls = { ...tlsOptions(timeoutMs, options.ca), ...(clientCertificate ?? {}) };
  const timeouts = { headersTimeout: timeoutMs, bodyTimeout: timeoutMs };
  if (proxy === undefined) return new Agent({ connect: targetTls, ...timeouts });
  const ProxyAgent = require('undici/lib/dispatcher/proxy-agent.js') as typeof ProxyAgentType;
  const Pool = require('undici/lib/dispatcher/pool.js') as typeof PoolType;
  // undici's index gives every dispatcher its API methods; loaded module by module, the proxy's
  // connection needs the one ProxyAgent calls on it, connect (the CONNECT request).
  const connect = require('undici/lib/api/api-connect.js') as PoolType['connect'];
  return new ProxyAgent({
    uri: proxy.url,
    ...(proxy.authorization === undefined ? {} : { token: proxy.authorization }),
    requestTls: targetTls,
    proxyTls: tlsOptions(timeoutMs, options.ca),
    // The connection to the proxy gets the run's timeouts too: a proxy that never answers CONNECT must not hold a request longer.
    clientFactory: (origin, opts) => {
      const { connect: connector, ...rest } = opts as PoolType.Options & { connect: buildConnector.connector };
      return Object.assign(new Pool(origin, { ...rest, connect: withoutAddressServername(connector), ...timeouts }), { connect });
    },
    ...timeouts,
  });
}

/** The abort reason of requests cut off by `abortInFlight`, told apart from a timeout by identity. */
const STOPPED = new Error('the run was stopped before the answer came');

export class Transport {
  private readonly agent: Dispatcher;
  /** The controllers of the requests in flight, so a stop can cut off the ones whose answer is late. */
  private readonly inFlight = new Set<AbortController>();

  constructor(private readonly options: TransportOptions) {
    this.agent = createDispatcher(options);
  }

  /** Never rejects: a request that gets no complete response resolves to a classified failure. */
  async send(req: WireRequest): Promise<TransportOutcome> {
    const { origin, timeoutMs, maxBodyBytes } = this.options;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`no complete response within ${timeoutMs} ms`));
    }, timeoutMs);
    const started = performance.now();
    this.inFlight.add(controller);

    try {
      const res = await request.call(this.agent, {
        origin,
        path: req.path,
        method: req.method,
        // A copy: the proxy agent adds a Host header to the object it is given, which is the record's.
        headers: { ...req.headers },
        body: req.body ?? null,
        signal: controller.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const headersMs = performance.now() - started;
      const { bytes, truncated } = await readCapped(res.body, maxBodyBytes);
      return {
        response: { status: res.statusCode, headers: joinHeaders(res.headers), ...decodeUtf8(bytes, truncated), truncated, headersMs },
      };
    } catch (err) {
      if (controller.signal.reason === STOPPED) return { failure: { kind: 'stopped', message: `stopped: ${STOPPED.message}` } };
      return { failure: classify(err, timedOut, timeoutMs) };
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(controller);
    }
  }

  /** Cuts off every request still in flight: each resolves to a 'stopped' failure. */
  abortInFlight(): void {
    for (const controller of this.inFlight) controller.abort(STOPPED);
  }

  async close(): Promise<void> {
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
}

function joinHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
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

/** The body as text, and where its bytes were not UTF-8 (a cut at the cap is not). */
function decodeUtf8(bytes: Buffer, truncated: boolean): Pick<WireResponse, 'bodyText' | 'illFormedUtf8At'> {
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
  const kept = bytes.subarray(0, end);
  const illFormedUtf8At = firstIllFormedUtf8(kept);
  // ignoreBOM keeps a BOM in the text: it is evidence (JSON must not start with one).
  return { bodyText: new TextDecoder('utf-8', { ignoreBOM: true }).decode(kept), ...(illFormedUtf8At === undefined ? {} : { illFormedUtf8At }) };
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

function classify(err: unknown, timedOut: boolean, timeoutMs: number): TransportFailure {
  const code = errorCode(err);
  const detail = err instanceof Error ? err.message : String(err);
  const label = code === undefined ? detail : `${code} ${detail}`;
  if (timedOut) return { kind: 'timeout', message: `timeout: no complete response within ${timeoutMs} ms` };
  // undici's words when the proxy refuses the tunnel: the proxy's answer, never the server's.
  const refusedTunnel = /Proxy response \((\d+)\) !== 200/.exec(detail);
  if (refusedTunnel !== null) return { kind: 'other', message: `proxy: the proxy answered ${refusedTunnel[1]} to CONNECT instead of opening a tunnel to the target` };
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
