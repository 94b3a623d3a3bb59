/** Judgements the listPets suite makes on its own probes; small and generic, like every check. */
import type { Exchange } from '../http/exchange.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../interface/json.js';
import { jsonBody } from './body.js';
import { observation, violation, type Finding } from './finding.js';
import { excerpt } from './text.js';

const MAX_MESSAGES = 5;

/** The listing's items when it is a 200 JSON array; undefined otherwise. */
function pageOf(ex: Exchange): JsonValue[] | undefined {
  if (ex.response?.status !== 200) return undefined;
  const body = jsonBody(ex);
  return body !== undefined && body.ok && Array.isArray(body.value) ? body.value : undefined;
}

/** Why the exchange is not a 200 answer, or undefined when it is one. */
function notServed(ex: Exchange, requirement: string, expected: string): Finding | undefined {
  const response = ex.response;
  if (response === undefined) {
    return violation(requirement, `Received no response (${ex.error?.code ?? 'transport error'}) / Expected ${expected}`, ex.seq);
  }
  if (response.status >= 500) {
    return violation(requirement, `Received ${response.status}, a server error on client input / Expected ${expected}`, ex.seq);
  }
  if (response.status !== 200) return violation(requirement, `Received ${response.status} / Expected ${expected}`, ex.seq);
  return undefined;
}

/** The body of a 200 that is not a JSON array, as a finding; undefined when it is an array. */
function notAnArray(ex: Exchange, requirement: string): Finding | undefined {
  const body = jsonBody(ex);
  if (body === undefined) return violation(requirement, 'Received a 200 with an empty body / Expected a JSON array of Pets', ex.seq);
  if (!body.ok) {
    if (body.truncated === true) return observation(requirement, `200 body not judged: ${body.error}`, ex.seq);
    return violation(requirement, `Received a 200 body that is not JSON (${excerpt(body.error)}) / Expected a JSON array of Pets`, ex.seq);
  }
  if (!Array.isArray(body.value)) {
    const kind = body.value === null ? 'null' : typeof body.value === 'object' ? 'an object' : `a ${typeof body.value}`;
    return violation(requirement, `Received a 200 body that is ${kind} / Expected a JSON array of Pets`, ex.seq);
  }
  return undefined;
}

/** 200 with a JSON array body. Returns nothing at all when it is one, so callers can test for emptiness. */
export function checkIsPetsArray(ex: Exchange, requirement: string): Finding[] {
  const finding = notServed(ex, requirement, '200 with a JSON array of Pets') ?? notAnArray(ex, requirement);
  return finding === undefined ? [] : [finding];
}

/** Page length within `max`, and exactly `expectedExactly` when given. Nothing for a response that is not a 200 array. */
export function checkPageLength(ex: Exchange, opts: { requirement: string; max: number; expectedExactly?: number }): Finding[] {
  const page = pageOf(ex);
  if (page === undefined) return [];
  const findings: Finding[] = [];
  if (page.length > opts.max) {
    findings.push(violation(opts.requirement, `Received ${page.length} items / Expected at most ${opts.max}`, ex.seq));
  }
  if (opts.expectedExactly !== undefined && page.length !== opts.expectedExactly && page.length <= opts.max) {
    findings.push(violation(opts.requirement, `Received ${page.length} items / Expected exactly ${opts.expectedExactly}`, ex.seq));
  }
  return findings;
}

/** Every item of a 200 array is a Pet with that status; one without a status field cannot be shown to have it. */
export function checkAllHaveStatus(ex: Exchange, status: string, requirement: string): Finding[] {
  const page = pageOf(ex);
  if (page === undefined) return [];
  const wrong: string[] = [];
  page.forEach((item, index) => {
    if (!isJsonObject(item)) {
      wrong.push(`[${index}] is not an object`);
      return;
    }
    const value = item['status'];
    if (value === undefined) wrong.push(`[${index}] has no status`);
    else if (value !== status) wrong.push(`[${index}] has status ${excerpt(JSON.stringify(typeof value === 'bigint' ? value.toString() : value), 30)}`);
  });
  const findings = wrong.slice(0, MAX_MESSAGES).map((w) => violation(requirement, `Received ${w} / Expected status "${status}"`, ex.seq));
  if (wrong.length > MAX_MESSAGES) {
    findings.push(violation(requirement, `and ${wrong.length - MAX_MESSAGES} more items without status "${status}"`, ex.seq));
  }
  return findings;
}

/**
 * For parameters the spec does not say how to handle (LIST-004, LIST-006): a 400 (its body is
 * ERR-001's) or a 200 array of `minItems` (default 0) to `maxItems` passes and is recorded;
 * anything else fails. LIST-004 asks for at least one item on a store known to hold pets, since
 * no limit in 1..100 gives an empty page of a non-empty store.
 */
export function checkRejectedOrBounded(ex: Exchange, opts: { requirement: string; maxItems: number; minItems?: number }): Finding[] {
  const { requirement, maxItems } = opts;
  const minItems = opts.minItems ?? 0;
  const expected = `400, or 200 with ${minItems > 0 ? `${minItems} to ` : 'at most '}${maxItems} Pets`;
  const response = ex.response;
  if (response?.status === 400) return [observation(requirement, `${ex.request.target}: rejected with 400`, ex.seq)];
  const unserved = notServed(ex, requirement, expected) ?? notAnArray(ex, requirement);
  if (unserved !== undefined) return [unserved];
  const page = pageOf(ex) ?? [];
  if (page.length > maxItems) {
    return [violation(requirement, `Received ${page.length} items for ${ex.request.target} / Expected ${expected}`, ex.seq)];
  }
  if (page.length < minItems) {
    return [violation(requirement, `Received ${page.length} items for ${ex.request.target} from a store known to hold pets / Expected ${expected}, a page some limit in 1..${maxItems} or the default could produce`, ex.seq)];
  }
  return [observation(requirement, `${ex.request.target}: accepted: ${page.length} items`, ex.seq)];
}

/** An item's id as an exact decimal string, when it is an integer. */
function exactId(item: JsonValue): string | undefined {
  if (!isJsonObject(item)) return undefined;
  const id = item['id'];
  return typeof id === 'bigint' || (typeof id === 'number' && Number.isInteger(id)) ? BigInt(id).toString() : undefined;
}

/**
 * A page with room left (fewer items than `limit`) shows every pet it selects, so it must contain
 * each of `created` (pets this run created before the listing, as the 201 echoed them, with that
 * status when the listing is filtered by one). A full page may leave any of them out: the spec
 * defines no order. `known` says how the run knows them ("created by this run" by default).
 */
export function checkShowsCreated(ex: Exchange, opts: { requirement: string; status?: string; limit: number; created: readonly JsonObject[]; known?: string }): Finding[] {
  const page = pageOf(ex);
  if (page === undefined || page.length >= opts.limit) return [];
  const listed = new Set(page.map(exactId).filter((id) => id !== undefined));
  const missing = opts.created.map(exactId).filter((id): id is string => id !== undefined && !listed.has(id));
  const known = opts.known ?? 'created by this run';
  const { status } = opts;
  const selection = status === undefined ? '' : ` for status=${status}`;
  const withStatus = status === undefined ? '' : ` with status "${status}"`;
  const which = opts.known === undefined ? `, ${known}${withStatus}` : `${status === undefined ? '' : ` (status "${status}")`}, ${known}`;
  const expected = status === undefined ? 'every pet on a page with room left' : 'every pet with that status on a page with room left';
  const findings = missing
    .slice(0, MAX_MESSAGES)
    .map((id) => violation(opts.requirement, `Received ${page.length} pets${selection} (fewer than the limit of ${opts.limit}) without pet ${id}${which} / Expected ${expected}`, ex.seq));
  if (missing.length > MAX_MESSAGES) {
    findings.push(violation(opts.requirement, `and ${missing.length - MAX_MESSAGES} more pets ${known}${withStatus} missing`, ex.seq));
  }
  return findings;
}
