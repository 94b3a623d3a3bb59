/**
 * Small helpers the suites share: exact id handling (ids above 2^53 arrive as bigint) and
 * comparisons of pets. Pure; no requests.
 */
import type { JsonObject, JsonValue } from '../src/interface/json.js';
import type { Census } from '../src/session/store-model.js';
import { sameValue } from '../src/session/ids.js';

export { idOf } from '../src/session/ids.js';

const show = (v: JsonValue | undefined): string => (v === undefined ? 'absent' : typeof v === 'bigint' ? v.toString() : JSON.stringify(v));

/** Differences in the given fields, as "field: got X, expected Y" (integers compared exactly). */
export function fieldDifferences(got: JsonObject, expected: JsonObject, fields: readonly string[]): string[] {
  return fields
    .filter((field) => !sameValue(got[field], expected[field]))
    .map((field) => `${field}: received ${show(got[field])}, expected ${show(expected[field])}`);
}

export const PET_FIELDS = ['id', 'name', 'categoryId', 'status'] as const;

/**
 * How many pets a page of `limit` must hold: min(limit, available). Available is at least what
 * the census (limit=100) showed and at least the number of distinct pets the run has seen
 * anywhere (there is no delete, so a listing that shows fewer than that is short). Undefined
 * when the census failed.
 */
export function expectedPageLength(census: Census, limit: number, knownPets: number): number | undefined {
  if (!census.ok) return undefined;
  const available = census.wholeStore ? Math.max(census.pets.length, knownPets) : Number.POSITIVE_INFINITY;
  return Math.min(limit, available);
}

/** The reason every write-dependent requirement gives under --read-only. */
export const WRITES_DISABLED = 'writes are disabled (--read-only)';
