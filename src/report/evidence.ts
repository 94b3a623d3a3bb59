import { toCurl } from '../http/curl.js';
import type { Exchange } from '../http/exchange.js';
import type { ExchangeEvidence } from './types.js';

/** Evidence keeps bodies short: enough to see what was wrong, never megabytes in a report. */
export const EVIDENCE_BODY_CHARS = 2_000;

function excerpt(text: string): string {
  return text.length <= EVIDENCE_BODY_CHARS ? text : `${text.slice(0, EVIDENCE_BODY_CHARS)}… (${text.length - EVIDENCE_BODY_CHARS} more characters)`;
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
