/** Values for listPets' limit, from the bounds the document gives it. */
import fc from 'fast-check';
import { listLimits } from '../interface/openapi.js';

/** Integers within the bounds, biased to the bounds and their neighbours (where off-by-one bugs live). */
export function limitInRange(): fc.Arbitrary<number> {
  const { min, max } = listLimits();
  const edges = [...new Set([min, min + 1, max - 1, max])].filter((n) => n >= min && n <= max);
  return fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...edges) }, { weight: 3, arbitrary: fc.integer({ min, max }) });
}

/** Query values outside the bounds or not integers: just below, just above, negative, fraction, text, empty. */
export function outOfRangeLimits(): string[] {
  const { min, max } = listLimits();
  return [...new Set([String(min - 1), String(max + 1), '-1', String(min + 0.5), 'abc', ''])];
}
