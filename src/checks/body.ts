/**
 * Reading an exchange's response once: every check of an exchange needs the parsed body, and a
 * 100-pet listing with bigint ids is worth parsing only once.
 */
import type { Exchange } from '../http/exchange.js';
import { bodyChars, bodyCut } from '../http/kept-body.js';
import { parseJson, type JsonValue } from '../interface/json.js';

export type BodyResult =
  | { ok: true; value: JsonValue }
  /**
   * `truncated` is set when the body was cut at the client's body cap: its parse failure says
   * nothing about the server, so checks must not turn it into a violation.
   */
  | { ok: false; error: string; truncated?: true };

export type Operation = 'listPets' | 'createPet' | 'getPet' | 'listOrders';

const parsed = new WeakMap<Exchange, BodyResult | undefined>();

/** Whitespace alone is not a JSON text, and no check should read meaning into it. */
function isEmptyBody(text: string): boolean {
  return text.trim() === '';
}

/**
 * The response body as JSON; undefined when there is no response or the body is empty. Only for
 * the exchange as it came (the client's send, onExchange): the run's record keeps the first part
 * of a long body only (kept-body.ts), and judging that part would judge another body.
 */
export function jsonBody(ex: Exchange): BodyResult | undefined {
  if (parsed.has(ex)) return parsed.get(ex);
  const response = ex.response;
  if (response !== undefined && bodyCut(response)) throw new Error(`exchange #${ex.seq} is the run's record of it, whose body was cut after judging: judge the exchange as it came`);
  let result: BodyResult | undefined;
  if (response === undefined || isEmptyBody(response.bodyText)) {
    result = undefined;
  } else {
    const r = parseJson(response.bodyText);
    if (r.ok) result = r;
    else if (response.truncated) result = { ok: false, error: `body cut at the recording cap (${bodyChars(response)} chars), not judged`, truncated: true };
    else result = r;
  }
  parsed.set(ex, result);
  return result;
}

/** The request target's path: no query, no fragment. */
function pathOf(target: string): string {
  const end = target.search(/[?#]/);
  return end === -1 ? target : target.slice(0, end);
}

/** Which spec operation the request addressed, from its method and path relative to the base. */
export function operationOf(ex: Exchange): Operation | undefined {
  const method = ex.request.method.toUpperCase();
  const path = pathOf(ex.request.target);
  if (path === '/pets') {
    if (method === 'GET') return 'listPets';
    if (method === 'POST') return 'createPet';
    return undefined;
  }
  // Any single non-empty segment: GET-003 sends /pets/abc on purpose, and it is still getPet.
  if (method === 'GET' && /^\/pets\/[^/]+$/.test(path)) return 'getPet';
  if (method === 'GET' && path === '/store/orders') return 'listOrders';
  return undefined;
}
