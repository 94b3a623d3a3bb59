/**
 * Section 4.2, createPet: valid NewPets are created and echoed, can be fetched again, and invalid
 * bodies are rejected with 400. Both properties send their fixed examples (every edge, every class
 * of invalid body) before the seeded random runs, and every request names its pet with a marker of
 * its own. Runs first among the suites that need data, so the pets it creates also give the listing
 * suite the 21 pets the default page needs.
 */
import { describe } from 'vitest';
import { requirementTest, type RequirementRun } from '../src/conformance/requirement-test.js';
import { violation, observation, type Finding } from '../src/checks/finding.js';
import { jsonBody } from '../src/checks/body.js';
import { isJsonObject, type JsonObject } from '../src/interface/json.js';
import { validNewPet, newPetBody, newPetExamples, type NewPetInput } from '../src/arbitraries/newPet.js';
import { invalidNewPetBody, invalidNewPetExamples } from '../src/arbitraries/invalidNewPet.js';
import { withMarker } from '../src/arbitraries/marker.js';
import { fetchAndCompare } from './fetch-pet.js';
import { judgeSequences } from './model-sequences.js';
import { fieldDifferences, idOf, WRITES_DISABLED } from './support.js';

/** The default page is 20, so telling it apart from a larger one needs 21 pets. */
const PETS_FOR_DEFAULT_PAGE = 21;
/** Fetching every created pet would double the cost of the property; a few prove the point. */
const MAX_FETCHES = 5;

function expectedPet(input: NewPetInput): JsonObject {
  return {
    name: input.name,
    categoryId: input.categoryId,
    ...(input.status === undefined ? {} : { status: input.status }),
  };
}

/** What CREATE-001 knows while its property runs: categories the server shows, and creations that succeeded. */
interface CreateContext {
  shown: Set<bigint>;
  /** Inputs for which a 400 is reasonable (empty or very long name): the spec sets no rule on names. */
  nameEdges: ReadonlySet<NewPetInput>;
  created: number;
}

/** Why a 400 for this valid NewPet is a reasonable reading, or undefined when it is not. */
function refusalReading(input: NewPetInput, ctx: CreateContext): string | undefined {
  if (!ctx.shown.has(input.categoryId)) return `the server refused categoryId ${input.categoryId} it does not show: reading it as an unknown category`;
  if (ctx.nameEdges.has(input)) return `the server refused a name of ${[...input.name].length} characters: the spec sets no rule on names, so this is recorded, not failed`;
  return undefined;
}

async function createOne(t: RequirementRun, given: NewPetInput, ctx: CreateContext): Promise<Finding[]> {
  const input: NewPetInput = { ...given, name: withMarker(given.name, t.session.probes.next()) };
  const ex = await t.send({ method: 'POST', path: '/pets', body: newPetBody(input), contentType: 'application/json' });
  const status = ex.response?.status;
  const reading = refusalReading(given, ctx);
  if (status === 400 && reading !== undefined) return [observation('CREATE-001', reading, ex.seq)];
  if (status !== 201) {
    return [violation('CREATE-001', `Received ${status ?? ex.error?.code} for a valid NewPet / Expected 201${reading === undefined ? '' : ' (or 400)'}`, ex.seq)];
  }
  const body = jsonBody(ex);
  if (body === undefined || !body.ok || !isJsonObject(body.value)) {
    return [violation('CREATE-001', 'Received a 201 whose body is not a JSON object / Expected the created Pet', ex.seq)];
  }
  const pet = body.value;
  ctx.created += 1;
  ctx.shown.add(input.categoryId);
  t.session.recordCreated(pet, ex);
  const findings: Finding[] = fieldDifferences(pet, expectedPet(input), input.status === undefined ? ['name', 'categoryId'] : ['name', 'categoryId', 'status']).map(
    (d) => violation('CREATE-001', `Created pet does not echo the request: ${d}`, ex.seq),
  );
  if (input.status === undefined) {
    const got = pet['status'];
    findings.push(observation('CREATE-001', `status omitted on creation: the service returned ${got === undefined ? 'no status' : `status ${JSON.stringify(got)}`}`, ex.seq));
  }
  return findings;
}

describe('4.2 createPet', () => {
  requirementTest('CREATE-001', async (t) => {
    if (t.session.config.readOnly) t.notExercised(WRITES_DISABLED);
    const plan = await t.session.plan();
    const census = await t.session.census();
    const shortOfDefaultPage = census.wholeStore ? Math.max(0, PETS_FOR_DEFAULT_PAGE - census.pets.length) : 0;
    const categoryIds = await t.session.knownCategoryIds();
    // With no category shown anywhere, 1 stands in; a 400 for it is then an observation too.
    const examples = newPetExamples(categoryIds[0] ?? 1n);
    const ctx: CreateContext = {
      shown: new Set(categoryIds),
      nameEdges: new Set(examples.filter((e) => e.nameEdge).map((e) => e.input)),
      created: 0,
    };
    const runs = Math.max(plan.validCreate, shortOfDefaultPage - examples.length);
    try {
      await t.property(validNewPet({ categoryIds }), (input) => createOne(t, input, ctx), {
        runs,
        examples,
        classes: 'kinds of valid NewPet',
        classOf: () => 'NewPet',
      });
    } finally {
      t.session.storeWritten();
    }
    if (ctx.created === 0) t.inconclusive('no createPet succeeded: every valid NewPet sent was refused with 400 (see the observations), so no echo could be judged');
  });

  requirementTest('CREATE-002', async (t) => {
    if (t.session.config.readOnly) t.notExercised(WRITES_DISABLED);
    // Pets without an integer id cannot be fetched; PET-001 judges their shape. A pet made from a
    // body that should have been refused is CREATE-003's finding, whatever a fetch then shows.
    const created = t.session.createdPets.filter((p) => idOf(p) !== undefined && !t.session.probes.isAcceptedInvalid(p)).slice(0, MAX_FETCHES);
    if (created.length === 0) t.inconclusive('no pet with an integer id was created in this run (createPet failed or was deselected)');
    for (const pet of created) await fetchAndCompare(t, pet, 'a pet just created');
    await judgeSequences(t);
  });

  requirementTest('CREATE-003', async (t) => {
    if (t.session.config.readOnly) t.notExercised(WRITES_DISABLED);
    const plan = await t.session.plan();
    await t.session.openBracket('CREATE-004');
    try {
      await t.property(
        invalidNewPetBody(),
        async (invalid) => {
          const ex = await t.send({ method: 'POST', path: '/pets', body: withMarker(invalid.body, t.session.probes.next()), contentType: invalid.contentType });
          const status = ex.response?.status;
          if (status === 201) {
            const body = jsonBody(ex);
            if (body?.ok === true && isJsonObject(body.value)) t.session.recordCreated(body.value, ex);
          }
          if (status === 400) return [];
          return [violation('CREATE-003', `Received ${status ?? ex.error?.code} for an invalid NewPet / Expected 400`, ex.seq)];
        },
        {
          runs: plan.invalidCreate,
          examples: invalidNewPetExamples().map((input) => ({ label: input.kind, input })),
          classes: 'invalid classes',
          classOf: (input) => input.kind,
          // Each is refused (or not) on its own; the bracket is the creations before the first and after the last.
          examplesTogether: true,
        },
      );
    } finally {
      t.session.storeWritten();
    }
  });
});
