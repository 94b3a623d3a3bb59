/**
 * Section 4.2, createPet: valid NewPets are created and echoed, can be fetched again, and invalid
 * bodies are rejected with 400. Both properties send their fixed examples (every edge, every class
 * of invalid body) before the seeded random runs, and every request names its pet with a marker of
 * its own. Runs first among the suites that need data, so the pets it creates also give the listing
 * suite the 21 pets the default page needs.
 */
import { suite } from '../src/conformance/suite.js';
import { inCase, requirementTest, type RequirementRun } from '../src/conformance/requirement-test.js';
import { violation, observation, type Finding } from '../src/checks/finding.js';
import { jsonBody } from '../src/checks/body.js';
import { isJsonObject, parseJson, type JsonObject } from '../src/interface/json.js';
import { validNewPet, newPetBody, newPetCases, newPetExamples, markedInput, otherCaseNameTaken, type NewPetExample, type NewPetInput } from '../src/arbitraries/newPet.js';
import { invalidNewPetBody, invalidNewPetExamples } from '../src/arbitraries/invalidNewPet.js';
import { withMarker } from '../src/arbitraries/marker.js';
import { otherCaseMembers } from '../src/arbitraries/member-case.js';
import { fetchCreated, type CreatedPet } from './fetch-pet.js';
import { inFlightTogether } from '../src/session/overlap.js';
import { MIN_GROUP } from '../src/session/rate-limit-sends.js';
import type { Exchange } from '../src/http/exchange.js';
import { fieldDifferences, idOf, PET_FIELDS, WRITES_DISABLED } from './support.js';
import { judgeSequences } from './model-sequences.js';

/** The default page is 20, so telling it apart from a larger one needs 21 pets. */
const PETS_FOR_DEFAULT_PAGE = 21;
/**
 * Fetching every created pet would double the cost of the property; a few prove the point: every
 * pet of a group of creations in flight together (CREATE-001's groups are MIN_GROUP), or the pets
 * most worth a fetch (worthFetching) where fewer overlapped: what a Free key's window has room for.
 */
const MAX_FETCHES = MIN_GROUP;
const TWO_53 = 2n ** 53n;

function expectedPet(input: NewPetInput): JsonObject {
  return {
    name: input.name,
    categoryId: input.categoryId,
    ...(input.status === undefined ? {} : { status: input.status }),
  };
}

/** A pet CREATE-001 created, as its 201 showed it, and the exchange of that 201. */
interface Created {
  pet: JsonObject;
  exchange: Exchange;
}

/** What CREATE-001 knows while its property runs: categories the server shows, and creations that succeeded. */
interface CreateContext {
  shown: Set<bigint>;
  /** Inputs for which a 400 is reasonable (empty or very long name): the spec sets no rule on names. */
  nameEdges: ReadonlySet<NewPetInput>;
  created: number;
  /**
   * The first creation of a category the server did not show: once there is one, the server does
   * not check categories against those it holds, and a 400 for another unknown one is no reading
   * of an unknown category.
   */
  unshownCreated?: { categoryId: bigint; exchange: Exchange };
  /**
   * The refusals read as an unknown category while no such creation had been seen: judged again
   * once every example is answered, so the verdict does not depend on which came first.
   */
  readAsUnknown: Array<{ input: NewPetInput; exchange: Exchange }>;
  /** The pet each fixed example created, for an example that takes its name (NewPetInput.nameOf). */
  byExample: Map<NewPetInput, Created>;
}

/** The name a created pet holds, as its 201 showed it. */
const heldName = (held: Created): string | undefined => (typeof held.pet['name'] === 'string' ? held.pet['name'] : undefined);

/**
 * A valid NewPet named like a pet the store already holds was refused: the spec gives names no
 * rule, uniqueness included, so that is no reason to refuse it. Cites the earlier pet's creation.
 */
function refusedHeldName(status: number | string | undefined, held: Created, ex: Exchange): Finding {
  const id = idOf(held.pet);
  return {
    ...violation(
      'CREATE-001',
      `Received ${status} for a valid NewPet whose name a pet this run created already holds / Expected 201 and a pet with an id of its own: the spec does not make names unique`,
      ex.seq,
      `name ${JSON.stringify(heldName(held))}, held by pet ${id ?? '(no integer id)'} created by exchange #${held.exchange.seq}`,
    ),
    pairedWith: held.exchange.seq,
  };
}

/** A reason a 400 for a valid NewPet is a reasonable reading; `unknownCategory` is the one a later creation can take back. */
interface RefusalReading {
  why: string;
  unknownCategory: boolean;
}

/** Every reason a 400 for this valid NewPet is a reasonable reading, the one recorded first; empty when none is. */
function refusalReadings(input: NewPetInput, ctx: CreateContext): RefusalReading[] {
  const readings: RefusalReading[] = [];
  if (!ctx.shown.has(input.categoryId) && ctx.unshownCreated === undefined) {
    readings.push({ why: `the server refused categoryId ${input.categoryId} it does not show: reading it as an unknown category`, unknownCategory: true });
  }
  if (ctx.nameEdges.has(input)) {
    readings.push({ why: `the server refused a name of ${[...input.name].length} characters: the spec sets no rule on names, so this is recorded, not failed`, unknownCategory: false });
  }
  const around = input.nameInOtherCase;
  if (around !== undefined) {
    readings.push({
      why: `the server refused a NewPet that also has the members "${around.before[0]}" and "${around.after[0]}": member names are case-sensitive, so ignoring them and refusing the body are both reasonable readings; recorded, not failed`,
      unknownCategory: false,
    });
  }
  return readings;
}

/** Why a refused unknown category is no reading of an unknown category: the server created one before. */
function unknownCategoryAccepted(input: NewPetInput, ctx: CreateContext): string | undefined {
  const earlier = ctx.unshownCreated;
  if (earlier === undefined || ctx.shown.has(input.categoryId)) return undefined;
  return `categoryId ${input.categoryId}: the server does not check categories against those it holds, as it created a pet of categoryId ${earlier.categoryId}, which no pet showed either (exchange #${earlier.exchange.seq})`;
}

/** The input as this request sends it: its own marker, or the name of the earlier pet it is to share (NewPetInput.nameOf). */
function inputToSend(t: RequirementRun, given: NewPetInput, ctx: CreateContext): { input: NewPetInput; held?: Created; note?: Finding } {
  const input = markedInput(given, t.session.store.probes.next());
  if (given.nameOf === undefined) return { input };
  const held = ctx.byExample.get(given.nameOf);
  const name = held === undefined ? undefined : heldName(held);
  // The earlier pet was refused or came back nameless (CREATE-001's findings already): a name of its own then.
  if (held === undefined || name === undefined) return { input, note: observation('CREATE-001', 'the NewPet meant to take a name the store already holds was sent with a name of its own: the pet whose name it was to take was not created with one') };
  return { input: { ...input, name }, held };
}

async function createOne(t: RequirementRun, given: NewPetInput, ctx: CreateContext): Promise<Finding[]> {
  const { input, held, note } = inputToSend(t, given, ctx);
  const ex = await t.send({ method: 'POST', path: '/pets', body: newPetBody(input), contentType: 'application/json' });
  const status = ex.response?.status;
  const readings = refusalReadings(given, ctx);
  const reading = readings[0];
  const noted: Finding[] = note === undefined ? [] : [{ ...note, exchange: ex.seq }];
  if (status === 400 && given.alone !== undefined) return [...noted, ...(await createEachAlone(t, given.alone, ex, ctx))];
  if (status === 400 && reading !== undefined) {
    // Only a refusal nothing but an unknown category excuses is judged again once every example is answered.
    if (readings.every((r) => r.unknownCategory)) ctx.readAsUnknown.push({ input: given, exchange: ex });
    return [...noted, observation('CREATE-001', reading.why, ex.seq)];
  }
  if (status !== 201) {
    if (held !== undefined) return [refusedHeldName(status ?? ex.error?.code, held, ex)];
    return [...noted, violation('CREATE-001', `Received ${status ?? ex.error?.code} for a valid NewPet / Expected 201${reading === undefined ? '' : ' (or 400)'}`, ex.seq, unknownCategoryAccepted(input, ctx))];
  }
  const body = jsonBody(ex);
  if (body === undefined || !body.ok || !isJsonObject(body.value)) {
    return [violation('CREATE-001', 'Received a 201 whose body is not a JSON object / Expected the created Pet', ex.seq)];
  }
  const pet = body.value;
  ctx.created += 1;
  if (!ctx.shown.has(input.categoryId)) ctx.unshownCreated ??= { categoryId: input.categoryId, exchange: ex };
  ctx.byExample.set(given, { pet, exchange: ex });
  ctx.shown.add(input.categoryId);
  t.session.store.recordCreated(pet, ex);
  if (held !== undefined) noted.push(observation('CREATE-001', `a NewPet named like pet ${idOf(held.pet) ?? '?'} (exchange #${held.exchange.seq}) was created as pet ${idOf(pet) ?? '?'}: names need not be unique`, ex.seq));
  // A name taken from a member named like it in another case is named as such: the server matched member names ignoring case.
  const taken = otherCaseNameTaken(pet, input);
  const echo = taken === undefined ? 'Created pet does not echo the request' : `Created pet is named by the member "${taken}", not by "name" (member names are case-sensitive)`;
  const findings: Finding[] = [
    ...noted,
    ...fieldDifferences(pet, expectedPet(input), input.status === undefined ? ['name', 'categoryId'] : ['name', 'categoryId', 'status']).map((d) => violation('CREATE-001', `${echo}: ${d}`, ex.seq)),
  ];
  if (input.status === undefined) {
    const got = pet['status'];
    findings.push(observation('CREATE-001', `status omitted on creation: the service returned ${got === undefined ? 'no status' : `status ${JSON.stringify(got)}`}`, ex.seq));
  }
  return findings;
}

/**
 * A 400 for an example that combines two (a name edge with a categoryId edge): each is sent alone
 * and judged as its own case, so a finding names the value the server refuses, and a reading that
 * excuses one (an unknown category, a long name) excuses only its own. Both created alone: the
 * server refused a combination of valid values, a valid NewPet all the same.
 */
async function createEachAlone(t: RequirementRun, parts: readonly NewPetExample[], ex: Exchange, ctx: CreateContext): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const part of parts) {
    for (const f of await createOne(t, part.input, ctx)) findings.push(f.kind === 'violation' && f.requirement === 'CREATE-001' ? inCase(part.label, f) : f);
  }
  const labels = parts.map((p) => p.label).join(' and ');
  const created = parts.map((p) => ctx.byExample.get(p.input)?.exchange);
  if (created.every((c) => c !== undefined)) {
    const where = created.map((c) => `#${c.seq}`).join(', ');
    return [...findings, violation('CREATE-001', `Received 400 for a valid NewPet combining ${labels} / Expected 201: each was created when sent alone`, ex.seq, `exchanges ${where}`)];
  }
  return [...findings, observation('CREATE-001', `the NewPet combining ${labels} was refused with 400: each was sent alone and judged as its own case`, ex.seq)];
}

/** The JSON object a createPet request sent, when the record holds it whole. */
function sentObject(ex: Exchange | undefined): JsonObject | undefined {
  const parsed = ex?.request.body === undefined ? undefined : parseJson(ex.request.body);
  return parsed?.ok === true && isJsonObject(parsed.value) ? parsed.value : undefined;
}

const magnitude = (value: unknown): bigint | undefined =>
  typeof value === 'bigint' ? (value < 0n ? -value : value) : typeof value === 'number' && Number.isInteger(value) ? BigInt(Math.abs(value)) : undefined;

/** Whether a creation sent after this one carried the same name: the pet this one made must still hold it, as created. */
function nameTakenLater(creation: Exchange, creations: readonly Exchange[]): boolean {
  const name = sentObject(creation)?.['name'];
  return typeof name === 'string' && name !== '' && creations.some((other) => other.seq > creation.seq && sentObject(other)?.['name'] === name);
}

/**
 * What a fetch of the pet a creation made can show: 0 for a name sent beside members named like it
 * in other cases (a store may keep theirs), 1 for a name a later creation took (CREATE-001's name
 * already held: a store may have replaced or changed that pet), 2 for a categoryId beyond 2^53 (a
 * store may round it), 3 for any other.
 */
function worthClass(creation: Exchange | undefined, creations: readonly Exchange[]): number {
  const sent = sentObject(creation);
  const size = magnitude(sent?.['categoryId']);
  if (sent !== undefined && otherCaseMembers(sent, 'name').length > 0) return 0;
  if (creation !== undefined && nameTakenLater(creation, creations)) return 1;
  return size !== undefined && size > TWO_53 ? 2 : 3;
}

/** How much a group of creations is worth fetching whole: the name beside other cases first, then a name taken later, then each categoryId beyond 2^53. */
const groupWorthAmong =
  (creations: readonly Exchange[]) =>
  (group: readonly Exchange[]): number =>
    group.reduce((sum, ex) => sum + [10, 2, 1, 0][worthClass(ex, creations)]!, 0);

/**
 * The created pets most worth a fetch, first: the one whose name was sent beside members named
 * like it in other cases (a 201 must store the name sent, not theirs), then one whose name a later
 * creation took, then the one whose categoryId lies nearest above 2^53 (where a double first loses
 * digits), then the others in the order they were sent. Ranked by the requests, not by the order
 * of the answers, so requests sent together choose the same pets in every run.
 */
function worthFetching(t: RequirementRun, pets: readonly JsonObject[], creations: readonly Exchange[]): JsonObject[] {
  const rank = (pet: JsonObject): [number, bigint, number] => {
    const ex = t.session.store.creationOf(pet);
    const size = magnitude(sentObject(ex)?.['categoryId']);
    const group = worthClass(ex, creations);
    return [group, group === 2 ? (size ?? 0n) : 0n, ex?.seq ?? Number.MAX_SAFE_INTEGER];
  };
  const ranked = pets.map((pet) => ({ pet, rank: rank(pet) }));
  ranked.sort(({ rank: a }, { rank: b }) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) || a[2] - b[2]);
  return ranked.map(({ pet }) => pet);
}

/**
 * The fields a fetch is judged on: those the 201 echoed as sent, or that were not sent. A field the
 * 201 echoed wrong is CREATE-001's finding, whatever the store then holds: the fetch is compared
 * with the 201, so a store that keeps the wrong value adds nothing, and one that keeps the value
 * sent is not a second defect.
 */
function fieldsEchoedAsSent(pet: JsonObject, sent: JsonObject | undefined): string[] {
  return PET_FIELDS.filter((field) => sent === undefined || !Object.hasOwn(sent, field) || fieldDifferences(pet, sent, [field]).length === 0);
}

/** The pets this run created, each with the exchange whose 201 returned it, in send order. */
function createdPets(t: RequirementRun): CreatedPet[] {
  return t.session.store.createdPets.flatMap((pet) => {
    const creation = t.session.store.creationOf(pet);
    return creation === undefined ? [] : [{ pet, creation }];
  });
}

/**
 * The pets CREATE-002 fetches: every one of the largest group of creations in flight together
 * (overlapping writes, issue 24; among groups as large, the one worth most), then the others most
 * worth a fetch (worthFetching), one fetch per
 * id (two creations answered with one id are PET-002's finding, and a store can show only one pet
 * under it), at most MAX_FETCHES; and, when those leave them out, the pet whose name was sent beside
 * members named like it in other cases (a store may keep theirs) and the pet whose name a later
 * creation took (a store may replace or drop a pet when a second one takes its name).
 */
function toFetch(t: RequirementRun, created: readonly CreatedPet[], together: readonly Exchange[]): CreatedPet[] {
  const creations = created.map((c) => c.creation);
  const ranked = worthFetching(t, created.map((c) => c.pet), creations).flatMap((pet) => created.filter((c) => c.pet === pet));
  const first = ranked.filter((c) => together.includes(c.creation));
  const byId = new Map<bigint, CreatedPet>();
  for (const c of [...first, ...ranked.filter((other) => !first.includes(other))]) {
    const id = idOf(c.pet);
    if (id !== undefined && !byId.has(id)) byId.set(id, c);
  }
  const chosen = [...byId.values()].slice(0, MAX_FETCHES);
  // Whichever group overlapped most (that follows the machine's timing), these are fetched in every run.
  const always = [...byId.values()].filter((c) => worthClass(c.creation, creations) === 0 || nameTakenLater(c.creation, creations));
  return [...chosen, ...always.filter((c) => !chosen.includes(c))];
}

const SENT_ALONE =
  "the creations went one at a time (the key's window had no room for more at once, a 429 was met, or no X-RateLimit-Remaining was shown): overlapping creations were not exercised";

/** What the run's creations showed of overlapping writes, for PET-002 and CREATE-002: how many were in flight at once. */
function noteOverlap(t: RequirementRun, together: readonly Exchange[]): void {
  if (together.length < 2) {
    t.record([observation('PET-002', SENT_ALONE), observation('CREATE-002', SENT_ALONE)]);
    return;
  }
  const which = `${together.length} creations were in flight together (exchanges ${together.map((ex) => `#${ex.seq}`).join(', ')})`;
  t.record([observation('PET-002', `${which}: their ids were checked for collisions`), observation('CREATE-002', `${which}: their pets are fetched first`)]);
}

export const createPet = suite('4.2 createPet', () => {
  requirementTest('CREATE-001', async (t) => {
    if (t.session.config.readOnly) t.notExercised(WRITES_DISABLED);
    const plan = await t.session.plan();
    const census = await t.session.store.census();
    const shortOfDefaultPage = census.wholeStore ? Math.max(0, PETS_FOR_DEFAULT_PAGE - census.pets.length) : 0;
    const categoryIds = await t.session.store.knownCategoryIds();
    // With no category shown anywhere, 1 stands in; a 400 for it is then an observation too.
    const examples = newPetExamples(categoryIds[0] ?? 1n);
    const ctx: CreateContext = {
      shown: new Set(categoryIds),
      nameEdges: new Set(newPetCases(examples).filter((e) => e.nameEdge).map((e) => e.input)),
      created: 0,
      byExample: new Map(),
      readAsUnknown: [],
    };
    const runs = Math.max(plan.validCreate, shortOfDefaultPage - examples.length);
    try {
      await t.property(validNewPet({ categoryIds }), (input) => createOne(t, input, ctx), {
        runs,
        examples,
        classes: 'kinds of valid NewPet',
        classOf: () => 'NewPet',
        // Sent in groups at the same moment: overlapping creations must still get ids of their own
        // (PET-002) and be stored as created (CREATE-002, which fetches them).
        examplesTogether: 'groups',
      });
    } finally {
      t.session.store.storeWritten();
    }
    // A creation of an unshown category answered after a refusal of another shows the same as one before it.
    for (const { input, exchange } of ctx.readAsUnknown) {
      const accepted = unknownCategoryAccepted(input, ctx);
      if (accepted !== undefined) t.record([violation('CREATE-001', 'Received 400 for a valid NewPet, first read as an unknown category / Expected 201', exchange.seq, accepted)]);
    }
    if (ctx.created === 0) t.inconclusive('no createPet succeeded: every valid NewPet sent was refused with 400 (see the observations), so no echo could be judged');
  });

  requirementTest('CREATE-002', async (t) => {
    if (t.session.config.readOnly) t.notExercised(WRITES_DISABLED);
    // Pets without an integer id cannot be fetched; PET-001 judges their shape. A pet made from a
    // body that should have been refused is CREATE-003's finding, whatever a fetch then shows.
    const created = createdPets(t).filter(({ pet }) => idOf(pet) !== undefined && !t.session.store.probes.isAcceptedInvalid(pet));
    if (created.length === 0) t.inconclusive('no pet with an integer id was created in this run (createPet failed or was deselected)');
    const creations = created.map((c) => c.creation);
    const together = inFlightTogether(creations, groupWorthAmong(creations));
    noteOverlap(t, together);
    let undecided: string | undefined;
    for (const pet of toFetch(t, created, together)) {
      const fetch = await fetchCreated(t, { ...pet, fields: fieldsEchoedAsSent(pet.pet, sentObject(pet.creation)) });
      t.record(fetch.findings);
      undecided ??= fetch.undecided;
    }
    // The sequences' findings are CREATE-002's too, whatever the fixed fetches could tell.
    await judgeSequences(t);
    if (undecided !== undefined) t.inconclusive(undecided);
  });

  requirementTest('CREATE-003', async (t) => {
    if (t.session.config.readOnly) t.notExercised(WRITES_DISABLED);
    const plan = await t.session.plan();
    await t.session.store.openBracket('CREATE-004');
    try {
      await t.property(
        invalidNewPetBody(),
        async (invalid) => {
          const ex = await t.send({ method: 'POST', path: '/pets', body: withMarker(invalid.body, t.session.store.probes.next()), contentType: invalid.contentType });
          const status = ex.response?.status;
          t.session.store.recordIfCreated(ex);
          if (status === 400) return [];
          return [violation('CREATE-003', `Received ${status ?? ex.error?.code} for an invalid NewPet / Expected 400`, ex.seq)];
        },
        {
          runs: plan.invalidCreate,
          examples: invalidNewPetExamples().map((input) => ({ label: input.label, className: input.kind, input })),
          classes: 'invalid classes',
          classOf: (input) => input.kind,
          // Each is refused (or not) on its own; the bracket is the creations before the first and after the last.
          examplesTogether: true,
        },
      );
    } finally {
      t.session.store.storeWritten();
    }
  });
});
