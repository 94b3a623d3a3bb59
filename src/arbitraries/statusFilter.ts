/** Values for listPets' status filter (and NewPet.status), from the PetStatus enumeration of the document. */
import fc from 'fast-check';
import { statusValues, type PetStatus } from '../interface/openapi.js';

export function validStatus(): fc.Arbitrary<PetStatus> {
  return fc.constantFrom(...statusValues());
}

/** A status no PetStatus value resembles, sent by every run (LIST-006; without a key, AUTH-001). */
export const FIXED_INVALID_STATUS = 'adopted';

const LOWERCASE = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz');

/**
 * Filter values outside the enumeration. Case variants ("AVAILABLE") and blanks are left out: a
 * lenient server may reasonably treat them as the enum value or as no filter, and LIST-006 is
 * about values that are plainly not statuses.
 */
export function invalidStatusValue(): fc.Arbitrary<string> {
  const known = new Set(statusValues().map((s) => s.toLowerCase()));
  return fc
    .oneof(fc.constantFrom(FIXED_INVALID_STATUS, 'unknown', '123'), fc.string({ unit: LOWERCASE, minLength: 3, maxLength: 12 }))
    .filter((v) => !known.has(v.toLowerCase()));
}
