/** Values for listPets' status filter (and NewPet.status), from the PetStatus enumeration of the document. */
import fc from 'fast-check';
import { statusValues, type PetStatus } from '../interface/openapi.js';
import { newPetTypeMatrix } from './type-matrix.js';

export function validStatus(): fc.Arbitrary<PetStatus> {
  return fc.constantFrom(...statusValues());
}

const LOWERCASE = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz');

/** The strings outside the enumeration that createPet's status is sent (type-matrix.ts), but the blank. */
function outsideEnum(): { edges: string[]; more: string[] } {
  const strings = newPetTypeMatrix().find((t) => t.kind === 'enum' && t.type === 'string');
  const nonBlank = (values: readonly unknown[] = []): string[] => values.filter((v): v is string => typeof v === 'string' && v.trim() !== '');
  return { edges: nonBlank(strings?.edges), more: nonBlank(strings?.more) };
}

/**
 * Filter values outside the enumeration that every run sends (LIST-006): NewPet.status's, but
 * the blank. Case variants ("AVAILABLE") and blanks are left out: a lenient server may reasonably
 * treat them as the enum value or as no filter, and LIST-006 is about values that are plainly not
 * statuses.
 */
export function invalidStatusEdges(): string[] {
  return outsideEnum().edges;
}

/** Filter values outside the enumeration the seed draws, on top of the edges. */
export function invalidStatusValue(): fc.Arbitrary<string> {
  const known = new Set(statusValues().map((s) => s.toLowerCase()));
  return fc
    .oneof(fc.constantFrom(...outsideEnum().more, '123'), fc.string({ unit: LOWERCASE, minLength: 3, maxLength: 12 }))
    .filter((v) => !known.has(v.toLowerCase()));
}
