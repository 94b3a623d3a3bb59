/**
 * Valid NewPets: names that stress Unicode handling, categoryIds the server already shows (or,
 * when it shows none, across the whole int64 range), status present or not. The fixed edge
 * examples (int64 bounds, ±(2^53+1), categoryId 0, empty and long names, each status) are sent
 * in every run.
 */
import fc from 'fast-check';
import { INT64_MAX, INT64_MIN } from '../interface/int64.js';
import { stringifyJson, type JsonObject } from '../interface/json.js';
import { statusValues as validStatusValues, type PetStatus } from '../interface/openapi.js';
import { validStatus } from './statusFilter.js';
import { MARKER_SLOT, withMarker } from './marker.js';
import { inCase } from './member-case.js';

export interface NewPetInput {
  name: string;
  categoryId: bigint;
  status?: PetStatus;
  /**
   * Members whose names differ from `name` only in case, with values of their own, sent before
   * and after `name`: member names are case-sensitive, so only `name` names the pet, and a server
   * that takes either of the others (the first or the last match ignoring case) is seen taking it.
   */
  nameInOtherCase?: { before: NameMember; after: NameMember };
  /**
   * An earlier example whose pet's name this one is sent with, once that pet is created: a name the
   * store already holds. The spec does not make names unique, so it is created like any other, with
   * an id of its own (CREATE-001, PET-002). `name` is what is sent when that pet was not created.
   */
  nameOf?: NewPetInput;
  /**
   * The examples this one combines (a name edge with a categoryId edge): the body carries a value
   * of each, so one request sends both. A 400 is traced by sending each alone (CREATE-001).
   */
  alone?: readonly NewPetExample[];
}

/** A member of the body other than `name`, as [member name, value]. */
export type NameMember = readonly [member: string, value: string];

export interface ValidNewPetOptions {
  /**
   * categoryIds the server already shows: the random runs use only these, since a server may
   * refuse a category it does not hold (CREATE-001). Empty: the whole int64 range.
   */
  categoryIds?: readonly bigint[];
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

/** Names start with MARKER_SLOT, which the probe fills with the request's own marker. */
export function validNewPet({ categoryIds = [] }: ValidNewPetOptions = {}): fc.Arbitrary<NewPetInput> {
  const [first, ...rest] = categoryIds;
  return fc.record(
    {
      name: nameSuffix().map((suffix) => MARKER_SLOT + suffix),
      categoryId: first === undefined ? int64CategoryId() : fc.constantFrom(first, ...rest),
      status: validStatus(),
    },
    { requiredKeys: ['name', 'categoryId'] },
  );
}

/** The request body, categoryId written as its exact numeral. */
export function newPetBody(pet: NewPetInput): string {
  const around = pet.nameInOtherCase;
  const body: JsonObject = {};
  if (around !== undefined) body[around.before[0]] = around.before[1];
  body['name'] = pet.name;
  if (around !== undefined) body[around.after[0]] = around.after[1];
  body['categoryId'] = pet.categoryId;
  if (pet.status !== undefined) body['status'] = pet.status;
  return stringifyJson(body);
}

/** The input as sent by one request: every name in it (the other-case members' too) carries that request's marker. */
export function markedInput(input: NewPetInput, marker: string): NewPetInput {
  const around = input.nameInOtherCase;
  const mark = ([member, value]: NameMember): NameMember => [member, withMarker(value, marker)];
  return {
    ...input,
    name: withMarker(input.name, marker),
    ...(around === undefined ? {} : { nameInOtherCase: { before: mark(around.before), after: mark(around.after) } }),
  };
}

/** The other-case member whose value the created pet carries as its name, when it carries one of theirs. */
export function otherCaseNameTaken(pet: JsonObject, input: NewPetInput): string | undefined {
  const around = input.nameInOtherCase;
  if (around === undefined || pet['name'] === input.name) return undefined;
  return [around.before, around.after].find(([, value]) => pet['name'] === value)?.[0];
}

/** A long name of several scripts, astral emoji and marks, in NFC (a server may normalise). */
const LONG_NAME = `${'Ünïcödé 🐕‍🦺 名前 שם اسم 𝔉𝔦𝔡𝔬 '.repeat(12)}end`.normalize('NFC');

export interface NewPetExample {
  label: string;
  input: NewPetInput;
  /**
   * True for the very long name: the spec sets no rule on names, and a store's column may hold
   * fewer characters, so a 400 is a reasonable answer (CREATE-001). A 400 for a categoryId the
   * server does not show is reasonable too, whichever example carries it, until the server creates
   * a pet of a category it does not show; the suite knows which categories are shown.
   */
  nameEdge: boolean;
}

/**
 * The NewPets every run sends before the random ones. `known` is a categoryId the server shows
 * (the basic examples use it so they can be created on any server); the int64 edges are unseen.
 */
export function newPetExamples(known: bigint): NewPetExample[] {
  const statuses = [...validStatusValues(), undefined];
  const basic = statuses.map((status): NewPetExample => ({
    label: status === undefined ? 'no-status' : `status-${status}`,
    input: { name: `${MARKER_SLOT}${status ?? 'no-status'}`, categoryId: known, ...(status === undefined ? {} : { status }) },
    nameEdge: false,
  }));
  const edges: [string, bigint][] = [
    ['categoryId-2^53+1', TWO_53 + 1n],
    ['categoryId--(2^53+1)', -(TWO_53 + 1n)],
    ['categoryId-INT64_MAX', INT64_MAX],
    ['categoryId-INT64_MIN', INT64_MIN],
  ];
  const int64 = edges.map(([label, categoryId], i): NewPetExample => {
    const status = statuses[i % statuses.length];
    return { label, input: { name: `${MARKER_SLOT}${label}`, categoryId, ...(status === undefined ? {} : { status }) }, nameEdge: false };
  });
  // The statuses the int64 edges they are combined with send (below).
  const pending = statuses[1];
  // The falsy members the schema allows (type-matrix.ts: what `||` and `!x` read as absent): the
  // spec sets names no minimum length and categoryIds no minimum, so both must be created. The
  // empty name cannot carry a marker: it is identified by the id its 201 returns, and never counts
  // as a refused request whose marker a listing could show.
  const names: NewPetExample[] = [
    { label: 'empty-name', input: { name: '', categoryId: known, ...(pending === undefined ? {} : { status: pending }) }, nameEdge: false },
    { label: 'long-unicode-name', input: { name: `${MARKER_SLOT}${LONG_NAME}`, categoryId: known }, nameEdge: true },
    { label: 'categoryId-0', input: { name: `${MARKER_SLOT}categoryId-0`, categoryId: 0n }, nameEdge: false },
  ];
  const [available, , sold] = basic;
  const [above53, below53, int64Max, int64Min] = int64;
  const [emptyName, longName, zeroCategory] = names;
  const soldNameHeld = sold === undefined || available === undefined ? undefined : nameAlreadyHeld(sold, available);
  // In the order CREATE-001's groups of three go out together (SendScheduler.together). The first
  // holds the pets a fetch can show most of (CREATE-002 fetches the largest group, the one worth
  // most among groups as large). A group goes out once the one before is answered: by then a server
  // that creates an unshown category has shown it (so a 400 for another is no reading of one), and
  // the second's "sold" can take the name the first's "available" pet holds. Each name edge carries
  // a categoryId edge: a Free key's minute has room for every edge, not for a creation each.
  return [
    available,
    combined(nameBesideOtherCases(known, statuses[0]), zeroCategory),
    above53,
    combined(emptyName, below53),
    combined(soldNameHeld, int64Max),
    combined(longName, int64Min),
  ].filter((example): example is NewPetExample => example !== undefined);
}

/**
 * One example carrying `name`'s name and status (and a name it takes from another pet) with
 * `category`'s categoryId. Its 400 is no reading of its own: it is judged by its parts alone.
 */
function combined(name: NewPetExample | undefined, category: NewPetExample | undefined): NewPetExample | undefined {
  if (name === undefined || category === undefined) return name ?? category;
  return {
    label: `${name.label}+${category.label}`,
    input: { ...name.input, categoryId: category.input.categoryId, alone: [name, category] },
    nameEdge: false,
  };
}

/** Every example, and each one a combined example is made of. */
export function newPetCases(examples: readonly NewPetExample[]): NewPetExample[] {
  return examples.flatMap((e) => [e, ...(e.input.alone ?? [])]);
}

/** The label of the example sent with the name of a pet the run created before it (NewPetInput.nameOf). */
export const NAME_ALREADY_HELD = 'name-already-held';

/**
 * `example` (a status the earlier one does not have, so that an answer showing the earlier pet is
 * told from a new one) sent with the name `earlier`'s pet holds once it is created.
 */
function nameAlreadyHeld(example: NewPetExample, earlier: NewPetExample): NewPetExample {
  return { label: NAME_ALREADY_HELD, input: { ...example.input, name: `${MARKER_SLOT}${NAME_ALREADY_HELD}`, nameOf: earlier.input }, nameEdge: false };
}

/** The label of the example whose name is sent between members named like it in other cases. */
export const NAME_IN_OTHER_CASE = 'name-beside-other-cases';

/**
 * `{"NAME":…, "name":…, "Name":…}`: a server that matches member names ignoring case takes NAME
 * (first match wins) or Name (last match wins, as Go's encoding/json does) for the name. A known
 * category, so that a 400 can only be about the other members (a reasonable reading, recorded).
 */
function nameBesideOtherCases(known: bigint, status: PetStatus | undefined): NewPetExample {
  const member = (letterCase: 'upper' | 'capitalised'): NameMember => [inCase('name', letterCase), `${MARKER_SLOT}${inCase('name', letterCase)}-member`];
  return {
    label: NAME_IN_OTHER_CASE,
    input: { name: `${MARKER_SLOT}${NAME_IN_OTHER_CASE}`, categoryId: known, ...(status === undefined ? {} : { status }), nameInOtherCase: { before: member('upper'), after: member('capitalised') } },
    nameEdge: false,
  };
}
