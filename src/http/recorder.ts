/**
 * Turns what the client sent and what came back into an Exchange, with the key and its near
 * misses (near-miss.ts) redacted from every part of it, so nothing built from the record can leak
 * them. A near-miss request's Authorization is recorded as a description of its token. The
 * gateway's headers (gateway-headers.ts) are recorded by name with GATEWAY_VALUE for their value,
 * and their values and the proxy's credentials are redacted wherever else they show.
 */
import type { Exchange, ProxyUse, RecordedRequest, RecordedResponse } from './exchange.js';
import type { PreparedRequest } from './prepare.js';
import { createRedactor, PROXY_SECRET, REDACTED } from './redact.js';
import { wholeBodyOf } from './kept-body.js';
import { firstIllFormedUtf8, showBytes } from './utf8.js';
import { describeNearMiss, nearMissesOf, nearMissOf } from './near-miss.js';
import { GATEWAY_VALUE, gatewaySecrets, type GatewayHeader } from './gateway-headers.js';
import type { TransportOutcome, WireResponse } from './transport.js';

/** When and in what order the request went out, as the client counted it. */
export interface SendTiming {
  seq: number;
  /** Unix ms at which the request was sent. */
  sentAt: number;
  elapsedMs: number;
  /** seq of the 429 exchange this one retries. */
  retryOf: number | undefined;
}

/** The secrets beside the key (the gateway's headers, the proxy's credentials), and the route a curl line must take. */
export interface RecorderOptions {
  gatewayHeaders?: readonly GatewayHeader[];
  proxySecrets?: readonly string[];
  proxy?: ProxyUse;
}

interface Secret {
  text: string;
  replacement: string;
}

export class ExchangeRecorder {
  private readonly redactors: Array<(text: string) => string>;
  /** Every secret with what replaces it, longest first (the longest cut-off tail wins). */
  private readonly secrets: Secret[];
  /** The gateway's headers by lower-case name: a request header with exactly this value was the gateway's. */
  private readonly gateway: ReadonlyMap<string, string>;
  private readonly proxy: ProxyUse | undefined;

  constructor(
    apiKey: string,
    private readonly origin: string,
    others: RecorderOptions = {},
  ) {
    const keys = [apiKey, ...nearMissesOf(apiKey).map((miss) => nearMissOf(apiKey, miss))];
    const gateway = gatewaySecrets(others.gatewayHeaders ?? []);
    const proxy = others.proxySecrets ?? [];
    // The key first: a header value that happens to contain it must not leave a part of it behind.
    this.redactors = [createRedactor(keys), ...(gateway.length === 0 ? [] : [createRedactor(gateway, GATEWAY_VALUE)]), ...(proxy.length === 0 ? [] : [createRedactor(proxy, PROXY_SECRET)])];
    this.secrets = [
      ...keys.map((text) => ({ text, replacement: REDACTED })),
      ...gateway.map((text) => ({ text, replacement: GATEWAY_VALUE })),
      ...proxy.map((text) => ({ text, replacement: PROXY_SECRET })),
    ].sort((a, b) => b.text.length - a.text.length);
    this.gateway = new Map((others.gatewayHeaders ?? []).map((h) => [h.name.toLowerCase(), h.value]));
    this.proxy = others.proxy;
  }

  redact(text: string): string {
    return this.redactors.reduce((out, redactor) => redactor(out), text);
  }

  toExchange(p: PreparedRequest, outcome: TransportOutcome, timing: SendTiming): Exchange {
    const exchange: Exchange = {
      seq: timing.seq,
      request: this.request(p),
      sentAt: timing.sentAt,
      elapsedMs: timing.elapsedMs,
      purpose: this.redact(p.purpose),
    };
    if (outcome.response !== undefined) exchange.response = this.response(outcome.response);
    if (outcome.failure !== undefined) exchange.error = { code: outcome.failure.kind, message: this.redact(outcome.failure.message) };
    if (timing.retryOf !== undefined) exchange.retryOf = timing.retryOf;
    return exchange;
  }

  private request(p: PreparedRequest): RecordedRequest {
    const request: RecordedRequest = {
      method: p.method,
      url: this.redact(`${this.origin}${p.path}`),
      target: this.redact(p.target),
      headers: Object.fromEntries(
        Object.entries(p.headers).map(([k, v]) => [k, this.requestHeader(p, k, v)]),
      ),
      auth: p.mode,
    };
    if (p.body !== undefined) Object.assign(request, this.requestBody(p.body));
    if (p.authTemplate !== undefined) request.authTemplate = p.authTemplate;
    if (this.proxy !== undefined) request.proxy = this.proxy;
    return request;
  }

  /**
   * A body sent as bytes is recorded as text when it is UTF-8; otherwise shown with its ill-formed
   * bytes as \xHH, and kept exactly in base64 (for curl lines and replay), unless a secret had to
   * be redacted from it: the base64 would still hold it.
   */
  private requestBody(body: string | Uint8Array): Pick<RecordedRequest, 'body' | 'bodyBase64'> {
    if (typeof body === 'string') return { body: this.redact(body) };
    if (firstIllFormedUtf8(body) === undefined) return { body: this.redact(new TextDecoder('utf-8', { ignoreBOM: true }).decode(body)) };
    const shown = showBytes(body);
    const redacted = this.redact(shown);
    return { body: redacted, ...(redacted === shown ? { bodyBase64: Buffer.from(body).toString('base64') } : {}) };
  }

  private requestHeader(p: PreparedRequest, name: string, value: string): string {
    if (name === 'authorization' && p.authTemplate?.encoding === 'near-miss') return `${p.authTemplate.prefix}${describeNearMiss(p.authTemplate.miss)}`;
    if (this.gateway.get(name) === value) return GATEWAY_VALUE;
    return this.redact(value);
  }

  private response(res: WireResponse): RecordedResponse {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(res.headers)) {
      // Names too: a hostile server can echo the key as a header name (it is a valid token).
      headers[this.redact(name)] = this.redact(value);
    }
    const bodyText = this.redactBody(res.bodyText, res.truncated);
    const whole = wholeBodyOf(bodyText);
    return {
      status: res.status,
      headers,
      bodyText,
      truncated: res.truncated,
      headersMs: Math.round(res.headersMs * 1000) / 1000,
      ...(whole === undefined ? {} : { whole }),
      ...(res.illFormedUtf8At === undefined ? {} : { illFormedUtf8At: res.illFormedUtf8At }),
    };
  }

  private redactBody(text: string, truncated: boolean): string {
    let out = this.redact(text);
    if (truncated) {
      // The cap may cut an echoed key (or near miss) in two; the first half must not survive either.
      const tail = (secret: string): number => {
        for (let len = Math.min(secret.length - 1, out.length); len >= 4; len--) if (out.endsWith(secret.slice(0, len))) return len;
        return 0;
      };
      let cut = 0;
      let replacement = REDACTED;
      for (const secret of this.secrets) {
        const length = tail(secret.text);
        if (length > cut) [cut, replacement] = [length, secret.replacement];
      }
      if (cut > 0) out = out.slice(0, out.length - cut) + replacement;
    }
    return out;
  }
}
