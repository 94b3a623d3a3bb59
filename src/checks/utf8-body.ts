/**
 * MEDIA-001 on the bytes: every response body is JSON (spec section 1), and JSON exchanged between
 * systems is UTF-8 (RFC 8259 section 8.1). The transport finds the first ill-formed byte on the
 * raw bytes before any decoding (`illFormedUtf8At`, src/http/utf8.ts); this is the one reading of
 * it, which says where the bytes broke and, in a listing or a Pet, whose pet they belong to.
 */
import type { Exchange } from '../http/exchange.js';
import { isJsonObject } from '../interface/json.js';
import { jsonBody } from './body.js';
import { observation, violation, type Finding } from './finding.js';
import { idKey } from './pet-shape.js';

const REQ = 'MEDIA-001';

/** The character of `text` at which its UTF-8 encoding reaches `byteOffset` (the text before it is well-formed, so exact). */
function charAtByte(text: string, byteOffset: number): number {
  let bytes = 0;
  let i = 0;
  while (i < text.length && bytes < byteOffset) {
    const code = text.codePointAt(i) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    i += code >= 0x10000 ? 2 : 1;
  }
  return i;
}

/** Index of the item of the top-level JSON array that holds character `at`, or undefined when none does. */
export function arrayItemAt(text: string, at: number): number | undefined {
  let depth = 0;
  let item = 0;
  let inString = false;
  let escaped = false;
  let started = false;
  for (let i = 0; i < text.length && i <= at; i++) {
    const c = text.charAt(i);
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      if (c === '[' && depth === 0) started = true;
      depth++;
    } else if (c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 1) item++;
  }
  return started && depth >= 1 ? item : undefined;
}

/** Where a response's bytes stop being UTF-8: the byte offset, and the pet (its index and id) they belong to. */
export function illFormedUtf8Text(ex: Exchange): string | undefined {
  const response = ex.response;
  const offset = response?.illFormedUtf8At;
  if (response === undefined || offset === undefined) return undefined;
  const at = `its bytes stop being UTF-8 at byte ${offset}`;
  const body = jsonBody(ex);
  const value = body?.ok === true ? body.value : undefined;
  if (Array.isArray(value)) {
    const index = arrayItemAt(response.bodyText, charAtByte(response.bodyText, offset));
    if (index === undefined) return `${at}, outside the items of the array`;
    const item = value[index];
    const id = isJsonObject(item) ? idKey(item['id']) : undefined;
    return `${at}, in pet #${index + 1} of ${value.length} (index ${index}${id === undefined ? ', its id unreadable' : `, id ${id}`})`;
  }
  if (isJsonObject(value)) {
    const id = idKey(value['id']);
    return id === undefined ? at : `${at}, in the pet with id ${id}`;
  }
  return at;
}

/**
 * MEDIA-001 on every response whose bytes are not UTF-8. CREATE-005's probes (names a store may
 * not survive) are judged by CREATE-005 with this same reading: their defect fails once.
 */
export function checkUtf8Body(ex: Exchange): Finding[] {
  const where = illFormedUtf8Text(ex);
  const response = ex.response;
  if (where === undefined || response === undefined) return [];
  if (ex.purpose.startsWith('CREATE-005')) return [observation(REQ, `a CREATE-005 probe's answer is not UTF-8, judged by CREATE-005 (${where})`, ex.seq)];
  return [violation(REQ, `Received a ${response.status} body whose bytes are not UTF-8 / Expected JSON text, which is UTF-8 (RFC 8259 section 8.1)`, ex.seq, where)];
}
