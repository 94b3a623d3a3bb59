/**
 * Section 8, behaviour over the limit. Runs last: the burst (src/session/burst.ts) spends the rest
 * of the key's window on requests that still feed every cross-cutting check, stops at the first
 * 429 and never sends another request before Retry-After has passed (a key that keeps knocking
 * may be banned).
 */
import { suite } from '../src/conformance/suite.js';
import { crossCuttingTest, requirementTest, type RequirementRun } from '../src/conformance/requirement-test.js';
import { retryAfterPassesAt } from '../src/checks/response-date.js';
import { checkRetryHonoured } from '../src/checks/retry-after-reset.js';
import { othersSpentInAWindow } from '../src/checks/key-use.js';
import type { Exchange } from '../src/http/exchange.js';
import type { SuiteSession } from '../src/session/session.js';
import { HandoffKey } from '../src/session/shared-results.js';
import { limitFromPlan, planBurst, type BurstOperation, type BurstPlan } from '../src/session/burst-plan.js';
import { exhaustDailyQuota } from '../src/session/daily-quota.js';
import { checkDailyRefusal, checkDayRetry, retryAfterEndsBeforeDay } from '../src/checks/daily-quota.js';
import { planLimits, PLAN_FORM } from '../src/plans.js';
import { burstInputsOf, burstRequest, header, observedWindowMs, runPlannedBurst, type BurstResult, type BurstTargets } from '../src/session/burst.js';
import { idOf } from './support.js';
import { judgeLimitProbe, type LimitProbeVerdict } from '../src/rate-limit/limit-probe.js';
import { recoveryStep, staleResetProbeAt } from '../src/session/recovery.js';
import { refillWatchSlot, refillWatchStep } from '../src/session/refill-watch.js';
import { progressNote } from '../src/conformance/progress.js';

/** Business's 100,000 requests a day at 1,000 a minute take 100 minutes; the test must outlast that. */
const DAILY_QUOTA_TIMEOUT_MS = 3 * 3_600_000;

type Planned = Extract<BurstPlan, { kind: 'burst' }>;

/** The 429 the burst obtained, shared with RATE-006. */
const THROTTLED = new HandoffKey<Exchange>('the 429 the burst obtained');

/** Every 429 of the run is judged for RATE-005 and RATE-006, whatever sent it. */
const is429 = (ex: Exchange): boolean => ex.response?.status === 429;

/** The burst's wait for a fresh window (never longer than --max-wait allows: then it starts at once); a stop of the run ends it. */
async function waitForNextWindow(ms: number, maxWaitMs: number, session: SuiteSession): Promise<void> {
  if (ms > maxWaitMs) return;
  await session.idle(ms, 'too little of the window is left for the burst');
}

/** RATE-006 on the request sent once the 429's Retry-After had passed. */
function judgeRecovery(t: RequirementRun, throttledBy: Exchange, ex: Exchange): void {
  t.cite(ex);
  const value = throttledBy.response?.headers['retry-after'];
  if (ex.retryOf === throttledBy.seq) t.observe(`judged exchange #${ex.seq}: the client's retry of the 429 of exchange #${throttledBy.seq}, sent once its Retry-After had passed`, ex);
  const status = ex.response?.status;
  if (status === undefined) return t.inconclusive(`no response after the wait (${ex.error?.code})`);
  const refused = status === 429 ? checkRetryHonoured(throttledBy, ex, t.session.config.keyMode ?? 'shared', othersSpentInAWindow(t.session.client.exchanges), t.session.serverClock) : [];
  // Refused in a new window of a shared key: another client may have used it up, so recovery was not seen either way.
  if (refused.length > 0 && refused.every((f) => f.kind === 'observation')) {
    return t.inconclusive(`the retry (exchange #${ex.seq}) was refused in a new window, which another client of the shared key may have used up first`);
  }
  // The client's retry is the suite's own request, already judged as it arrived (session.ts): any
  // answer but 429 means it was let through (a 404 to GET /pets/-1 is that request's right answer).
  if (ex.retryOf === throttledBy.seq) return;
  if (status === 429) t.record(refused);
  else if (status < 200 || status >= 300) t.fail(`After waiting Retry-After (${value}): received ${status} / expected the request to be served`, ex);
}

/** The reason the timeline gives the watch's waits, before its own requests and before the cases it spreads. */
const WATCH_WAIT = 'the window is watched for a refill before its Reset';

/** Waits, quietly, until the local moment `atMs` (at once where it has passed). */
async function idleUntil(session: SuiteSession, atMs: number, reason: string): Promise<void> {
  const waitMs = atMs - Date.now();
  if (waitMs > 0) await session.idle(waitMs, reason, true);
}

/**
 * One keyed request far enough past the refill for a stale Reset to lie beyond RATE-003's
 * tolerance, where the recovery's Reset calls for it (staleResetProbeAt); it is judged as it
 * arrives, by every check of a keyed response.
 */
async function showStaleReset(t: RequirementRun, throttledBy: Exchange, recovery: Exchange): Promise<void> {
  const { session } = t;
  const at = staleResetProbeAt({ throttledBy, recovery, exchanges: session.client.exchanges, clock: session.serverClock, nowMs: Date.now(), maxWaitMs: session.config.maxWaitMs });
  if (at === undefined) return;
  await idleUntil(session, at, 'a Reset named at the refill must have moved on by now');
  await t.send({ method: 'GET', path: '/pets', query: [['limit', '1']], pace: false, retryOn429: false });
}

/**
 * The refill watch (src/session/refill-watch.ts): keyed requests spread over the fresh window the
 * recovery opened, up to its Reset, each judged as it arrives and by RATE-002's rise at the end.
 */
async function watchRefill(t: RequirementRun, recovery: Exchange): Promise<void> {
  const { session } = t;
  for (let sent = 0; ; sent++) {
    const step = refillWatchStep({ recovery, exchanges: session.client.exchanges, clock: session.serverClock, nowMs: Date.now(), budget: session.client.remainingBudget(), sent });
    if (step.kind === 'too-costly') return t.observe(`the window the recovery opened was not watched for a refill before its Reset: that would take ${step.requests} requests`, recovery);
    if (step.kind === 'done') return;
    await idleUntil(session, step.atMs, WATCH_WAIT);
    await t.send({ method: 'GET', path: '/pets', query: [['limit', '1']], pace: false, retryOn429: false });
  }
}

/** The limit probe and what RATE-005 makes of it: the one reading RATE-005 and the spread share. */
function judgedLimitProbe(session: SuiteSession): { probe: Exchange; verdict: LimitProbeVerdict } | undefined {
  const probe = session.limitProbe.exchange;
  const tested = probe === undefined ? undefined : limitFromPlan(session.config.plan, header(probe, 'x-ratelimit-limit') ?? session.client.rateLimit.limit);
  return probe === undefined || tested === undefined ? undefined : { probe, verdict: judgeLimitProbe(session.client.exchanges, probe, tested) };
}

/**
 * The recovery RATE-006 will watch the window of, once it has been made: the exact retry of the
 * 429 RATE-005 hands over from the limit probe (src/session/recovery.ts). Undefined where there
 * is none yet, or RATE-006 is not run.
 */
function watchedRecovery(session: SuiteSession): Exchange | undefined {
  const judged = session.isSelected('RATE-006') ? judgedLimitProbe(session) : undefined;
  if (judged?.verdict.kind !== 'refused') return undefined;
  const step = recoveryStep({ throttledBy: judged.probe, exchanges: session.client.exchanges, topUp: session.scheduler.topUp, nowMs: Date.now(), maxWaitMs: session.config.maxWaitMs });
  return step.kind === 'judge' ? step.ex : undefined;
}

/**
 * Runs `run` on each item in turn (independent cases of one keyed request each, the run's last
 * before section 8): where RATE-006's refill watch will cover the window the recovery opened, its
 * last items go at the watch's moments (refillWatchSlot), and the watch needs fewer requests of
 * its own, none where they reach its end. The Free key's run spends its last cases so.
 */
export async function spreadOverRefillWatch<T>(t: RequirementRun, items: readonly T[], run: (item: T) => Promise<void>): Promise<void> {
  const { session } = t;
  const recovery = watchedRecovery(session);
  for (const [index, item] of items.entries()) {
    const at = recovery === undefined ? undefined : refillWatchSlot({ recovery, exchanges: session.client.exchanges, clock: session.serverClock, nowMs: Date.now(), budget: session.client.remainingBudget() }, items.length - index);
    if (at !== undefined) await idleUntil(session, at, WATCH_WAIT);
    await run(item);
  }
}

/**
 * RATE-007 on the day's Retry-After: when it ends before the day's Reset, one request exactly
 * once it has passed (within --max-wait), which must not be refused for the day again.
 */
async function retryAfterTheDay(t: RequirementRun, refusal: Exchange, windowMs: number): Promise<void> {
  if (!retryAfterEndsBeforeDay(refusal, t.session.serverClock)) return;
  const waitMs = (retryAfterPassesAt(refusal) ?? 0) - Date.now();
  if (waitMs > t.session.config.maxWaitMs) {
    return t.observe(`the day's Retry-After ends before its X-RateLimit-Reset, ${Math.round(waitMs / 1000)} s from now: longer than --max-wait allows, so it was not tried`, refusal);
  }
  const retry = await t.send({ method: 'GET', path: '/pets', query: [['limit', '1']], pace: false, retryOn429: false, exactRetryAfter: true });
  t.cite(retry);
  t.record(checkDayRetry(refusal, retry, windowMs, t.session.serverClock));
}

/** When the burst tried again, how much the window that ended first had taken (the try's own spend is the rest). */
const retried = (result: BurstResult): string =>
  result.spentBeforeRetry === undefined ? '' : `, the second after a window ended first with ${result.spentBeforeRetry} sent`;

/** RATE-005 on a burst that was sent: its observation (the bench reads "burst: N requests spent"), then the verdict. */
function judgeBurst(t: RequirementRun, plan: Planned, result: BurstResult, when: string): void {
  const spent =
    `burst: ${result.spent} requests spent in ${(result.elapsedMs / 1000).toFixed(1)} s${when === '' ? '' : ` ${when}`} (${result.served} served, ${result.concurrency.join(' then ')} at once${retried(result)}; ` +
    `${plan.expected} expected to reach the limit of ${plan.tested.source}, ${(plan.windowLeftMs / 1000).toFixed(1)} s of the window left)`;
  t.observe(spent);
  progressNote(spent, t.session.client.stats.requests);
  if (result.observation !== undefined) t.observe(result.observation, result.last);
  if (result.outcome === 'over') return t.fail(result.message ?? 'a window served more than its limit', result.last);
  if (result.outcome === 'stopped' || result.throttled === undefined) return t.inconclusive(result.message ?? 'the burst stopped before the limit was reached');
  t.session.shared.put(THROTTLED, result.throttled);
  t.cite(result.throttled);
}

/**
 * The burst's requests as the plan's operations (burstRequest): getPet of a pet the run created or
 * saw, createPet named with a marker of its own and recorded when the server creates it (a window
 * that ended first serves it), unless the run may not write.
 */
function burstSender(t: RequirementRun): (operation: BurstOperation) => Promise<Exchange> {
  const { store, config } = t.session;
  const pet = store.usable(store.createdPets)[0] ?? store.usable(store.knownPets.values())[0];
  const categoryId = pet?.['categoryId'];
  const targets: BurstTargets = {
    petId: pet === undefined ? undefined : idOf(pet),
    newPet: config.readOnly ? undefined : () => store.markedNewPet('burst', typeof categoryId === 'bigint' ? categoryId : 1n),
  };
  return async (operation) => {
    const ex = await t.send({ ...burstRequest(operation, targets), pace: false, retryOn429: false });
    if (operation === 'createPet') store.recordIfCreated(ex);
    return ex;
  };
}

export const rateLimit = suite('8 limits', () => {
  // The burst's 429 is judged for its Retry-After with every other 429, by the cross-cutting checks.
  crossCuttingTest('RATE-005', is429, async (t) => {
    const { client, config } = t.session;
    t.session.scheduler.closeTopUp();
    const judged = judgedLimitProbe(t.session);
    if (judged !== undefined) {
      const { probe, verdict } = judged;
      if (verdict.kind === 'over') return t.fail(verdict.message, probe);
      if (verdict.kind === 'refused') {
        t.observe(verdict.observation, probe);
        progressNote(verdict.observation, client.stats.requests);
        t.session.shared.put(THROTTLED, probe);
        return t.cite(probe);
      }
      t.observe(`the run's own requests used up the window and the next (exchange #${probe.seq}) was served; the burst tells whether the limit is enforced`, probe);
    }
    const topUp = t.session.scheduler.topUp;
    if (topUp !== undefined) {
      const where = `sent mid-run, on top of ${topUp.runInWindow} requests the run had already sent in that window`;
      return judgeBurst(t, topUp.plan, topUp.result, where);
    }
    const plan = planBurst(burstInputsOf(client.exchanges, config.plan, client.remainingBudget(), t.session.serverClock));
    if (plan.kind === 'cannot') return t.inconclusive(plan.reason);
    const result = await runPlannedBurst(plan, burstSender(t), (ms) => waitForNextWindow(ms, config.maxWaitMs, t.session));
    const waited = plan.waitFirstMs === undefined ? '' : `after waiting ${(plan.waitFirstMs / 1000).toFixed(1)} s for a fresh window`;
    judgeBurst(t, plan, result, waited);
  });

  // Every 429's Retry-After is also compared with its Reset, and every retry of a 429 judged, by the cross-cutting checks.
  crossCuttingTest('RATE-006', is429, async (t) => {
    const throttledBy = t.session.shared.get(THROTTLED);
    if (throttledBy === undefined) return t.inconclusive('no 429 was obtained, so there is nothing to recover from');
    const { session } = t;
    const step = recoveryStep({ throttledBy, exchanges: session.client.exchanges, topUp: session.scheduler.topUp, nowMs: Date.now(), maxWaitMs: session.config.maxWaitMs });
    if (step.kind === 'cannot') return t.inconclusive(step.reason);
    // Exactly when Retry-After says, not paced by X-RateLimit-Reset and with no backoff on top: that moment is what is tested.
    const ex = step.kind === 'judge' ? step.ex : await t.send({ method: 'GET', path: '/pets', query: [['limit', '1']], pace: false, retryOn429: false, exactRetryAfter: true });
    judgeRecovery(t, throttledBy, ex);
    await showStaleReset(t, throttledBy, ex);
    await watchRefill(t, ex);
  });

  requirementTest('RATE-007', async (t) => {
    const { client, config } = t.session;
    if (config.exhaustDailyQuota !== true) {
      t.notExercised('exhausting the daily quota takes the key out of service for the rest of the day; opt in with --exhaust-daily-quota on a key made for the test');
    }
    const plan = limitFromPlan(config.plan, client.rateLimit.limit)?.plan;
    if (plan === undefined) return t.inconclusive(`the daily quota is unknown: give --plan (${PLAN_FORM}); the advertised X-RateLimit-Limit is no published plan's limit`);
    const perDay = planLimits(plan).perDay;
    const servedSoFar = (): number => client.exchanges.filter((e) => e.request.auth === 'key' && e.response !== undefined && e.response.status !== 429).length;
    if (perDay + 1 - servedSoFar() > client.remainingBudget()) {
      return t.inconclusive(`using up the ${plan} plan's ${perDay} requests a day needs up to ${perDay + 1 - servedSoFar()} more requests and the run's budget has ${client.remainingBudget()} left (raise --max-requests)`);
    }
    const windowMs = observedWindowMs(client.exchanges, t.session.serverClock);
    const outcome = await exhaustDailyQuota({
      plan,
      windowMs,
      runStartedAt: client.exchanges[0]?.sentAt ?? Date.now(),
      send: (paced) => t.send({ method: 'GET', path: '/pets', query: [['limit', '1']], pace: paced, retryOn429: false }),
      served: servedSoFar,
      note: (message) => progressNote(message, client.stats.requests, true),
      now: Date.now,
      clock: () => t.session.serverClock,
    });
    if (outcome.kind === 'refused') {
      t.cite(outcome.ex);
      t.observe(`the daily quota ran out after ${outcome.served} requests served to this run`, outcome.ex);
      t.record(checkDailyRefusal(outcome.ex, windowMs, t.session.serverClock));
      await retryAfterTheDay(t, outcome.ex, windowMs);
    } else if (outcome.kind === 'not-enforced') {
      t.fail(`${outcome.served} requests served to this key since the run began (${Math.round(outcome.elapsedMs / 1000)} s), none refused as over the daily quota / Expected 429 once the ${plan} plan's ${perDay} requests a day were used up`, outcome.last);
    } else if (outcome.kind === 'window-headers') {
      t.cite(outcome.first);
      t.fail(`after ${outcome.served} requests served, a 429 described the per-minute window (Retry-After ${outcome.first.response?.headers['retry-after'] ?? 'none'}) and the request sent after that wait was refused again / Expected headers that describe the daily window once the daily quota applies`, outcome.second);
    } else {
      t.inconclusive(`${outcome.served} requests were served, more than the ${perDay} of a day, but a UTC day ended during the run`);
    }
  }, { timeoutMs: DAILY_QUOTA_TIMEOUT_MS });
});
