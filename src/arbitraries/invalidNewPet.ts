/**
 * createPet bodies the service must reject with 400, one class per way a body can be wrong
 * (CREATE-003). A body that has a string name gets `${marker}…` as its name, so a later listing can
 * look for pets that were created although rejected (CREATE-004).
 */
import fc from 'fast-check';
import { INT64_MAX, INT64_MIN } from '../interface/int64.js';
import { isJsonObject, stringifyJson, type JsonObject, type JsonValue } from '../interface/json.js';
import { validStatus } from './statusFilter.js';

export const INVALID_NEW_PET_KINDS = [
  'empty',
  'not-json',
  'null',
  'array',
  'number',
  'name-missing',
  'categoryId-missing',
  'name-not-string',
  'categoryId-not-integer',
  'categoryId-beyond-int64',
  'status-outside-enum',
  'status-not-string',
] as const;
export type InvalidNewPetKind = (typeof INVALID_NEW_PET_KINDS)[number];

export interface InvalidNewPetBody {
  kind: InvalidNewPetKind;
  /** Exactly what to send; may be empty or not JSON at all. */
  body: string;
  contentType: string;
  /** True when the body names a pet `${marker}…`, i.e. a leaked creation would be findable. */
  carriesMarker: boolean;
}

export interface InvalidNewPetOptions {
  marker: string;
}

/** Every class is labelled JSON: the point is the body, not content negotiation. */
const CONTENT_TYPE = 'application/json';

const ABSENT = Symbol('absent');
type Transform = (pet: JsonObject) => JsonValue;

function replacing(field: string, value: JsonValue | typeof ABSENT): Transform {
  return (pet) => {
    const copy: JsonObject = { ...pet };
    if (value === ABSENT) delete copy[field];
    else copy[field] = value;
    return copy;
  };
}

function namesMarkedPet(value: JsonValue, marker: string): boolean {
  if (Array.isArray(value)) return value.some((v) => namesMarkedPet(v, marker));
  return isJsonObject(value) && typeof value['name'] === 'string' && value['name'].startsWith(marker);
}

function fromJson(kind: InvalidNewPetKind, value: JsonValue, marker: string): InvalidNewPetBody {
  return { kind, body: stringifyJson(value), contentType: CONTENT_TYPE, carriesMarker: namesMarkedPet(value, marker) };
}

function fromText(kind: InvalidNewPetKind, body: string, marker: string): InvalidNewPetBody {
  return { kind, body, contentType: CONTENT_TYPE, carriesMarker: body.includes(marker) };
}

/** A valid NewPet, which each class then breaks in one way. */
function basePet(marker: string): fc.Arbitrary<JsonObject> {
  return fc
    .record(
      {
        name: fc.string({ unit: 'grapheme-ascii', maxLength: 12 }).map((s) => marker + s),
        categoryId: fc.bigInt(1n, 10_000n),
        status: validStatus(),
      },
      { requiredKeys: ['name', 'categoryId'] },
    )
    .map((pet): JsonObject => ({ ...pet }));
}

const examplePet = (marker: string): JsonObject => ({ name: `${marker}example`, categoryId: 1n, status: 'available' });

/**
 * How each class is generated. The first variant of each is its example, so the examples and the
 * arbitrary cannot disagree.
 */
type KindSpec =
  | { kind: InvalidNewPetKind; texts: (marker: string) => [string, ...string[]] }
  | { kind: InvalidNewPetKind; transforms: [Transform, ...Transform[]] };

const fieldValues = (field: string, values: [JsonValue, ...JsonValue[]]): [Transform, ...Transform[]] => {
  const [first, ...rest] = values;
  return [replacing(field, first), ...rest.map((v) => replacing(field, v))];
};

const SPECS: readonly KindSpec[] = [
  { kind: 'empty', texts: () => [''] },
  {
    kind: 'not-json',
    texts: (m) => [
      `{"name":"${m}truncated","categoryId":1`,
      `name=${m}form&categoryId=1`,
      `{name: '${m}js', categoryId: 1}`,
      `<pet><name>${m}xml</name><categoryId>1</categoryId></pet>`,
      'undefined',
    ],
  },
  { kind: 'null', texts: () => ['null'] },
  { kind: 'array', transforms: [(pet) => [pet], () => [], (pet) => [pet, pet]] },
  { kind: 'number', texts: () => ['42', '0', '-1.5', '1e400'] },
  { kind: 'name-missing', transforms: [replacing('name', ABSENT)] },
  { kind: 'categoryId-missing', transforms: [replacing('categoryId', ABSENT)] },
  { kind: 'name-not-string', transforms: fieldValues('name', [42, null, { first: 'Rex' }, ['Rex'], true]) },
  { kind: 'categoryId-not-integer', transforms: fieldValues('categoryId', ['12', 1.5, true, null, { id: 1 }, []]) },
  {
    kind: 'categoryId-beyond-int64',
    transforms: fieldValues('categoryId', [INT64_MAX + 1n, INT64_MIN - 1n, 2n ** 64n, 10n ** 30n]),
  },
  { kind: 'status-outside-enum', transforms: fieldValues('status', ['adopted', '', 'AVAILABLE', 'unknown']) },
  { kind: 'status-not-string', transforms: fieldValues('status', [1, true, null, ['available'], {}]) },
];

function specArbitrary(spec: KindSpec, marker: string): fc.Arbitrary<InvalidNewPetBody> {
  if ('texts' in spec) return fc.constantFrom(...spec.texts(marker)).map((t) => fromText(spec.kind, t, marker));
  return fc
    .tuple(basePet(marker), fc.constantFrom(...spec.transforms))
    .map(([pet, transform]) => fromJson(spec.kind, transform(pet), marker));
}

function specExample(spec: KindSpec, marker: string): InvalidNewPetBody {
  if ('texts' in spec) return fromText(spec.kind, spec.texts(marker)[0], marker);
  return fromJson(spec.kind, spec.transforms[0](examplePet(marker)), marker);
}

export function invalidNewPetBody({ marker }: InvalidNewPetOptions): fc.Arbitrary<InvalidNewPetBody> {
  return fc.oneof(...SPECS.map((spec) => specArbitrary(spec, marker)));
}

/** One concrete body per class, for fast-check's `examples`, so every class is sent whatever the run count. */
export function invalidNewPetExamples({ marker }: InvalidNewPetOptions): InvalidNewPetBody[] {
  return SPECS.map((spec) => specExample(spec, marker));
}
