/**
 * Names a store may not survive (CREATE-005), opted into with --risk-breaking-store: last in the
 * run, once every other test has read the store, three createPets whose names hold bytes that are
 * not UTF-8, lone surrogates and NUL (src/arbitraries/store-breaking.ts); then the reads every
 * client would make, a getPet of each pet they stored (GET-001) and a listing that shows them
 * (LIST-001). Stacks have stored such a name and answered 500 to every such read from then on, so
 * without the flag nothing here is sent: CREATE-005 is not exercised, and the two reads' tests say
 * why (their requirements are judged by their main tests all the same).
 */
import { suite } from '../src/conformance/suite.js';
import { requirementTest, type RequirementRun } from '../src/conformance/requirement-test.js';
import { judgeProbeCreate, judgeReadAfterProbes } from '../src/checks/store-breaking.js';
import { petsOf } from '../src/checks/pet-shape.js';
import { observation } from '../src/checks/finding.js';
import { probeBody, STORE_BREAKING_PROBES, type StoreBreakingProbe } from '../src/arbitraries/store-breaking.js';
import { statusValues } from '../src/interface/openapi.js';
import type { JsonObject } from '../src/interface/json.js';
import type { Exchange } from '../src/http/exchange.js';
import type { Creation } from '../src/session/probes.js';
import { HandoffKey } from '../src/session/shared-results.js';
import { idOf } from './support.js';

/** The reason every test here gives without the flag. */
const NOT_OPTED_IN =
  'names a store may not survive (bytes that are not UTF-8, lone surrogates, NUL) were not sent: stacks have stored one and then answered 500 to every listing and getPet including it, for every client; opt in with --risk-breaking-store on a store nobody else uses';
const FULL_PAGE = 100;
const TITLE = { titleSuffix: 'after names a store may not survive' };

/** One probe's createPet and what its answer showed. */
interface Probed {
  probe: StoreBreakingProbe;
  exchange: Exchange;
  /** The pet its 201 showed, with an integer id. */
  pet?: JsonObject;
  /** Its answer said whether a pet was stored (a 201, or a refusal); a 5xx or no answer did not. */
  accounted: boolean;
}

interface Sent {
  probes: Probed[];
  status: string;
}

/** What CREATE-005 sent, for the reads after it; not put when it did not run (deselected, or not opted into). */
const SENT = new HandoffKey<Sent>('the names a store may not survive, as CREATE-005 sent them');

/** The status the probes carry: the one the run has seen least of, so a listing filtered by it most likely fits one page. */
function rarestStatus(t: RequirementRun): string {
  const counts = new Map(statusValues().map((s) => [s as string, 0]));
  for (const pet of t.session.store.knownPets.values()) {
    const status = pet['status'];
    if (typeof status === 'string' && counts.has(status)) counts.set(status, (counts.get(status) ?? 0) + 1);
  }
  return [...counts].reduce((a, b) => (b[1] < a[1] ? b : a))[0];
}

/** The categoryId most pets show (the smallest of those tied): one no server refuses as unknown, and no edge of int64. */
function commonestCategory(shown: readonly bigint[]): bigint | undefined {
  const counts = new Map<bigint, number>();
  for (const id of shown) counts.set(id, (counts.get(id) ?? 0) + 1);
  return [...counts].sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0))[0]?.[0];
}

/** The reads' tests: not exercised without the flag, or when CREATE-005 sent nothing (deselected). */
function probedOrSkip(t: RequirementRun): Sent {
  if (t.session.config.riskBreakingStore !== true) t.notExercised(NOT_OPTED_IN);
  const sent = t.session.shared.get(SENT);
  if (sent === undefined) t.notExercised('CREATE-005 was not selected (--only), so no name a store may not survive was sent to read back');
  return sent;
}

/**
 * Ids a probe whose createPet said nothing of its pet (a 5xx, no answer) may have stored one
 * under: those between the creations right before and right after it, when the ids there are
 * dense (as many as such probes between them at most) and are none of the run's own creations.
 */
function unaccountedIds(probes: readonly Probed[], creations: readonly Creation[]): { ids: bigint[]; notes: string[] } {
  const ids = new Set<bigint>();
  const notes: string[] = [];
  const own = new Set(creations.map((c) => c.id));
  for (const probed of probes.filter((p) => !p.accounted)) {
    const seq = probed.exchange.seq;
    const before = creations.filter((c) => c.seq < seq).at(-1);
    const after = creations.find((c) => c.seq > seq);
    if (before === undefined || after === undefined) {
      notes.push(`${probed.probe.kind}: no creation ${before === undefined ? 'before' : 'after'} it to find its pet's id by`);
      continue;
    }
    const between = probes.filter((p) => !p.accounted && p.exchange.seq > before.seq && p.exchange.seq < after.seq).length;
    const gap = after.id - before.id - 1n;
    if (gap < 0n || gap > BigInt(between)) {
      notes.push(`${probed.probe.kind}: ids are not dense between pets ${before.id} and ${after.id} (exchanges #${before.seq} and #${after.seq}), so the id its pet may have cannot be told`);
      continue;
    }
    for (let id = before.id + 1n; id < after.id; id++) if (!own.has(id)) ids.add(id);
  }
  return { ids: [...ids], notes };
}

export const storeBreaking = suite('4.2 names a store may not survive (--risk-breaking-store)', () => {
  requirementTest('CREATE-005', async (t) => {
    if (t.session.config.riskBreakingStore !== true) t.notExercised(NOT_OPTED_IN);
    const { session } = t;
    const category = commonestCategory(session.store.shownCategoryIds(session.store.knownPets.values())) ?? (await session.store.knownCategoryIds())[0] ?? 1n;
    const status = rarestStatus(t);
    // A pet a probe stored without saying so is found by the ids of the creations around it.
    if (session.store.probes.creations.length === 0) await session.store.createMarked('before the names a store may not survive');
    const probes: Probed[] = [];
    const undecided: string[] = [];
    try {
      for (const probe of STORE_BREAKING_PROBES) {
        const marker = session.store.probes.next();
        const exchange = await t.send({ method: 'POST', path: '/pets', body: probeBody(probe, marker, category, status), contentType: 'application/json', purpose: `CREATE-005 ${probe.kind}` });
        const answer = judgeProbeCreate(probe, marker, exchange);
        t.record(answer.findings);
        if (answer.undecided !== undefined) undecided.push(answer.undecided);
        const pet = answer.pet !== undefined && idOf(answer.pet) !== undefined ? answer.pet : undefined;
        if (pet !== undefined) session.store.recordCreated(pet, exchange);
        probes.push({ probe, exchange, accounted: answer.accounted, ...(pet === undefined ? {} : { pet }) });
      }
      const last = probes.at(-1);
      if (probes.some((p) => !p.accounted) && last !== undefined && !session.store.probes.creations.some((c) => c.seq > last.exchange.seq)) {
        await session.store.createMarked('after the names a store may not survive');
      }
    } finally {
      session.shared.put(SENT, { probes, status });
      session.store.storeWritten();
    }
    t.observe(`${probes.length} createPets with names a store may not survive (${probes.map((p) => `${p.probe.kind} #${p.exchange.seq}: ${p.exchange.response?.status ?? p.exchange.error?.code}`).join(', ')}), status ${status}`);
    if (undecided.length > 0) t.inconclusive(undecided.join('; '));
  });

  requirementTest(
    'GET-001',
    async (t) => {
      const { probes } = probedOrSkip(t);
      const what = (p: Probed): string => `(the pet the ${p.probe.kind} createPet of exchange #${p.exchange.seq} stored)`;
      for (const probed of probes) {
        const id = probed.pet === undefined ? undefined : idOf(probed.pet);
        if (id === undefined) continue;
        const ex = await t.send({ method: 'GET', path: `/pets/${id}` });
        // A created pet not found is CREATE-002's kind of finding (with its read-after-write grace), not a broken read.
        if (ex.response?.status === 404) t.observe(`GET /pets/${id} ${what(probed)} answered 404`, ex);
        else t.record(judgeReadAfterProbes('GET-001', ex, what(probed), id));
      }
      const { ids, notes } = unaccountedIds(probes, t.session.store.probes.creations);
      for (const note of notes) t.observe(note);
      for (const id of ids) {
        const ex = await t.send({ method: 'GET', path: `/pets/${id}` });
        const context = '(an id between the creations around a createPet of a name a store may not survive that was answered neither 201 nor 4xx)';
        if (ex.response?.status === 404) t.record([observation('GET-001', `GET /pets/${id} ${context} answered 404: nothing was stored under it`, ex.seq)]);
        else t.record(judgeReadAfterProbes('GET-001', ex, context, id));
      }
    },
    TITLE,
  );

  requirementTest(
    'LIST-001',
    async (t) => {
      const { probes, status } = probedOrSkip(t);
      const ids = probes.flatMap((p) => (p.pet === undefined ? [] : [idOf(p.pet)])).filter((id) => id !== undefined);
      const context = `after the createPets of names a store may not survive (${probes.map((p) => `#${p.exchange.seq}`).join(', ')})`;
      const listings: Array<[string, string][]> = [[['limit', String(FULL_PAGE)]], [['status', status], ['limit', String(FULL_PAGE)]]];
      for (const query of listings) {
        const ex = await t.send({ method: 'GET', path: '/pets', query });
        const findings = judgeReadAfterProbes('LIST-001', ex, context);
        t.record(findings);
        if (findings.length > 0) return;
        // It shows them when it shows every pet (of that status), or shows each by id.
        const page = petsOf(ex);
        const shown = new Set(page.map((p) => idOf(p)));
        if (page.length < FULL_PAGE || ids.every((id) => shown.has(id))) return;
      }
      t.inconclusive(`no listing could be shown to include the pets those createPets stored: limit=100 and status=${status}&limit=100 were both full without them`);
    },
    TITLE,
  );
});
