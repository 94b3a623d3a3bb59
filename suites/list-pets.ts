/**
 * Section 4.1 (and the page size of section 8), listPets: default page of 20, limits 1..100,
 * status filtering, and both combined (out-of-range limits: list-limit-bounds.ts).
 *
 * The number of pets available comes from the session's census (a limit=100 listing). On a
 * shared staging key the store can change between two calls, so a count that disagrees with the
 * census is re-checked against a fresh census before it is called a violation.
 */
import { suite } from '../src/conformance/suite.js';
import { requirementTest, type RequirementRun } from '../src/conformance/requirement-test.js';
import { checkIsPetsArray, checkPageLength, checkAllHaveStatus, checkRejectedOrBounded, checkShowsCreated } from '../src/checks/list-page.js';
import { petsOf } from '../src/checks/pet-shape.js';
import type { Finding } from '../src/checks/finding.js';
import type { Exchange } from '../src/http/exchange.js';
import { limitInRange } from '../src/arbitraries/limits.js';
import { invalidStatusEdges, invalidStatusValue } from '../src/arbitraries/statusFilter.js';
import { listLimits, statusValues } from '../src/interface/openapi.js';
import fc from 'fast-check';
import { expectedPageLength } from './support.js';
import { judgeSequences } from './model-sequences.js';
import { SharedKey } from '../src/session/shared-results.js';

type Query = Array<[string, string]>;

export function list(t: RequirementRun, query: Query, purpose?: string): Promise<Exchange> {
  return t.send({ method: 'GET', path: '/pets', query, ...(purpose === undefined ? {} : { purpose }) });
}

/**
 * Page-length findings for a listing, judged against the census; when they disagree, the
 * census is taken again once (the store may have changed) and the page judged against that.
 */
async function judgePage(t: RequirementRun, ex: Exchange, limit: number): Promise<Finding[]> {
  const shape = checkIsPetsArray(ex, t.id);
  if (shape.length > 0) return shape;
  const judge = async (): Promise<Finding[] | undefined> => {
    const expected = expectedPageLength(await t.session.store.census(), limit, t.session.store.knownPets.size);
    return checkPageLength(ex, { requirement: t.id, max: limit, ...(expected === undefined ? {} : { expectedExactly: expected }) });
  };
  const first = (await judge()) ?? [];
  if (!first.some((f) => f.kind === 'violation')) return first;
  t.session.store.invalidateCensus();
  return (await judge()) ?? [];
}

const DEFAULT_LISTING = new SharedKey<Exchange>('the default page');
const FILTERED_LISTING = new SharedKey<Exchange, string>('a status-filtered listing');

/** The default page, fetched once and shared by LIST-001 and LIST-002. */
function defaultListing(t: RequirementRun): Promise<Exchange> {
  return t.session.shared.once(DEFAULT_LISTING, () => list(t, [], 'LIST-001/LIST-002'));
}

/** The three filtered listings (limit=100), shared by LIST-005 and LIST-007. */
function filteredListing(t: RequirementRun, status: string): Promise<Exchange> {
  return t.session.shared.onceFor(FILTERED_LISTING, status, () => list(t, [['status', status], ['limit', String(listLimits().max)]], 'LIST-005'));
}

export const listPets = suite('4.1 listPets', () => {
  requirementTest('LIST-001', async (t) => {
    const census = await t.session.store.census();
    t.cite(census.exchange);
    t.record(checkIsPetsArray(census.exchange, t.id));
    t.record(checkIsPetsArray(await defaultListing(t), t.id));
  });

  requirementTest('LIST-002', async (t) => {
    const { default: pageSize } = listLimits();
    const ex = await defaultListing(t);
    t.cite(ex);
    t.record(checkIsPetsArray(ex, t.id));
    if (ex.response?.status !== 200) return;
    const got = petsOf(ex).length;
    const census = await t.session.store.census();
    if (got > pageSize) {
      t.fail(`Received ${got} pets without a limit / Expected at most the default page of ${pageSize}`, ex);
      return;
    }
    if (!census.ok) t.inconclusive('the census listing (limit=100) failed, so the number of pets available is unknown');
    const available = census.wholeStore ? await t.session.store.availableAtLeast() : Number.POSITIVE_INFINITY;
    if (available <= pageSize) {
      if (got < available) t.fail(`Received ${got} pets without a limit / Expected all ${available} available (fewer than the default page of ${pageSize})`, ex);
      else {
        const why = t.session.config.readOnly ? 'writes are disabled (--read-only)' : 'creating them failed or the budget did not allow it';
        t.inconclusive(`only ${available} pets exist and ${why}; ${pageSize + 1} are needed to tell a default page of ${pageSize} from a larger one`);
      }
      return;
    }
    t.record(await judgePage(t, ex, pageSize));
  });

  requirementTest('LIST-003', async (t) => {
    const { min, max } = listLimits();
    const census = await t.session.store.census();
    t.cite(census.exchange);
    t.record(await judgePage(t, census.exchange, max));
    t.record(await judgePage(t, await list(t, [['limit', String(min)]]), min));
    const plan = await t.session.plan();
    await t.property(limitInRange(), async (limit) => judgePage(t, await list(t, [['limit', String(limit)]]), limit), { runs: plan.limits });
    await judgeSequences(t);
  });

  // LIST-004 is in list-limit-bounds.ts: it may fill the store, so it runs after the refused-write checks.

  requirementTest('LIST-005', async (t) => {
    await t.session.store.census();
    for (const status of statusValues()) {
      const ex = await filteredListing(t, status);
      t.record(checkIsPetsArray(ex, t.id));
      t.record(checkAllHaveStatus(ex, status, t.id));
      t.record(checkShowsCreated(ex, { requirement: t.id, status, limit: listLimits().max, created: t.session.store.createdBefore(ex.seq, status) }));
      if (ex.response?.status !== 200 || petsOf(ex).length > 0) continue;
      // An empty page is only wrong when a pet with that status is known to exist.
      const known = [...t.session.store.knownPets.values()].filter((p) => p['status'] === status).length;
      if (known > 0) t.fail(`Received no pets for status=${status} / Expected the pets with that status (${known} seen elsewhere in this run)`, ex);
    }
    await judgeSequences(t);
  });

  requirementTest('LIST-006', async (t) => {
    // The edges every run, then one the seed draws when the window has room for random listing
    // cases (the plan's limits runs): the seed adds a case, it never decides the verdict alone.
    const plan = await t.session.plan();
    const [drawn] = plan.limits > 0 ? fc.sample(invalidStatusValue(), { numRuns: 1, seed: t.session.config.seed }) : [];
    for (const value of new Set([...invalidStatusEdges(), ...(drawn === undefined ? [] : [drawn])])) {
      const ex = await list(t, [['status', value]]);
      t.record(checkRejectedOrBounded(ex, { requirement: t.id, maxItems: listLimits().default }));
    }
  });

  requirementTest('LIST-007', async (t) => {
    // Choose the status with the most pets, so that a limit below that count is meaningful.
    const counts = await Promise.all(
      statusValues().map(async (status) => ({ status, count: petsOf(await filteredListing(t, status)).length })),
    );
    const best = counts.reduce((a, b) => (b.count > a.count ? b : a));
    if (best.count === 0) t.inconclusive('no pet of any status is listed, so a filtered page cannot be told from an empty one');
    const limit = Math.max(1, Math.min(best.count - 1, listLimits().default));
    const ex = await list(t, [['status', best.status], ['limit', String(limit)]]);
    t.record(checkIsPetsArray(ex, t.id));
    t.record(checkAllHaveStatus(ex, best.status, t.id));
    t.record(checkPageLength(ex, { requirement: t.id, max: limit, expectedExactly: Math.min(limit, best.count) }));
    t.record(checkShowsCreated(ex, { requirement: t.id, status: best.status, limit, created: t.session.store.createdBefore(ex.seq, best.status) }));
  });
});
