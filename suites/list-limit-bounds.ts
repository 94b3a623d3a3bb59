/**
 * LIST-004, out-of-range and malformed limits. It runs after the refused-write checks on purpose:
 * proving the maximum of 100 may need pets created until the store holds more than 100, and
 * CREATE-004 and AUTH-004 need the store to still fit one limit=100 page when they read it.
 * Its limits are the run's last independent keyed cases before section 8, so where RATE-006's
 * refill watch will cover the window a recovery opened, the last of them are its requests
 * (spreadOverRefillWatch).
 */
import { suite } from '../src/conformance/suite.js';
import { requirementTest, type RequirementRun } from '../src/conformance/requirement-test.js';
import { checkRejectedOrBounded } from '../src/checks/list-page.js';
import { petsOf } from '../src/checks/pet-shape.js';
import { jsonBody } from '../src/checks/body.js';
import { isJsonObject, stringifyJson } from '../src/interface/json.js';
import { listLimits, statusValues } from '../src/interface/openapi.js';
import { fixedInvalidLimits, NUMBER_LIKE_LIMITS } from '../src/arbitraries/limits.js';
import { planFill } from '../src/session/fill-plan.js';
import { observedWindowMs } from '../src/session/burst.js';
import type { Exchange } from '../src/http/exchange.js';
import { list } from './list-pets.js';
import { spreadOverRefillWatch } from './rate-limit.js';

/** Requests kept, beyond the window's Limit the burst may spend, for the recovery probe and the last listings. */
const RESERVE_MARGIN = 10;

/** Why the run cannot create `count` pets now, or undefined when it created them all. */
async function createPets(t: RequirementRun, count: number): Promise<string | undefined> {
  const client = t.session.client;
  const { limit, remaining, reset } = client.rateLimit;
  const decision = planFill({
    cost: count + 1,
    budgetLeft: client.remainingBudget(),
    reserve: (limit ?? 0) + RESERVE_MARGIN,
    ...(remaining === undefined ? {} : { windowRemaining: remaining }),
    ...(limit === undefined ? {} : { windowLimit: limit }),
    ...(reset === undefined ? {} : { msToReset: reset * 1000 - Date.now() }),
    windowMs: observedWindowMs(client.exchanges, t.session.serverClock),
  });
  if (!decision.ok) return `creating ${count} pets does not fit: ${decision.reason}`;
  const statuses = statusValues();
  // A categoryId the service already accepted, so that an unknown category cannot be the reason for a refusal.
  const shown = t.session.store.createdPets[0]?.['categoryId'];
  const categoryId = typeof shown === 'bigint' || (typeof shown === 'number' && Number.isInteger(shown)) ? shown : 1;
  for (let i = 0; i < count; i++) {
    const body = stringifyJson({ name: `${t.session.namePrefix}fill-${i}`, categoryId, status: statuses[i % statuses.length] ?? 'available' });
    const ex = await t.send({ method: 'POST', path: '/pets', body, contentType: 'application/json', purpose: 'LIST-004 (more than 100 pets)' });
    const created = jsonBody(ex);
    if (ex.response?.status !== 201 || created === undefined || !created.ok || !isJsonObject(created.value)) {
      return `creating pets failed (received ${ex.response?.status ?? ex.error?.code} for pet ${i + 1} of ${count})`;
    }
    t.session.store.recordCreated(created.value, ex);
  }
  t.session.store.invalidateCensus();
  return undefined;
}

/** Whether the page for limit=max+1 was answered with a page that cannot show a maximum (a 200 of at most `max` items). */
const undecidedAbove = (ex: Exchange, max: number): boolean => ex.response?.status === 200 && petsOf(ex).length <= max;

/**
 * Whether a 200 for a value some parser reads above the maximum (Infinity, 1e3...) may be the
 * whole store: a page shorter than the pets the run knows of was bounded by something, one that
 * holds them all may be unbounded.
 */
const mayBeWholeStore = (ex: Exchange, max: number, known: number): boolean => undecidedAbove(ex, max) && petsOf(ex).length >= known;

const READ_ABOVE = new Set(NUMBER_LIKE_LIMITS.filter((l) => l.above).map((l) => l.value));

export const listLimitBounds = suite('4.1 listPets: limits out of range', () => {
  requirementTest('LIST-004', async (t) => {
    const { max } = listLimits();
    const above = String(max + 1);
    const judge = async (value: string): Promise<Exchange> => {
      // No delete exists, so a pet seen once proves a non-empty store without another request.
      const known = t.session.store.knownPets.size;
      const ex = await list(t, [['limit', value]]);
      t.record(checkRejectedOrBounded(ex, { requirement: t.id, maxItems: max, minItems: known > 0 ? 1 : 0 }));
      return ex;
    };
    /** Values whose page cannot show a maximum on a store of 100 pets or fewer. */
    const undecided: string[] = [];
    await spreadOverRefillWatch(t, fixedInvalidLimits(), async (value) => {
      const known = t.session.store.knownPets.size;
      const ex = await judge(value);
      if (value === above ? undecidedAbove(ex, max) : READ_ABOVE.has(value) && mayBeWholeStore(ex, max, known)) undecided.push(value);
    });
    if (undecided.length === 0 || t.session.store.knownPets.size > max) return;
    // A page of 100 or fewer from a store of 100 or fewer cannot tell a maximum from none at all.
    const unproved = `${undecided.map((v) => `limit=${v}`).join(', ')} ${undecided.length === 1 ? 'was' : 'were'} answered with a page and the store holds ${max} pets or fewer, so the maximum of ${max} is unproved`;
    if (t.session.config.readOnly) {
      t.inconclusive(`${unproved}; writes are disabled (--read-only), so no pets were created`);
    }
    const why = await createPets(t, max + 1 - t.session.store.knownPets.size);
    if (why !== undefined) t.inconclusive(`${unproved}; ${why}`);
    for (const value of undecided) await judge(value);
  });
});
