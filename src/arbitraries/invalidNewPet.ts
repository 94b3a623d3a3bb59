/**
 * createPet bodies the service must reject with 400, one class per way a body can be wrong
 * (CREATE-003): every missing field (and both, present only in another letter case), every wrong
 * JSON type of every field, int64 overflow on either side, a status outside the enumeration, and
 * bodies that are not a NewPet at all (a valid NewPet followed by other bytes, or by a second one,
 * is not one JSON text either). A body that has
 * a string name gets MARKER_SLOT at its start; the probe replaces it with a marker of its own (one
 * per request), so a later check can tell which refused request a stored pet came from (CREATE-004).
 */
import fc from 'fast-check';
import { INT64_MAX, INT64_MIN } from '../interface/int64.js';
import { isJsonObject, stringifyJson, type JsonObject, type JsonValue } from '../interface/json.js';
import { newPetRequired, statusValues } from '../interface/openapi.js';
import { MARKER_SLOT } from './marker.js';
import { withFieldsInCase } from './member-case.js';
import { newPetTypeMatrix } from './type-matrix.js';


export interface InvalidNewPetBody {
  /** The class, e.g. "categoryId-above-int64" or "name-null". */
  kind: string;
  /** The case's name: the class, and the member sent where the class has several edges ("status-number 0"). */
  label: string;
  /** Exactly what to send, with MARKER_SLOT where the marker goes; may be empty or not JSON at all. */
  body: string;
  contentType: string;
  /** True when the body names a pet MARKER_SLOT…, i.e. a leaked creation would be findable. */
  carriesMarker: boolean;
}

/** Every class is labelled JSON: the point is the body, not content negotiation. */
const CONTENT_TYPE = 'application/json';

/**
 * The status every refused body that has a valid one carries, so one filtered listing can show
 * whether any of them was stored (see suites/rejected-writes.ts).
 */
export function refusedBodyStatus(): string {
  const values = statusValues();
  return values[values.length - 1] ?? 'sold';
}

const ABSENT = Symbol('absent');

function replacing(fields: readonly string[], value: JsonValue | typeof ABSENT): Transform {
  return (pet): JsonValue => {
    const copy: JsonObject = { ...pet };
    for (const field of fields) {
      if (value === ABSENT) delete copy[field];
      else copy[field] = value;
    }
    return copy;
  };
}

function namesMarkedPet(value: JsonValue): boolean {
  if (Array.isArray(value)) return value.some((v) => namesMarkedPet(v));
  return isJsonObject(value) && typeof value['name'] === 'string' && value['name'].startsWith(MARKER_SLOT);
}

function fromJson(kind: string, value: JsonValue, label = kind): InvalidNewPetBody {
  return { kind, label, body: stringifyJson(value), contentType: CONTENT_TYPE, carriesMarker: namesMarkedPet(value) };
}

function fromText(kind: string, body: string, label = kind): InvalidNewPetBody {
  return { kind, label, body, contentType: CONTENT_TYPE, carriesMarker: body.includes(MARKER_SLOT) };
}

/** A valid NewPet, which each class then breaks in one way. */
function basePet(): fc.Arbitrary<JsonObject> {
  return fc
    .record({
      name: fc.string({ unit: 'grapheme-ascii', maxLength: 12 }).map((s) => MARKER_SLOT + s),
      categoryId: fc.bigInt(1n, 10_000n),
    })
    .map((pet): JsonObject => ({ ...pet, status: refusedBodyStatus() }));
}

const examplePet = (): JsonObject => ({ name: `${MARKER_SLOT}example`, categoryId: 1n, status: refusedBodyStatus() });

/** A body written from a valid NewPet as text that is not one JSON value. */
type Render = (pet: JsonObject) => string;

/**
 * How each class is generated. Every member of `edges` is sent in every run, whatever the seed
 * (the known edges of the class); `more` only adds what the seed draws, so the seed adds cases and
 * never decides which edge is tried. A transform's `shows` names it in the case's label.
 */
type Transform = ((pet: JsonObject) => JsonValue) & { shows?: string };
type KindSpec =
  | { kind: string; texts: [string, ...string[]]; more?: string[] }
  | { kind: string; transforms: [Transform, ...Transform[]]; more?: Transform[] }
  | { kind: string; renders: [Render, ...Render[]]; more?: Render[] };

/** A valid NewPet followed by other bytes. */
const followedBy = (tail: string): Render => (pet) => stringifyJson(pet) + tail;

/** Two valid NewPets, both named with the request's marker: a pet stored from either half is traced to it (CREATE-004). */
const backToBack = (gap: string): Render => (pet) => stringifyJson(pet) + gap + stringifyJson({ ...pet, name: `${String(pet['name'])}-second` });

/** The field set to the value, the value named in the label. */
const setting = (field: string, value: JsonValue): Transform => Object.assign(replacing([field], value), { shows: stringifyJson(value) });

const settings = (field: string, given: readonly JsonValue[]): Transform[] => given.map((v) => setting(field, v));

/** The optional member every base pet carries (basePet, examplePet). */
const STATUS = 'status';

function withoutStatus(pet: JsonObject): JsonObject {
  const copy: JsonObject = { ...pet };
  delete copy[STATUS];
  return copy;
}

/**
 * A required field's missing or null class is sent with status and without it: a validator that
 * checks the other fields only when status is given (or only when it is not) meets one of the two.
 */
const withAndWithoutStatus = (transform: Transform): [Transform, Transform] => [
  Object.assign((pet: JsonObject) => transform(pet), { shows: 'with status' }),
  Object.assign((pet: JsonObject) => transform(withoutStatus(pet)), { shows: 'without status' }),
];

/** Every forbidden JSON type of every NewPet field, from the schema (type-matrix.ts). */
const TYPE_CLASSES: KindSpec[] = newPetTypeMatrix().map(({ field, type, className, edges, more }) => {
  const [first, ...rest] = edges;
  if (type === 'null' && newPetRequired().includes(field)) return { kind: className, transforms: withAndWithoutStatus(replacing([field], null)), more: settings(field, more) };
  return { kind: className, transforms: [setting(field, first), ...settings(field, rest)], more: settings(field, more) };
});

/** Every required field missing, with status and without. */
const MISSING_CLASSES: KindSpec[] = newPetRequired().map((field) => ({ kind: `${field}-missing`, transforms: withAndWithoutStatus(replacing([field], ABSENT)) }));

const SPECS: readonly KindSpec[] = [
  { kind: 'empty', texts: [''] },
  {
    kind: 'not-json',
    texts: [`{"name":"${MARKER_SLOT}truncated","categoryId":1`],
    more: [`name=${MARKER_SLOT}form&categoryId=1`, `{name: '${MARKER_SLOT}js', categoryId: 1}`, `<pet><name>${MARKER_SLOT}xml</name><categoryId>1</categoryId></pet>`, 'undefined'],
  },
  // Both are read as the first NewPet by a decoder that stops after one value (Go's json.Decoder).
  { kind: 'trailing-bytes', renders: [followedBy(' trailing')], more: [followedBy('x'), followedBy(','), followedBy(']'), followedBy(' }')] },
  { kind: 'two-newpets-back-to-back', renders: [backToBack('')], more: [backToBack('\n'), backToBack(' ')] },
  // A bare number fails every stack we know of as null or an array does (no member to read, or a
  // decoder's type error), so only the random runs draw it: the fixed example is null, which some
  // decoders turn into an empty struct rather than an error.
  { kind: 'null-or-number', texts: ['null'], more: ['42', '0', '-1.5', '1e400'] },
  { kind: 'array', transforms: [(pet) => [pet]], more: [() => [], (pet) => [pet, pet]] },
  ...MISSING_CLASSES,
  // Member names are case-sensitive: to a server reading them as such this body lacks both fields
  // (the class "both missing", which it replaces); one matching them ignoring case creates a pet.
  {
    kind: 'name-and-categoryId-in-another-case',
    transforms: [(pet) => withFieldsInCase(pet, ['name', 'categoryId'], 'upper')],
    more: [(pet) => withFieldsInCase(pet, ['name', 'categoryId'], 'capitalised'), (pet) => withFieldsInCase(pet, ['name', 'categoryId'], 'flipped')],
  },
  ...TYPE_CLASSES,
  // 2^63 is the edge: a uint64 or a double parser takes it (INT64_MAX as a double is 2^63).
  { kind: 'categoryId-above-int64', transforms: [replacing(['categoryId'], INT64_MAX + 1n)], more: settings('categoryId', [2n ** 64n, 10n ** 30n]) },
  { kind: 'categoryId-below-int64', transforms: [replacing(['categoryId'], INT64_MIN - 1n)], more: settings('categoryId', [-(2n ** 64n), -(10n ** 30n)]) },
];

export const INVALID_NEW_PET_KINDS: readonly string[] = SPECS.map((spec) => spec.kind);

function specArbitrary(spec: KindSpec): fc.Arbitrary<InvalidNewPetBody> {
  if ('texts' in spec) return fc.constantFrom(...spec.texts, ...(spec.more ?? [])).map((t) => fromText(spec.kind, t));
  if ('renders' in spec) return fc.tuple(basePet(), fc.constantFrom(...spec.renders, ...(spec.more ?? []))).map(([pet, render]) => fromText(spec.kind, render(pet)));
  return fc.tuple(basePet(), fc.constantFrom(...spec.transforms, ...(spec.more ?? []))).map(([pet, transform]) => fromJson(spec.kind, transform(pet)));
}

/** Every edge of the class, each named by the class, and by the member sent where there are several. */
function specExamples(spec: KindSpec): InvalidNewPetBody[] {
  const label = (i: number, count: number, shows: string | undefined): string => (count === 1 ? spec.kind : `${spec.kind} ${shows ?? `#${i + 1}`}`);
  if ('texts' in spec) return spec.texts.map((t, i, all) => fromText(spec.kind, t, label(i, all.length, JSON.stringify(t))));
  if ('renders' in spec) return spec.renders.map((render, i, all) => fromText(spec.kind, render(examplePet()), label(i, all.length, undefined)));
  return spec.transforms.map((transform, i, all) => fromJson(spec.kind, transform(examplePet()), label(i, all.length, transform.shows)));
}

export function invalidNewPetBody(): fc.Arbitrary<InvalidNewPetBody> {
  return fc.oneof(...SPECS.map((spec) => specArbitrary(spec)));
}

/** Every edge of every class, sent before the random ones so every edge is tried in every run. */
export function invalidNewPetExamples(): InvalidNewPetBody[] {
  return SPECS.flatMap((spec) => specExamples(spec));
}
