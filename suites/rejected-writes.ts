/**
 * CREATE-004 and AUTH-004: a refused createPet leaves the store unchanged. Every refused request
 * named its pet with a marker of its own, so a stored one is traced to exactly one request; a
 * marker that was ever accepted is never counted. Showing that nothing was stored needs a view of
 * everything the refused requests could have added; the strongest the server allows is used:
 *   (a) one limit=100 listing, when it shows the whole store;
 *   (b) bracketing: the creations right before and right after the refused requests; when the ids
 *       are dense, every id between them is this run's own creation or is fetched (at most 10,
 *       one more for each of the other requirement's refused requests inside the same bracket);
 *   (c) a status filter whose page is not full, when every refused body carried that status and
 *       the page shows this run's own pets of that status (so the filter is not hiding pets);
 *   (d) a listing in creation order that shows both bracketing creations: whatever the ids, what
 *       was created between them is listed between them.
 * Inconclusive only when none decides, with each method's reason.
 */
import { suite } from '../src/conformance/suite.js';
import { requirementTest, type RequirementRun } from '../src/conformance/requirement-test.js';
import { jsonBody } from '../src/checks/body.js';
import { petsOf } from '../src/checks/pet-shape.js';
import { isJsonObject, parseJson, type JsonObject } from '../src/interface/json.js';
import type { Exchange } from '../src/http/exchange.js';
import type { Creation, RefusalRequirement } from '../src/session/probes.js';
import { refusedBodyStatus } from '../src/arbitraries/invalidNewPet.js';
import { MAX_GAP_FETCHES } from '../src/session/budget-plan.js';
import { idOf, WRITES_DISABLED } from './support.js';
import { SharedKey } from '../src/session/shared-results.js';

const FULL_PAGE = 100;

// Shared by CREATE-004 and AUTH-004, which may share a bracket.
const GAP_FETCH = new SharedKey<Exchange, bigint>('a getPet of an id between the bracket\'s two');
const STATUS_LISTING = new SharedKey<Exchange, string>('the listing filtered by the refused bodies\' status');
const CLOSING_CREATION = new SharedKey<Exchange>('the creation that closes the bracket');
const LISTING_AFTER_CLOSE = new SharedKey<Exchange, number>('the listing after a closing creation');

type Decision = { decided: true; how: string } | { decided: false; why: string };
type Refused = ReadonlyMap<string, Exchange>;
type Method = (t: RequirementRun, requirement: RefusalRequirement, refused: Refused) => Promise<Decision>;

const decided = (how: string): Decision => ({ decided: true, how });
const undecided = (why: string): Decision => ({ decided: false, why });

/** Fails the requirement for every pet that carries the marker of one of its refused requests. */
function reportLeaks(t: RequirementRun, requirement: RefusalRequirement, pets: readonly JsonObject[], ex: Exchange): void {
  for (const pet of pets) {
    const source = t.session.store.probes.refusedSource(pet, requirement);
    if (source === undefined) continue;
    t.fail(
      `A refused createPet was stored anyway: pet ${String(idOf(pet) ?? pet['id'])} named ${JSON.stringify(pet['name'])} carries the marker sent only in exchange #${source.seq}, refused with ${source.response?.status ?? '?'}`,
      ex,
    );
  }
}

const byWholeListing: Method = async (t, requirement, refused) => {
  // Pets are never deleted: a store that filled a page before the refused requests still does, and
  // a listing taken now would cost a request only to say so.
  const full = t.session.store.fullPageCensus;
  if (full !== undefined && full.exchange.seq < Math.min(...[...refused.values()].map((ex) => ex.seq))) {
    return undecided(`(a) the store holds 100 pets or more (a full limit=100 page at exchange #${full.exchange.seq}, and pets are never deleted), so one limit=100 listing cannot show it all`);
  }
  const census = await t.session.store.census();
  t.cite(census.exchange);
  if (!census.ok) return undecided('(a) the limit=100 listing failed');
  reportLeaks(t, requirement, census.pets, census.exchange);
  if (census.wholeStore) return decided(`(a) one limit=100 listing shows the whole store (${census.pets.length} pets)`);
  return undecided('(a) the store holds 100 pets or more, so one limit=100 listing cannot show it all');
};

const byBracket: Method = async (t, requirement, refused) => {
  const bracket = await brackets(t, refused);
  if (typeof bracket === 'string') return undecided(`(b) ${bracket}`);
  const { open, close } = bracket;
  const creations = t.session.store.probes.creations;
  const [a, b] = [open.id, close.id];
  if (b <= a) return undecided(`(b) ids do not grow with creation order (${a}, then ${b})`);
  const between = creations.filter((c) => c.seq > open.seq && c.seq < close.seq);
  if (between.some((c) => c.id <= a || c.id >= b)) return undecided(`(b) this run's own creations between ${a} and ${b} got ids outside that range`);
  const ours = new Set(creations.map((c) => c.id));
  const gap = b - a - 1n;
  const own = BigInt(new Set(between.map((c) => c.id)).size);
  // The other requirement's refused requests may share the bracket (AUTH-004's and CREATE-004's):
  // a pet one of them stored anyway carries its marker, so each may account for one more id.
  const other = t.session.store.probes.refused(requirement === 'AUTH-004' ? 'CREATE-004' : 'AUTH-004');
  const maxFetches = MAX_GAP_FETCHES + [...other.values()].filter((ex) => ex.seq > open.seq && ex.seq < close.seq).length;
  const dense = gap - own <= BigInt(maxFetches);
  // A gap too wide to prove absence but no wider than the refused requests could have made it is
  // still searched: a server that stores refused bodies widens the gap itself.
  const leakSized = gap - own <= BigInt(maxFetches + refused.size);
  if (!leakSized) return undecided(`(b) ids are not dense: ${gap} ids lie between ${a} and ${b}, ${own} of them this run's own creations`);
  let fetched = 0;
  for (let id = a + 1n; id < b && fetched < maxFetches; id++) {
    if (ours.has(id)) continue;
    // CREATE-004 and AUTH-004 may share a bracket: an id is fetched once for both.
    const ex = await t.session.shared.onceFor(GAP_FETCH, id, () => t.send({ method: 'GET', path: `/pets/${id}` }));
    t.cite(ex);
    fetched += 1;
    const status = ex.response?.status;
    if (status === 404) continue;
    const body = jsonBody(ex);
    if (status !== 200 || body?.ok !== true || !isJsonObject(body.value)) return undecided(`(b) GET /pets/${id} answered ${status ?? ex.error?.code}`);
    reportLeaks(t, requirement, [body.value], ex);
    if (!explained(t, body.value)) return undecided(`(b) pet ${id}, created between the two, carries no marker of this run: another client's, or a refused body stored without its name`);
  }
  if (!dense) return undecided(`(b) ids are not dense: ${gap} ids lie between ${a} and ${b}, ${own} of them this run's own creations`);
  return decided(`(b) bracketing: creations ${a} (exchange #${open.seq}) and ${b} (exchange #${close.seq}) around the refused requests; ${gap} ids between, ${own} of them this run's own creations, ${fetched} fetched`);
};

function sentStatus(ex: Exchange): unknown {
  const parsed = parseJson(ex.request.body ?? '');
  return parsed.ok && isJsonObject(parsed.value) ? parsed.value['status'] : undefined;
}

const byStatusFilter: Method = async (t, requirement, refused) => {
  const status = refusedBodyStatus();
  const other = [...refused.values()].filter((ex) => sentStatus(ex) !== status).length;
  if (other > 0) return undecided(`(c) ${other} refused bodies did not carry status ${status}, so no one filter covers them`);
  const ex = await t.session.shared.onceFor(STATUS_LISTING, status, () => t.send({ method: 'GET', path: '/pets', query: [['status', status], ['limit', String(FULL_PAGE)]] }));
  t.cite(ex);
  if (ex.response?.status !== 200) return undecided(`(c) the status=${status} listing answered ${ex.response?.status ?? ex.error?.code}`);
  const page = petsOf(ex);
  reportLeaks(t, requirement, page, ex);
  if (page.length >= FULL_PAGE) return undecided(`(c) the status=${status} listing is full (${page.length} pets)`);
  const shown = new Set(page.map((p) => idOf(p)));
  const missing = t.session.store.createdPets.filter((p) => p['status'] === status && !shown.has(idOf(p))).length;
  if (missing > 0) return undecided(`(c) the status=${status} listing leaves out ${missing} of this run's own pets of that status, so it cannot show absence`);
  return decided(`(c) every refused body carried status ${status}, and the status=${status} listing (${page.length} pets, not full) shows every pet of that status`);
};

/**
 * The creations right around the refused requests: the latest before the first, and the first
 * after the last (another suite's, e.g. the one that opens CREATE-003's bracket, or one made here).
 */
async function brackets(t: RequirementRun, refused: Refused): Promise<{ open: Creation; close: Creation } | string> {
  const seqs = [...refused.values()].map((ex) => ex.seq);
  const [first, last] = [Math.min(...seqs), Math.max(...seqs)];
  const open = [...t.session.store.probes.creations].reverse().find((c) => c.seq < first);
  if (open === undefined) return 'no creation preceded the refused requests';
  const after = t.session.store.probes.creations.find((c) => c.seq > last);
  if (after !== undefined) return { open, close: after };
  const closing = await t.session.shared.once(CLOSING_CREATION, () => t.session.store.createMarked('bracket'));
  t.cite(closing);
  const close = t.session.store.probes.creations.find((c) => c.seq === closing.seq);
  if (close === undefined || close.seq < last) return `the closing creation (exchange #${closing.seq}) got ${closing.response?.status ?? closing.error?.code}`;
  return { open, close };
}

/** A pet the run can account for: one it created, one of its probes (any marker of this run), or another run of this tool's. */
function explained(t: RequirementRun, pet: JsonObject): boolean {
  const name = pet['name'];
  const id = idOf(pet);
  if (id !== undefined && t.session.store.probes.creations.some((c) => c.id === id)) return true;
  return t.session.store.probes.markerOf(pet) !== undefined || (typeof name === 'string' && t.session.store.probes.isOtherRunName(name));
}

/**
 * A server that lists pets in creation order (either way) shows everything created between the
 * two bracketing creations between them on the page, whatever its ids. The order is not taken on
 * trust: every creation of this run between the two must appear there, in the order it was made.
 */
const byCreationOrder: Method = async (t, requirement, refused) => {
  const bracket = await brackets(t, refused);
  if (typeof bracket === 'string') return undecided(`(d) ${bracket}`);
  // One listing per closing creation: it must be taken after that creation.
  const ex = await t.session.shared.onceFor(LISTING_AFTER_CLOSE, bracket.close.seq, () => t.send({ method: 'GET', path: '/pets', query: [['limit', String(FULL_PAGE)]] }));
  t.cite(ex);
  if (ex.response?.status !== 200) return undecided(`(d) the listing after the closing creation answered ${ex.response?.status ?? ex.error?.code}`);
  const page = petsOf(ex);
  reportLeaks(t, requirement, page, ex);
  const at = (id: bigint): number => page.findIndex((p) => idOf(p) === id);
  const [from, to] = [at(bracket.open.id), at(bracket.close.id)];
  if (from < 0 || to < 0) return undecided('(d) the first page does not show both bracketing creations');
  const slice = page.slice(Math.min(from, to) + 1, Math.max(from, to));
  const ownBetween = t.session.store.probes.creations.filter((c) => c.seq > bracket.open.seq && c.seq < bracket.close.seq).map((c) => c.id);
  const shown = slice.map((p) => idOf(p)).filter((id) => id !== undefined && ownBetween.includes(id));
  const inOrder = from < to ? shown : [...shown].reverse();
  if (shown.length !== ownBetween.length || inOrder.some((id, i) => id !== ownBetween[i])) return undecided('(d) the listing is not in creation order');
  if (!slice.every((p) => explained(t, p))) return undecided('(d) a pet listed between the bracketing creations carries no marker of this run');
  return decided(`(d) the listing is in creation order and shows both bracketing creations (${bracket.open.id} and ${bracket.close.id}); the ${slice.length} pets between them are this run's own`);
};

async function expectRefusedNotStored(t: RequirementRun, requirement: RefusalRequirement): Promise<void> {
  if (t.session.config.readOnly) t.notExercised(WRITES_DISABLED);
  const refused = t.session.store.probes.refused(requirement);
  if (refused.size === 0) t.inconclusive('no createPet that named its pet was refused in this run (requirement deselected, or every request was accepted)');
  t.observe(`${refused.size} refused createPet requests named their pet with a marker of their own`);
  const reasons: string[] = [];
  for (const method of [byWholeListing, byBracket, byStatusFilter, byCreationOrder]) {
    const decision = await method(t, requirement, refused);
    if (t.findings().some((f) => f.kind === 'violation')) return;
    if (decision.decided) {
      t.observe(`nothing refused was stored, shown by ${decision.how}`);
      return;
    }
    reasons.push(decision.why);
  }
  t.inconclusive(`no method could show that nothing refused was stored: ${reasons.join('; ')}`);
}

export const rejectedWrites = suite('refused writes (4.2, 5)', () => {
  requirementTest('CREATE-004', (t) => expectRefusedNotStored(t, 'CREATE-004'));
  requirementTest('AUTH-004', (t) => expectRefusedNotStored(t, 'AUTH-004'));
});
