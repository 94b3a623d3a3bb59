import { toCurl } from '../http/curl.js';
import type { Exchange, RecordedResponse } from '../http/exchange.js';
import { bodyBytes, bodyChars, bodyHead as head, EVIDENCE_BODY_CHARS } from '../http/kept-body.js';
import type { ExchangeEvidence, LoggedExchange } from './types.js';

export { EVIDENCE_BODY_CHARS };

/** The first EVIDENCE_BODY_CHARS characters of a body of `chars` characters, and how many more there were. */
function excerpt(text: string, chars = text.length): string {
  const kept = head(text);
  return kept.length === chars ? kept : `${kept}… (${chars - kept.length} more characters)`;
}

/** The whole body's digest, for a body evidence shows only the first part of. */
function digestOf(res: RecordedResponse): { bodySha256: string } | Record<string, never> {
  return res.whole === undefined ? {} : { bodySha256: res.whole.sha256 };
}

/** Bytes of a body sent: its exact bytes when it was not UTF-8, else its text's. */
const sentBytes = (body: string, base64: string | undefined): number => (base64 === undefined ? Buffer.byteLength(body) : Buffer.from(base64, 'base64').length);

/**
 * An exchange as the run's exchange log keeps it (Report.exchanges): its timings, and bodies cut
 * to the evidence's limit with their whole size, so the log stays small whatever the target sends.
 */
export function loggedExchange(ex: Exchange): LoggedExchange {
  const { request, response } = ex;
  return {
    seq: ex.seq,
    purpose: ex.purpose,
    sentAt: ex.sentAt,
    elapsedMs: ex.elapsedMs,
    ...(ex.retryOf === undefined ? {} : { retryOf: ex.retryOf }),
    request: {
      method: request.method,
      url: request.url,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: head(request.body), bodySize: sentBytes(request.body, request.bodyBase64) }),
      ...(request.bodyBase64 === undefined ? {} : { bodyBase64: request.bodyBase64 }),
    },
    ...(response === undefined
      ? {}
      : {
          response: {
            status: response.status,
            headers: response.headers,
            body: head(response.bodyText),
            bodySize: bodyBytes(response),
            ...digestOf(response),
            truncated: response.truncated,
            ...(response.headersMs === undefined ? {} : { headersMs: response.headersMs }),
          },
        }),
    ...(ex.error === undefined ? {} : { error: ex.error }),
  };
}

/**
 * An exchange as report evidence: the same from the exchange a check judged and from the run's
 * record of it (its body already cut, kept-body.ts). The exchange is already redacted by the client.
 */
export function exchangeEvidence(ex: Exchange): ExchangeEvidence {
  return {
    seq: ex.seq,
    purpose: ex.purpose,
    request: {
      method: ex.request.method,
      url: ex.request.url,
      headers: ex.request.headers,
      ...(ex.request.body === undefined ? {} : { body: excerpt(ex.request.body) }),
      ...(ex.request.bodyBase64 === undefined ? {} : { bodyBase64: ex.request.bodyBase64 }),
      target: ex.request.target,
      auth: ex.request.auth,
      ...(ex.request.authTemplate === undefined ? {} : { authTemplate: ex.request.authTemplate }),
      ...(ex.request.body !== undefined && ex.request.body.length > EVIDENCE_BODY_CHARS ? { bodyTruncated: true as const } : {}),
    },
    ...(ex.response === undefined
      ? {}
      : {
          response: {
            status: ex.response.status,
            headers: ex.response.headers,
            body: excerpt(ex.response.bodyText, bodyChars(ex.response)),
            ...digestOf(ex.response),
            truncated: ex.response.truncated,
          },
        }),
    ...(ex.error === undefined ? {} : { error: ex.error }),
    elapsedMs: ex.elapsedMs,
    curl: toCurl(ex),
  };
}
