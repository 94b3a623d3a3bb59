/**
 * Section 4.2, createPet: valid NewPets are created and echoed (property-based), can be fetched
 * again, and invalid bodies are rejected with 400. Runs first among the suites that need data,
 * so the pets it creates also give the listing suite the 21 pets the default page needs.
 */
import { describe } from 'vitest';
import { requirementTest, type RequirementRun } from '../src/conformance/requirement-test.js';
import { violation, observation, type Finding } from '../src/checks/finding.js';
import { jsonBody } from '../src/checks/body.js';
import { isJsonObject, type JsonObject } from '../src/interface/json.js';
import { validNewPet, newPetBody, type NewPetInput } from '../src/arbitraries/newPet.js';
import { invalidNewPetBody, invalidNewPetExamples } from '../src/arbitraries/invalidNewPet.js';
import { statusValues } from '../src/interface/openapi.js';
import { fetchAndCompare } from './fetch-pet.js';
import { fieldDifferences, idOf } from './support.js';

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

async function createOne(t: RequirementRun, input: NewPetInput): Promise<Finding[]> {
  const ex = await t.send({ method: 'POST', path: '/pets', body: newPetBody(input), contentType: 'application/json' });
  const status = ex.response?.status;
  if (status !== 201) {
    return [violation('CREATE-001', `Received ${status ?? ex.error?.code} for a valid NewPet / Expected 201`, ex.seq)];
  }
  const body = jsonBody(ex);
  if (body === undefined || !body.ok || !isJsonObject(body.value)) {
    return [violation('CREATE-001', 'Received a 201 whose body is not a JSON object / Expected the created Pet', ex.seq)];
  }
  const pet = body.value;
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
    if (t.session.config.readOnly) t.notExercised('writes are disabled (--read-only)');
    const plan = await t.session.plan();
    const census = await t.session.census();
    const shortOfDefaultPage = census.wholeStore ? Math.max(0, PETS_FOR_DEFAULT_PAGE - census.pets.length) : 0;
    const prefix = t.session.namePrefix;
    // One pet of each status first, so the status filters always have something to find.
    const examples: NewPetInput[] = statusValues().map((status, i) => ({ name: `${prefix}${status}-${i}`, categoryId: BigInt(i + 1), status }));
    const runs = Math.max(plan.validCreate, shortOfDefaultPage - examples.length);
    try {
      await t.property(validNewPet({ namePrefix: prefix }), (input) => createOne(t, input), { runs, examples });
    } finally {
      t.session.invalidateCensus();
    }
  });

  requirementTest('CREATE-002', async (t) => {
    if (t.session.config.readOnly) t.notExercised('writes are disabled (--read-only)');
    // Pets without an integer id cannot be fetched; PET-001 judges their shape.
    const created = t.session.createdPets.filter((p) => idOf(p) !== undefined).slice(0, MAX_FETCHES);
    if (created.length === 0) t.inconclusive('no pet with an integer id was created in this run (writes disabled, or createPet failed)');
    for (const pet of created) await fetchAndCompare(t, pet, 'a pet just created');
  });

  requirementTest('CREATE-003', async (t) => {
    if (t.session.config.readOnly) t.notExercised('writes are disabled (--read-only)');
    const plan = await t.session.plan();
    const marker = `${t.session.namePrefix}invalid-`;
    try {
      await t.property(
        invalidNewPetBody({ marker }),
        async (invalid) => {
          const ex = await t.send({ method: 'POST', path: '/pets', body: invalid.body, contentType: invalid.contentType });
          const status = ex.response?.status;
          t.session.recordRefused('CREATE-004', ex);
          if (status === 201) {
            const body = jsonBody(ex);
            if (body?.ok === true && isJsonObject(body.value)) t.session.recordCreated(body.value, ex);
          }
          if (status === 400) return [];
          return [violation('CREATE-003', `Received ${status ?? ex.error?.code} for an invalid NewPet (${invalid.kind}) / Expected 400`, ex.seq)];
        },
        { runs: plan.invalidCreate, examples: invalidNewPetExamples({ marker }) },
      );
    } finally {
      t.session.invalidateCensus();
    }
  });
});
