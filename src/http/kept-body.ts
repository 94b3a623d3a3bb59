/**
 * What the run keeps of a response body once its exchange was judged. The checks read the whole
 * body (up to the client's cap) as it arrives; the run's record (`ConformanceClient.exchanges`),
 * which lives as long as the run, keeps only what evidence, report.json and the exchange log show:
 * the first EVIDENCE_BODY_CHARS characters, with the whole body's length and SHA-256. So a server
 * that answers every request with megabytes costs the run one body at a time, not one per request.
 */
import { createHash } from 'node:crypto';
import type { Exchange, RecordedResponse, WholeBody } from './exchange.js';

/** Evidence keeps bodies short: enough to see what was wrong, never megabytes in a report or in the run's memory. */
export const EVIDENCE_BODY_CHARS = 2_000;

/**
 * The first EVIDENCE_BODY_CHARS characters, never ending in half a surrogate pair, as a string of
 * their own: V8's slice of a long string shares (and keeps alive) the whole string, so evidence or
 * a record holding a slice would keep every megabyte body it means to let go.
 */
export function bodyHead(text: string): string {
  if (text.length <= EVIDENCE_BODY_CHARS) return text;
  const last = text.charCodeAt(EVIDENCE_BODY_CHARS - 1);
  const head = text.slice(0, last >= 0xd800 && last <= 0xdbff ? EVIDENCE_BODY_CHARS - 1 : EVIDENCE_BODY_CHARS);
  return JSON.parse(JSON.stringify(head)) as string;
}

/** The whole body's size and digest, for a body longer than what evidence keeps; undefined for a shorter one. */
export function wholeBodyOf(text: string): WholeBody | undefined {
  if (text.length <= EVIDENCE_BODY_CHARS) return undefined;
  return { chars: text.length, bytes: Buffer.byteLength(text), sha256: createHash('sha256').update(text, 'utf8').digest('hex') };
}

/** Characters of the whole body, whether `bodyText` still holds it or only its first part. */
export function bodyChars(res: RecordedResponse): number {
  return res.whole?.chars ?? res.bodyText.length;
}

/** UTF-8 bytes of the whole body (as recorded: decoded and redacted), whether or not `bodyText` still holds it. */
export function bodyBytes(res: RecordedResponse): number {
  return res.whole?.bytes ?? Buffer.byteLength(res.bodyText);
}

/** True when `bodyText` is only the first part of the body: the exchange comes from the run's record, after judging. */
export function bodyCut(res: RecordedResponse): boolean {
  return bodyChars(res) > res.bodyText.length;
}

/** The exchange as the run's record keeps it: the response body cut to its first EVIDENCE_BODY_CHARS characters. */
export function keptExchange(ex: Exchange): Exchange {
  const res = ex.response;
  if (res === undefined || res.whole === undefined) return ex;
  return { ...ex, response: { ...res, bodyText: bodyHead(res.bodyText) } };
}
