/** Exact pet ids and field values: integers above 2^53 arrive as bigint, smaller ones as numbers. */
import type { JsonObject, JsonValue } from '../interface/json.js';

/** The pet's id as an exact bigint, when it is an integer. */
export function idOf(pet: JsonObject): bigint | undefined {
  const id = pet['id'];
  if (typeof id === 'bigint') return id;
  if (typeof id === 'number' && Number.isInteger(id)) return BigInt(id);
  return undefined;
}

/** Whether two JSON values are the same, integers compared exactly whichever form they arrived in. */
export function sameValue(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  const asInt = (v: JsonValue | undefined): bigint | undefined =>
    typeof v === 'bigint' ? v : typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : undefined;
  const ia = asInt(a);
  const ib = asInt(b);
  if (ia !== undefined || ib !== undefined) return ia === ib;
  return a === b;
}

/** Whether two representations show the same pet: the same id, name, categoryId and status (absent or not). */
export function samePet(a: JsonObject, b: JsonObject): boolean {
  return ['id', 'name', 'categoryId', 'status'].every((field) => sameValue(a[field], b[field]));
}

/** The index at which an item made by exchange `seq` goes in a list kept in send order (`seqOf` gives each item's). */
export function sendOrderIndex<T>(items: readonly T[], seq: number, seqOf: (item: T) => number | undefined): number {
  const after = items.findIndex((item) => (seqOf(item) ?? 0) > seq);
  return after < 0 ? items.length : after;
}
