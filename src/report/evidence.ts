import { toCurl } from '../http/curl.js';
import type { Exchange } from '../http/exchange.js';
import type { ExchangeEvidence, LoggedExchange } from './types.js';

/** Evidence keeps bodies short: enough to see what was wrong, never megabytes in a report. */
export const EVIDENCE_BODY_CHARS = 2_000;

/** The first EVIDENCE_BODY_CHARS characters, never ending in half a surrogate pair. */
function head(text: string): string {
  if (text.length <= EVIDENCE_BODY_CHARS) return text;
  const last = text.charCodeAt(EVIDENCE_BODY_CHARS - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? EVIDENCE_BODY_CHARS - 1 : EVIDENCE_BODY_CHARS);
}

function excerpt(text: string): string {
  const kept = head(text);
  return kept.length === text.length ? text : `${kept}… (${text.length - kept.length} more characters)`;
}

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
      ...(request.body === undefined ? {} : { body: head(request.body), bodySize: Buffer.byteLength(request.body) }),
    },
    ...(response === undefined
      ? {}
      : {
          response: {
            status: response.status,
            headers: response.headers,
            body: head(response.bodyText),
            bodySize: Buffer.byteLength(response.bodyText),
            truncated: response.truncated,
            ...(response.headersMs === undefined ? {} : { headersMs: response.headersMs }),
          },
        }),
    ...(ex.error === undefined ? {} : { error: ex.error }),
  };
}

/** An exchange as report evidence. The exchange is already redacted by the client. */
export function exchangeEvidence(ex: Exchange): ExchangeEvidence {
  return {
    seq: ex.seq,
    purpose: ex.purpose,
    request: {
      method: ex.request.method,
      url: ex.request.url,
      headers: ex.request.headers,
      ...(ex.request.body === undefined ? {} : { body: excerpt(ex.request.body) }),
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
            body: excerpt(ex.response.bodyText),
            truncated: ex.response.truncated,
          },
        }),
    ...(ex.error === undefined ? {} : { error: ex.error }),
    elapsedMs: ex.elapsedMs,
    curl: toCurl(ex),
  };
}
