/**
 * exchanges.har: every request of the run as an HTTP Archive (HAR 1.2), in send order, for the
 * tools auditors and implementers already have (browser developer tools, proxies, API clients).
 * http://www.softwareishard.com/blog/har-12-spec/
 *
 * Rendered from `Report.exchanges` (kept when the run was asked for it), so a saved report.json
 * renders the same archive again. What the log does not know is said the HAR way: -1 for the
 * timings and sizes not measured, a comment where a body was cut.
 */
import { EVIDENCE_BODY_CHARS } from '../evidence.js';
import type { LoggedExchange, Report } from '../types.js';

interface HarRecord {
  name: string;
  value: string;
}

interface HarContent {
  size: number;
  mimeType: string;
  text?: string;
  comment?: string;
}

interface HarEntry {
  pageref: string;
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: HarRecord[];
    headers: HarRecord[];
    queryString: HarRecord[];
    postData?: { mimeType: string; text: string; comment?: string };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: HarRecord[];
    headers: HarRecord[];
    content: HarContent;
    redirectURL: string;
    headersSize: number;
    bodySize: number;
    /** Why no response came (Chrome's own extension field). */
    _error?: string;
  };
  cache: Record<string, never>;
  timings: { blocked: number; dns: number; connect: number; ssl: number; send: number; wait: number; receive: number };
  comment: string;
}

/** undici speaks HTTP/1.1; the log does not record the reason phrase, so statusText stays empty. */
const HTTP_VERSION = 'HTTP/1.1';

function headerList(headers: Record<string, string>): HarRecord[] {
  return Object.entries(headers).map(([name, value]) => ({ name, value }));
}

function queryOf(url: string): HarRecord[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

/** The note on a body the log keeps only in part. */
function cutNote(text: string, size: number, capped: boolean, sha256?: string): string | undefined {
  const notes: string[] = [];
  if (capped) notes.push(`the client stopped reading at its body cap: the server sent more than these ${size} bytes`);
  if (Buffer.byteLength(text) < size) {
    const digest = sha256 === undefined ? '' : `; SHA-256 of the whole body ${sha256}`;
    notes.push(`body cut to its first ${text.length} characters of ${size} bytes, as in report.json (limit ${EVIDENCE_BODY_CHARS} characters${digest})`);
  }
  return notes.length === 0 ? undefined : notes.join('; ');
}

function comment(ex: LoggedExchange): string {
  const parts = [`#${ex.seq} ${ex.purpose}`];
  if (ex.retryOf !== undefined) parts.push(`retry after the 429 of #${ex.retryOf}`);
  if (ex.error !== undefined) parts.push(`no response: ${ex.error.message}`);
  return parts.join(': ');
}

function request(ex: LoggedExchange): HarEntry['request'] {
  const { method, url, headers, body, bodySize, bodyBase64 } = ex.request;
  // HAR's postData holds text only: bytes that are not UTF-8 are shown as \xHH, and given exactly here.
  const bytes = bodyBase64 === undefined ? [] : [`not UTF-8: each ill-formed byte is shown as \\xHH; the exact bytes, base64: ${bodyBase64}`];
  const notes = [...(body === undefined ? [] : [cutNote(body, bodySize ?? 0, false)]), ...bytes].filter((n) => n !== undefined);
  const note = notes.length === 0 ? undefined : notes.join('; ');
  return {
    method,
    url,
    httpVersion: HTTP_VERSION,
    cookies: [],
    headers: headerList(headers),
    queryString: queryOf(url),
    ...(body === undefined ? {} : { postData: { mimeType: headers['content-type'] ?? '', text: body, ...(note === undefined ? {} : { comment: note }) } }),
    headersSize: -1,
    bodySize: bodySize ?? 0,
  };
}

function response(ex: LoggedExchange): HarEntry['response'] {
  const res = ex.response;
  if (res === undefined) {
    return {
      status: 0,
      statusText: '',
      httpVersion: '',
      cookies: [],
      headers: [],
      content: { size: 0, mimeType: 'x-unknown' },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
      _error: ex.error?.message ?? 'no response',
    };
  }
  const note = cutNote(res.body, res.bodySize, res.truncated, res.bodySha256);
  return {
    status: res.status,
    statusText: '',
    httpVersion: HTTP_VERSION,
    cookies: [],
    headers: headerList(res.headers),
    content: { size: res.bodySize, mimeType: res.headers['content-type'] ?? '', text: res.body, ...(note === undefined ? {} : { comment: note }) },
    redirectURL: res.headers['location'] ?? '',
    headersSize: -1,
    bodySize: res.bodySize,
  };
}

/** The client measures the time to the response's headers and the whole exchange; connect, DNS and TLS are inside `wait`. */
function timings(ex: LoggedExchange): HarEntry['timings'] {
  const wait = Math.min(ex.response?.headersMs ?? ex.elapsedMs, ex.elapsedMs);
  return { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait, receive: Math.round((ex.elapsedMs - wait) * 1000) / 1000 };
}

function entry(ex: LoggedExchange, pageref: string): HarEntry {
  return {
    pageref,
    startedDateTime: new Date(ex.sentAt).toISOString(),
    time: ex.elapsedMs,
    request: request(ex),
    response: response(ex),
    cache: {},
    timings: timings(ex),
    comment: comment(ex),
  };
}

/** A report without the log (its run did not keep one) renders an archive with no entries that says so. */
export function renderHar(report: Report): string {
  const pageref = `run-${report.runId}`;
  const har = {
    log: {
      version: '1.2',
      creator: { name: report.tool.name, version: report.tool.version },
      pages: [
        {
          startedDateTime: report.startedAt,
          id: pageref,
          title: `${report.tool.name} run ${report.runId} against ${report.target.baseUrl} (seed ${report.seed})`,
          pageTimings: { onContentLoad: -1, onLoad: -1 },
          comment: report.verdictLine,
        },
      ],
      entries: (report.exchanges ?? []).map((ex) => entry(ex, pageref)),
      comment:
        report.exchanges === undefined
          ? 'The report this was rendered from holds no exchange log: run with --reporter har (library: exchangeLog: true) to keep one.'
          : `Every request of the run, in send order; each entry's comment names the requirement or probe that sent it. ` +
            `The API key reads <redacted>; bodies are kept up to ${EVIDENCE_BODY_CHARS} characters.`,
    },
  };
  return `${JSON.stringify(har, null, 2)}\n`;
}
