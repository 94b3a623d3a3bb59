/** MEDIA-001: JSON bodies are labelled application/json. */
import type { Exchange } from '../http/exchange.js';
import { jsonBody, operationOf } from './body.js';
import { excerpt } from './text.js';
import { observation, violation, type Finding } from './finding.js';

const REQ = 'MEDIA-001';

export interface MediaType {
  /** type/subtype, lower-cased. */
  essence: string;
  /** Parameter names lower-cased; values unquoted, case kept. */
  params: Record<string, string>;
}

/** Parses a Content-Type value leniently: the checks judge the essence, not the header's syntax. */
export function parseMediaType(value: string): MediaType {
  const [head = '', ...rest] = value.split(';');
  const params: Record<string, string> = {};
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    const name = part.slice(0, eq).trim().toLowerCase();
    const raw = part.slice(eq + 1).trim();
    params[name] = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  }
  return { essence: head.trim().toLowerCase(), params };
}

/** The spec's Pet-bearing successes: their bodies are always JSON. Orders' body is not shown, so it is not judged. */
function mustBeJson(ex: Exchange): boolean {
  const status = ex.response?.status;
  const op = operationOf(ex);
  if (status === 200) return op === 'listPets' || op === 'getPet';
  if (status === 201) return op === 'createPet';
  return false;
}

export function checkMediaType(ex: Exchange): Finding[] {
  const response = ex.response;
  if (response === undefined) return [];
  const body = jsonBody(ex);
  if (body === undefined) return [];

  const contentType = response.headers['content-type'];
  const mediaType = contentType === undefined ? undefined : parseMediaType(contentType);
  const label = contentType === undefined ? 'no Content-Type' : `Content-Type "${excerpt(contentType)}"`;
  const labelled = mediaType?.essence === 'application/json';

  if (!body.ok) {
    // A non-JSON error body is ERR-001's to judge; only the Pet-bearing successes must be JSON here.
    if (!mustBeJson(ex)) return [];
    if (body.truncated === true) {
      // The cut body cannot be shown to be JSON or not, but its label can still be wrong.
      return labelled ? [] : [violation(REQ, `Received ${label} on a ${response.status} body / Expected application/json`, ex.seq)];
    }
    return [violation(REQ, `Received a ${response.status} body that is not JSON (${excerpt(body.error)}), ${label} / Expected a JSON body labelled application/json`, ex.seq)];
  }
  if (mediaType === undefined || !labelled) {
    return [violation(REQ, `Received ${label} on a ${response.status} JSON body / Expected application/json`, ex.seq)];
  }
  const charset = mediaType.params['charset'];
  if (charset !== undefined && charset.toLowerCase() !== 'utf-8') {
    // RFC 8259 makes JSON UTF-8; another label is allowed by our interpretation but worth recording.
    return [observation(REQ, `${label} names charset ${charset} (JSON is UTF-8)`, ex.seq)];
  }
  return [];
}
