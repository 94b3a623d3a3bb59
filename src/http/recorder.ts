/**
 * Turns what the client sent and what came back into an Exchange, with the key and its near
 * misses (near-miss.ts) redacted from every part of it, so nothing built from the record can leak
 * them. A near-miss request's Authorization is recorded as a description of its token.
 */
import type { Exchange, RecordedRequest, RecordedResponse } from './exchange.js';
import type { PreparedRequest } from './prepare.js';
import { createRedactor, REDACTED } from './redact.js';
import { wholeBodyOf } from './kept-body.js';
import { describeNearMiss, nearMissesOf, nearMissOf } from './near-miss.js';
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

export class ExchangeRecorder {
  private readonly redactor: (text: string) => string;
  /** The key and its near misses, longest first (the longest cut-off tail wins). */
  private readonly secrets: string[];

  constructor(
    apiKey: string,
    private readonly origin: string,
  ) {
    this.secrets = [apiKey, ...nearMissesOf(apiKey).map((miss) => nearMissOf(apiKey, miss))].sort((a, b) => b.length - a.length);
    this.redactor = createRedactor(this.secrets);
  }

  redact(text: string): string {
    return this.redactor(text);
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
        Object.entries(p.headers).map(([k, v]) => [
          k,
          k === 'authorization' && p.authTemplate?.encoding === 'near-miss' ? `${p.authTemplate.prefix}${describeNearMiss(p.authTemplate.miss)}` : this.redact(v),
        ]),
      ),
      auth: p.mode,
    };
    if (p.body !== undefined) request.body = this.redact(p.body);
    if (p.authTemplate !== undefined) request.authTemplate = p.authTemplate;
    return request;
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
      const cut = Math.max(0, ...this.secrets.map(tail));
      if (cut > 0) out = out.slice(0, out.length - cut) + REDACTED;
    }
    return out;
  }
}
