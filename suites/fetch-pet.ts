/**
 * GET /pets/{id} for a pet whose fields are known (from a listing or a creation), judged for the
 * calling requirement: 200 and the same id, name, categoryId and (where both show one) status,
 * integers compared exactly.
 */
import type { RequirementRun } from '../src/conformance/requirement-test.js';
import { jsonBody } from '../src/checks/body.js';
import type { Exchange } from '../src/http/exchange.js';
import { isJsonObject, type JsonObject } from '../src/interface/json.js';
import { fieldDifferences, idOf, PET_FIELDS } from './support.js';

export async function fetchAndCompare(t: RequirementRun, pet: JsonObject, what: string, fields: readonly string[] = PET_FIELDS): Promise<void> {
  const ex = await t.send({ method: 'GET', path: `/pets/${idOf(pet)}` });
  t.session.fetchedPets.push({ pet, exchange: ex });
  judgeFetch(t, pet, ex, what, fields);
}

/**
 * One fetch of `pet` judged for the calling requirement on `fields`. GET-001 also judges, on the
 * id alone, the fetches of pets the run created (CREATE-002's requests: each is a getPet of an
 * existing id, so one request serves both; whether the stored fields match the echo is CREATE-002's).
 */
export function judgeFetch(t: RequirementRun, pet: JsonObject, ex: Exchange, what: string, fields: readonly string[] = PET_FIELDS): void {
  const body = jsonBody(ex);
  if (ex.response?.status !== 200 || body === undefined || !body.ok || !isJsonObject(body.value)) {
    t.fail(`GET /pets/${idOf(pet)} for ${what}: received ${ex.response?.status ?? ex.error?.code} / expected 200 and the Pet`, ex);
    return;
  }
  const fetched = body.value;
  // status is optional in Pet: a representation that leaves it out is not a different pet.
  const comparable = fields.filter((f) => f !== 'status' || (fetched['status'] !== undefined && pet['status'] !== undefined));
  for (const d of fieldDifferences(fetched, pet, comparable)) t.fail(`The pet fetched by id differs from ${what}: ${d}`, ex);
}
