/** Exact pet ids: ids above 2^53 arrive as bigint, smaller ones as numbers. */
import type { JsonObject } from '../interface/json.js';

/** The pet's id as an exact bigint, when it is an integer. */
export function idOf(pet: JsonObject): bigint | undefined {
  const id = pet['id'];
  if (typeof id === 'bigint') return id;
  if (typeof id === 'number' && Number.isInteger(id)) return BigInt(id);
  return undefined;
}
