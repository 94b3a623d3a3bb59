/**
 * An Exchange is one request the suite sent and what came back, as recorded by the shared
 * client. It is the unit every check reads and every report cites as evidence.
 *
 * Recorded exchanges are already redacted: the API key never reaches this structure, so
 * anything built from it (evidence, curl lines, reports) is safe to print.
 */
import type { NearMiss } from './near-miss.js';

/** How the request authenticated: the checks need this to know which rate-limit bucket applies. */
export type AuthMode =
  | 'key' // Authorization: Bearer <the run's key>
  | 'none' // no Authorization header
  | 'wrong-key' // Bearer <a key the service did not issue>
  | 'near-miss' // Bearer <the run's key one edit away>: a wrong key, recorded only by its kind
  | 'malformed'; // the run's key, or nothing, in a malformed header

export interface RecordedRequest {
  method: string;
  /** Absolute URL, as sent (query included). */
  url: string;
  /** Path and query relative to the base URL, e.g. "/pets?limit=5". */
  target: string;
  /** Header names lower-cased; the key is replaced by "<redacted>". */
  headers: Record<string, string>;
  /** Request body as sent, redacted; undefined when none. A body that is not UTF-8 shows each ill-formed byte as \xHH (utf8.ts). */
  body?: string;
  /** The exact bytes of a body that is not UTF-8, base64; absent for a text body (`body` is then exact). */
  bodyBase64?: string;
  auth: AuthMode;
  /**
   * Where the run's key stood in the Authorization value, so a curl line can put
   * $PETSTORE_API_KEY back in its place (the recorded header only says "<redacted>").
   * Absent when the header carried no key.
   */
  authTemplate?: AuthTemplate;
  /** How it reached the target when that was not simply direct (see ProxyUse): for curl lines only, never in a report. */
  proxy?: ProxyUse;
}

/**
 * The route a curl line must take to reproduce a request: through the proxy an environment
 * variable names (`--proxy "$HTTPS_PROXY"`), through one given as an option (its URL, without
 * credentials, which the line cannot hold), or direct although the environment names a proxy
 * (`--proxy ''` was given: `--noproxy '*'`).
 */
export type ProxyUse = { variable: string } | { url: string; credentials: boolean } | { direct: true };

/**
 * The Authorization value as sent, with the key taken out.
 * 'raw': the value is parts.join(key). 'base64': the value is
 * prefix + base64(plain.join(key)) + suffix, as in a Basic credential "x:<key>".
 * 'near-miss': the value is prefix + nearMissOf(key, miss) (near-miss.ts).
 */
export type AuthTemplate =
  | { encoding: 'raw'; parts: string[] }
  | { encoding: 'near-miss'; prefix: string; miss: NearMiss }
  | {
      encoding: 'base64';
      prefix: string;
      plain: string[];
      suffix: string;
      alphabet: 'base64' | 'base64url';
      /** Whether the token kept its trailing "=" padding. */
      padded: boolean;
    };

export interface RecordedResponse {
  status: number;
  /** Header names lower-cased; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /**
   * Body decoded as UTF-8, at most the body cap; redacted. In the run's record
   * (`ConformanceClient.exchanges`) only its first EVIDENCE_BODY_CHARS characters when it was
   * longer (kept-body.ts): `whole` then says what the whole body was.
   */
  bodyText: string;
  /** True when the body was cut at the body cap. */
  truncated: boolean;
  /** Set when the body is longer than evidence keeps (EVIDENCE_BODY_CHARS): its length and digest, which outlive the body. */
  whole?: WholeBody;
  /** ms from sending to the response's headers (the time to first byte); the exchange's elapsedMs includes reading the body. */
  headersMs?: number;
  /** Byte offset of the first byte of the body that is not UTF-8, when there is one (bodyText shows it as U+FFFD). */
  illFormedUtf8At?: number;
}

/** A body as received (up to the cap), decoded and redacted: what stays known of it once only its first part is kept. */
export interface WholeBody {
  chars: number;
  /** UTF-8 bytes. */
  bytes: number;
  /** SHA-256 of those bytes, lower-case hex. */
  sha256: string;
}

export interface Exchange {
  /** 1-based order in the run. */
  seq: number;
  request: RecordedRequest;
  /** Absent when no response came (timeout, reset, refused...). */
  response?: RecordedResponse;
  /** Transport failure, when there is no response. */
  error?: { code: string; message: string };
  /** Unix ms at which the request was sent. */
  sentAt: number;
  elapsedMs: number;
  /** Requirement or probe that sent it, for evidence ("LIST-003", "census"). */
  purpose: string;
  /** seq of the 429 exchange this one retries (the client's single retry after Retry-After). */
  retryOf?: number;
}
