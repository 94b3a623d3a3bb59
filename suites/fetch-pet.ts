/**
 * GET /pets/{id} for a pet whose fields are known (from a listing or a creation), judged for the
 * calling requirement: 200 and the same id, name, categoryId and (where both show one) status,
 * integers compared exactly.
 */
import type { RequirementRun } from '../src/conformance/requirement-test.js';
import { jsonBody } from '../src/checks/body.js';
import { violation, type Finding } from '../src/checks/finding.js';
import type { SendRequest } from '../src/http/client.js';
import type { Exchange } from '../src/http/exchange.js';
import { isJsonObject, type JsonObject } from '../src/interface/json.js';
import { fieldDifferences, idOf, PET_FIELDS } from './support.js';

type Send = (request: Omit<SendRequest, 'purpose'>) => Promise<Exchange>;

/** A fetch and what it showed, judged but not recorded: the caller decides where the findings go. */
export interface Fetched {
  exchanges: Exchange[];
  findings: Finding[];
}

export async function fetchAndCompare(t: RequirementRun, pet: JsonObject, what: string): Promise<void> {
  const { exchanges, findings } = await fetchPet((request) => t.send(request), pet, what, t.id);
  for (const exchange of exchanges) t.session.fetchedPets.push({ pet, exchange });
  t.record(findings);
}

/**
 * The one way a pet this run created is fetched and judged, as anything that relies on a creation
 * does (the model-based sequences' getPet, suites/model-sequences.ts): what the spec allows between
 * a creation and its first read belongs here, once.
 */
export function fetchCreatedPet(send: Send, pet: JsonObject, what: string, requirement: string): Promise<Fetched> {
  return fetchPet(send, pet, what, requirement);
}

async function fetchPet(send: Send, pet: JsonObject, what: string, requirement: string): Promise<Fetched> {
  const ex = await send({ method: 'GET', path: `/pets/${idOf(pet)}` });
  return { exchanges: [ex], findings: fetchFindings(requirement, pet, ex, what) };
}

/**
 * How a pet the service showed differs from one known: in `fields`, with status compared only
 * where both show one (status is optional in Pet: a representation that leaves it out is not a
 * different pet).
 */
export function petDifferences(shown: JsonObject, known: JsonObject, fields: readonly string[] = PET_FIELDS): string[] {
  const comparable = fields.filter((f) => f !== 'status' || (shown['status'] !== undefined && known['status'] !== undefined));
  return fieldDifferences(shown, known, comparable);
}

/**
 * One fetch of `pet` judged for `requirement` on `fields`. GET-001 also judges, on the id alone,
 * the fetches of pets the run created (CREATE-002's requests: each is a getPet of an existing id,
 * so one request serves both; whether the stored fields match the echo is CREATE-002's).
 */
export function fetchFindings(requirement: string, pet: JsonObject, ex: Exchange, what: string, fields: readonly string[] = PET_FIELDS): Finding[] {
  const body = jsonBody(ex);
  if (ex.response?.status !== 200 || body === undefined || !body.ok || !isJsonObject(body.value)) {
    return [violation(requirement, `GET /pets/${idOf(pet)} for ${what}: received ${ex.response?.status ?? ex.error?.code} / expected 200 and the Pet`, ex.seq)];
  }
  return petDifferences(body.value, pet, fields).map((d) => violation(requirement, `The pet fetched by id differs from ${what}: ${d}`, ex.seq));
}

/** fetchFindings for the calling requirement, recorded. */
export function judgeFetch(t: RequirementRun, pet: JsonObject, ex: Exchange, what: string, fields: readonly string[] = PET_FIELDS): void {
  t.record(fetchFindings(t.id, pet, ex, what, fields));
}
