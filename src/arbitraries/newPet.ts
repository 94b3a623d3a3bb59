/**
 * Valid NewPets: names that stress Unicode handling, categoryIds across the whole int64 range
 * (above 2^53 in particular, where JSON.parse-based servers lose precision), status present or not.
 */
import fc from 'fast-check';
import { INT64_MAX, INT64_MIN } from '../interface/int64.js';
import { stringifyJson, type JsonObject } from '../interface/json.js';
import type { PetStatus } from '../interface/openapi.js';
import { validStatus } from './statusFilter.js';

export interface NewPetInput {
  name: string;
  categoryId: bigint;
  status?: PetStatus;
}

export interface ValidNewPetOptions {
  /** Every name starts with it, so the run's pets can be told apart from others in a listing. */
  namePrefix: string;
}

/** Fragments random graphemes rarely produce: astral emoji and ZWJ sequences, combining marks, RTL, JSON-special characters. */
const NOTABLE_FRAGMENTS = [
  '🐶',
  '🐈‍⬛',
  '👩🏽‍🚀',
  '🏳️‍🌈',
  '𝔉𝔦𝔡𝔬',
  'q\u0323\u0307', // stacked marks with no precomposed form: stays the same under NFC
  'x\u0301',
  'שלום',
  'مرحبا',
  '\u200f',
  '日本語',
  'İ',
  'ß',
  ' ',
  '"',
  '\\',
  '</script>',
  "O'Brien",
];

const NAME_UNIT = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom(...NOTABLE_FRAGMENTS) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
);

/**
 * Lengths spread over the whole 0..60 (fast-check's default size would keep them near 10). NFC, because a server may store names normalised and the spec does not settle whether that is
 * an echo; graphemes never start with a mark, so normalising the suffix cannot merge it into the prefix.
 */
function nameSuffix(): fc.Arbitrary<string> {
  return fc.string({ unit: NAME_UNIT, minLength: 0, maxLength: 60, size: 'max' }).map((s) => s.normalize('NFC'));
}

const TWO_53 = 2n ** 53n;

function near(center: bigint, radius: bigint): fc.Arbitrary<bigint> {
  const lo = center - radius < INT64_MIN ? INT64_MIN : center - radius;
  const hi = center + radius > INT64_MAX ? INT64_MAX : center + radius;
  return fc.bigInt(lo, hi);
}

/** The full int64 range, weighted towards its bounds, small values and the 2^53 precision edge. */
function int64CategoryId(): fc.Arbitrary<bigint> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.bigInt(INT64_MIN, INT64_MAX) },
    { weight: 2, arbitrary: fc.bigInt(-1000n, 1000n) },
    { weight: 2, arbitrary: fc.oneof(near(TWO_53, 64n), near(-TWO_53, 64n)) },
    { weight: 1, arbitrary: fc.oneof(near(INT64_MAX, 16n), near(INT64_MIN, 16n)) },
  );
}

export function validNewPet({ namePrefix }: ValidNewPetOptions): fc.Arbitrary<NewPetInput> {
  return fc.record(
    {
      name: nameSuffix().map((suffix) => namePrefix + suffix),
      categoryId: int64CategoryId(),
      status: validStatus(),
    },
    { requiredKeys: ['name', 'categoryId'] },
  );
}

/** The request body, categoryId written as its exact numeral. */
export function newPetBody(pet: NewPetInput): string {
  const body: JsonObject = { name: pet.name, categoryId: pet.categoryId };
  if (pet.status !== undefined) body['status'] = pet.status;
  return stringifyJson(body);
}
