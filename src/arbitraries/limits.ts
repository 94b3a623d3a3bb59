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

/**
 * Limit values that number parsers, rather than the integer grammar, read as numbers outside
 * 1..100 or as no number at all, each with the reading that makes it dangerous. A validator that
 * coerces the query string (JavaScript's Number(), a float parser, Python's int()) and then checks
 * the bounds with comparisons lets some through: NaN and ±Infinity fail no `<`/`>` test.
 * `above`: some parser reads it as more than the maximum, so a 200 page of it must be bounded.
 */
export const NUMBER_LIKE_LIMITS: readonly { value: string; above: boolean; why: string }[] = [
  { value: 'Infinity', above: true, why: 'Number(), parseFloat, Double.parseDouble, float() and Rust read it as +∞' },
  { value: '-Infinity', above: false, why: 'the same parsers read it as -∞; slice(0, -Infinity) is an empty page' },
  { value: 'NaN', above: false, why: 'NaN passes every comparison-based bound check' },
  { value: '1e3', above: true, why: 'Number() and float parsers read 1000, parseInt reads 1' },
  { value: '1_000', above: true, why: "Python's int() and Ruby's to_i read 1000" },
  { value: '9223372036854775808', above: true, why: 'beyond int64: overflows 64-bit parsers, a double reads 9.2e18' },
];

/** The limits LIST-004 sends on every run: the integer grammar's edges, then what number parsers misread. */
export function fixedInvalidLimits(): string[] {
  return [...outOfRangeLimits(), ...NUMBER_LIKE_LIMITS.map((l) => l.value)];
}
