/**
 * Section 8, behaviour over the limit. Runs last: the burst (src/session/burst.ts) spends the rest
 * of the key's window on requests that still feed every cross-cutting check, stops at the first
 * 429 and never sends another request before Retry-After has passed (a key that keeps knocking
 * may be banned).
 */
import { describe } from 'vitest';
import { requirementTest } from '../src/conformance/requirement-test.js';
import { checkRetryAfter } from '../src/checks/retry-after.js';
import type { Exchange } from '../src/http/exchange.js';
import { planBurst } from '../src/session/burst-plan.js';
import { burstInputsOf, runBurst } from '../src/session/burst.js';
import { progressNote } from '../src/conformance/progress.js';

/** The 429 the burst obtained, shared with RATE-006. */
let throttled: Exchange | undefined;

describe('8 limits', () => {
  requirementTest('RATE-005', async (t) => {
    const { client, config } = t.session;
    const plan = planBurst(burstInputsOf(client.exchanges, config.plan, client.remainingBudget()));
    if (plan.kind === 'cannot') return t.inconclusive(plan.reason);
    const result = await runBurst(plan, () => t.send({ method: 'GET', path: '/pets', query: [['limit', '1']], pace: false, retryOn429: false }));
    const spent = `burst: ${result.spent} requests spent in ${(result.elapsedMs / 1000).toFixed(1)} s (${result.served} served, ${result.concurrency.join(' then ')} at once), testing the limit of ${plan.tested.source}`;
    t.observe(spent);
    progressNote(spent, client.stats.requests);
    if (result.observation !== undefined) t.observe(result.observation, result.last);
    if (result.outcome === 'over') return t.fail(result.message ?? 'a window served more than its limit', result.last);
    if (result.outcome === 'stopped' || result.throttled === undefined) return t.inconclusive(result.message ?? 'the burst stopped before the limit was reached');
    throttled = result.throttled;
    t.cite(result.throttled);
    t.record(checkRetryAfter(result.throttled).map((f) => ({ ...f, requirement: t.id })));
  });

  requirementTest('RATE-006', async (t) => {
    const throttledBy = throttled;
    if (throttledBy === undefined) return t.inconclusive('no 429 was obtained, so there is nothing to recover from');
    // The client waits for the Retry-After it recorded before sending (or halts if that wait is too long).
    const ex = await t.send({ method: 'GET', path: '/pets', query: [['limit', '1']], retryOn429: false });
    const status = ex.response?.status;
    if (status === undefined) return t.inconclusive(`no response after the wait (${ex.error?.code})`);
    if (status < 200 || status >= 300) t.fail(`After waiting Retry-After (${throttledBy.response?.headers['retry-after']}): received ${status} / expected the request to be served`, ex);
  });

  requirementTest('RATE-007', async (t) => {
    const perDay = t.session.config.plan === undefined ? 'the plan' : t.session.config.plan;
    t.inconclusive(`not exercised: exhausting the daily quota of ${perDay} would take the key out of service for a day and may get it banned`);
  });
});
