/**
 * Section 4.3, getPet (deprecated): a known id gives that Pet, an unknown id 404 (an ordinary
 * one, one above 2^53 and the int64 maximum; zero and a negative id, which a service may also
 * refuse as malformed, 404 or 400), a petId that is not an int64 (abc, 1.5, one beyond int64 on
 * either side) a client error. Every run sends all of them. The Deprecation/Sunset headers are judged on every getPet response by the
 * cross-cutting checks (GET-004, GET-005).
 */
import { suite } from '../src/conformance/suite.js';
import { requirementTest, type RequirementRun } from '../src/conformance/requirement-test.js';
import { jsonBody } from '../src/checks/body.js';
import { isJsonObject, type JsonObject } from '../src/interface/json.js';
import { fetchAndCompare, judgeFetch } from './fetch-pet.js';
import { idOf } from './support.js';
import { NON_POSITIVE_IDS, NOT_INT64, UNKNOWN_ID_PROBES, unknownIdCandidates, type UnknownIdProbe } from '../src/arbitraries/pet-ids.js';

/** Ids a probe sends at most: a pet that turns out to exist (unlisted) moves it on to the next. */
const UNKNOWN_ID_TRIES = 3;

/**
 * Sends the probe's first id the run has not seen and expects 404; a pet that really has that id
 * moves on to the next. Returns why it could not tell, or undefined.
 */
async function expectNotFound(t: RequirementRun, probe: UnknownIdProbe, known: ReadonlySet<bigint>, largest: bigint): Promise<string | undefined> {
  const candidates = unknownIdCandidates(probe, known, largest, UNKNOWN_ID_TRIES);
  const first = probe.first(largest);
  for (const id of candidates) {
    const ex = await t.send({ method: 'GET', path: `/pets/${id}` });
    if (id !== first && known.has(first)) t.observe(`${probe.label}: ${first} is listed, so ${id} was sent instead`, ex);
    const status = ex.response?.status;
    if (status === 404) return undefined;
    if (status === undefined || status === 429) return `GET /pets/${id} (${probe.label}) got ${status ?? ex.error?.code}`;
    const body = jsonBody(ex);
    if (status === 200 && body?.ok === true && isJsonObject(body.value) && idOf(body.value) === id) {
      t.observe(`pet ${id} exists although no listing showed it; trying another id`, ex);
      continue;
    }
    t.fail(`GET /pets/${id} (${probe.label}, no listing shows it): received ${status} / expected 404`, ex);
    return undefined;
  }
  return `every candidate for ${probe.label} (${candidates.join(', ')}) turned out to exist`;
}

/** Ids to probe, chosen to include one above 2^53 when the store has one (lossless reading). */
/** The first listed pet, and the largest listed id when it lies above 2^53 (where a double loses it). */
function probeIds(pets: readonly JsonObject[]): JsonObject[] {
  const withIds = pets.filter((p) => idOf(p) !== undefined);
  const [first] = withIds;
  if (first === undefined) return [];
  const largest = withIds.reduce((a, b) => ((idOf(b) ?? 0n) > (idOf(a) ?? 0n) ? b : a));
  return largest !== first && (idOf(largest) ?? 0n) > TWO_53 ? [first, largest] : [first];
}

const TWO_53 = 2n ** 53n;

export const getPet = suite('4.3 getPet', () => {
  requirementTest('GET-001', async (t) => {
    const census = await t.session.store.census();
    // A pet made from a body that should have been refused (CREATE-003), or one the Pet schema refuses
    // (PET-001), is another requirement's finding, not a known id to judge getPet by.
    const listed = t.session.store.usable(census.pets);
    const pets = probeIds(listed.length > 0 ? listed : t.session.store.usable(t.session.store.createdPets));
    // The pets this run created and fetched (CREATE-002) are existing ids too: those requests serve
    // GET-001 as well. Not their 404s: a created pet not found (within the read-after-write grace
    // or past it) is CREATE-002's to judge, as getPet answered for the ids it holds.
    const created = t.session.store.fetchedPets.filter(({ pet, exchange }) => t.session.store.createdPets.includes(pet) && exchange.response?.status !== 404);
    if (pets.length === 0 && created.length === 0) t.inconclusive('no pet is listed and none could be created, so there is no known id to fetch');
    for (const { pet, exchange } of created) judgeFetch(t, pet, exchange, 'a pet this run created (fetched for CREATE-002)', ['id']);
    for (const pet of pets) await fetchAndCompare(t, pet, 'a listed pet');
  });

  requirementTest('GET-002', async (t) => {
    const census = await t.session.store.census();
    const known = new Set([...census.pets, ...t.session.store.knownPets.values()].map((p) => idOf(p)).filter((id) => id !== undefined));
    const largest = [...known].reduce((a, b) => (b > a ? b : a), 0n);
    for (const id of NON_POSITIVE_IDS.filter((v) => !known.has(v))) {
      const ex = await t.send({ method: 'GET', path: `/pets/${id}` });
      const status = ex.response?.status;
      const body = jsonBody(ex);
      if (status === undefined || status === 429) return t.inconclusive(`GET /pets/${id} got ${status ?? ex.error?.code}`);
      if (status === 404 || status === 400) t.observe(`GET /pets/${id} answered ${status}`, ex);
      else if (status === 200 && body?.ok === true && isJsonObject(body.value) && idOf(body.value) === id) t.observe(`pet ${id} exists although no listing showed it`, ex);
      else if (status > 401 && status < 500) t.observe(`GET /pets/${id} answered ${status} (a client error other than 400/404)`, ex);
      else t.fail(`GET /pets/${id} for an id no listing shows: received ${status ?? ex.error?.code} / expected 404 (or 400)`, ex);
    }
    const unknown: string[] = [];
    for (const probe of UNKNOWN_ID_PROBES) {
      const outcome = await expectNotFound(t, probe, known, largest);
      if (outcome !== undefined) unknown.push(outcome);
    }
    if (unknown.length > 0) t.inconclusive(unknown.join('; '));
  });

  requirementTest('GET-003', async (t) => {
    for (const raw of NOT_INT64) {
      const ex = await t.send({ method: 'GET', path: `/pets/${raw}` });
      const status = ex.response?.status;
      if (status === undefined) return t.inconclusive(`GET /pets/${raw} got no response (${ex.error?.code})`);
      if (status === 400 || status === 404) t.observe(`GET /pets/${raw} answered ${status}`, ex);
      else if (status >= 400 && status < 500) t.observe(`GET /pets/${raw} answered ${status} (a client error other than 400/404)`, ex);
      else t.fail(`GET /pets/${raw} (not an int64): received ${status} / expected a 4xx client error`, ex);
    }
  });
});
