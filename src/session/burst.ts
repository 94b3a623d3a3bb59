/**
 * RATE-005's burst, sent: several senders at once so that the requests land inside one window
 * even on a slow target, stopping at the first 429 (requests already in flight finish; nothing
 * new is sent), at proof of a window that served too many, or at the spend cap. A window that
 * ends before the limit is reached earns one more try with more senders and a fresh window's
 * cap; a second window that ends first stops the burst.
 */
import type { Exchange } from '../http/exchange.js';
import type { SendRequest } from '../http/prepare.js';
import { receivedAt } from '../checks/response-date.js';
import { serverTimeOf, type ServerClock } from '../checks/server-clock.js';
import { observedWindowMs } from '../rate-limit/window-length.js';
import { limiterSaw, rateLimitValue, type RateLimitHeader } from '../checks/rate-limit-headers.js';
import { achievedPaceMs, FILLER_OPERATION, retryConcurrency, retrySpendCap, windowLeftMs, type BurstInputs, type BurstOperation, type BurstPlan } from './burst-plan.js';
import { BurstTally, type BurstResponse } from './burst-tally.js';
import { MINUTE_WINDOW_MS } from '../rate-limit/tolerances.js';

type Planned = Extract<BurstPlan, { kind: 'burst' }>;


export interface BurstResult {
  outcome: 'refused' | 'over' | 'stopped';
  /** The first 429, when one came. */
  throttled?: Exchange;
  /** The violation (over), or why the burst could not tell (stopped). */
  message?: string;
  /** What the count leaves open but is worth recording. */
  observation?: string;
  /** The exchange the verdict rests on. */
  last?: Exchange;
  spent: number;
  served: number;
  concurrency: number[];
  /**
   * Requests sent when the burst saw its first window end before the limit was reached (the one
   * whose response showed it included) and tried again with more senders: so the second try's own
   * spend can be told apart.
   */
  spentBeforeRetry?: number;
  elapsedMs: number;
}

/**
 * The burst's view of the run so far: what the last keyed response said, and how fast the target
 * answers; `clock`, the server's clock as the run's Date headers show it (Session.serverClock).
 */
export function burstInputsOf(exchanges: readonly Exchange[], plan: BurstInputs['plan'], budgetLeft: number, clock?: ServerClock): BurstInputs {
  const keyed = exchanges.filter((e) => e.request.auth === 'key' && e.response !== undefined);
  // The limiter's latest word on the window: a response without Remaining (refused before the limiter ran) says nothing of it.
  const last = keyed.findLast(limiterSaw);
  const latencies = keyed.slice(-20).map((e) => e.elapsedMs).sort((a, b) => a - b);
  const latencyMs = latencies[Math.floor(latencies.length / 2)] ?? 100;
  return {
    plan,
    limit: last === undefined ? undefined : header(last, 'x-ratelimit-limit'),
    remaining: last === undefined ? undefined : header(last, 'x-ratelimit-remaining'),
    reset: last === undefined ? undefined : header(last, 'x-ratelimit-reset'),
    serverNowMs: last === undefined ? Date.now() : serverTimeOf(last, clock),
    latencyMs,
    budgetLeft,
    windowMs: observedWindowMs(exchanges, clock),
  };
}

/** The window length plans use (src/rate-limit/window-length.ts), where the suites that plan a burst or a fill read it. */
export { observedWindowMs };

/** The burst with every request one operation, the filler: what a caller that sends one request whatever the operation gets. */
export function runBurst(plan: Planned, send: () => Promise<Exchange>, sleep: (ms: number) => Promise<void>): Promise<BurstResult> {
  return runPlannedBurst({ ...plan, overLimit: [FILLER_OPERATION] }, () => send(), sleep);
}

/**
 * The burst, each request sent as the operation the plan gives it: the filler while the window is
 * known to have room, and, once the next request is expected over the limit (the newest answered
 * Remaining, or before any answer the plan's, less the requests in flight, is 0), the plan's
 * over-limit operations together, one request each and one such group in flight at a time. Which
 * operation meets the 429 is then the plan's, not the timing's: a window that ends first only
 * serves the group and the next one is expected over the limit again.
 */
export async function runPlannedBurst(plan: Planned, send: (operation: BurstOperation) => Promise<Exchange>, sleep: (ms: number) => Promise<void>): Promise<BurstResult> {
  if (plan.waitFirstMs !== undefined) await sleep(plan.waitFirstMs);
  const overLimit = plan.overLimit === undefined || plan.overLimit.length === 0 ? [FILLER_OPERATION] : plan.overLimit;
  // Every request of the burst is a valid one: an answer but 2xx or 429 is a refusal.
  const tally = new BurstTally(plan.tested, { validRequests: true });
  const concurrency = [plan.concurrency];
  const started = Date.now();
  let spent = 0;
  let spendCap = plan.spendCap;
  let stop: Omit<BurstResult, 'spent' | 'served' | 'concurrency' | 'elapsedMs'> | undefined;
  let failure: unknown;
  let windowsEnded = 0;
  let spentBeforeRetry: number | undefined;
  let latest: Exchange | undefined;
  let inFlight = 0;
  /** Responses the burst has had so far: with the time since it started, the pace it achieves. */
  let received = 0;
  // Remaining of the most recently sent request that was answered: more than it + 1 in flight
  // would only add 429s after the first (a Remaining above the limit under test is ignored).
  let newest = { seq: 0, remaining: Number.POSITIVE_INFINITY };
  let wake = (): void => undefined;
  let answered = new Promise<void>((resolve) => (wake = resolve));
  const allowedInFlight = (): number => (newest.remaining <= plan.tested.limit ? newest.remaining + 1 : Number.POSITIVE_INFINITY);
  /** Requests of the over-limit group still in flight: a second group waits for the first. */
  let groupInFlight = 0;
  // The burst's own send order: what the window is known to have left is the Remaining of the
  // latest-sent request answered, less the requests sent after it that are still in flight.
  let sentOrder = 0;
  const pending = new Set<number>();
  let known = { order: 0, remaining: plan.expected - 1 };
  /** Whether the next request is expected over the limit: everything the window is known to have left is in flight. */
  const overLimitNext = (): boolean => known.remaining - [...pending].filter((o) => o > known.order).length <= 0;

  const onResponse = (ex: Exchange, expectedOver: boolean): void => {
    latest = ex;
    received += 1;
    const remaining = header(ex, 'x-ratelimit-remaining');
    if (ex.seq > newest.seq && ex.response?.status !== 429) newest = { seq: ex.seq, remaining: remaining ?? Number.POSITIVE_INFINITY };
    const event = tally.add({ ...burstResponseOf(ex), expectedOver });
    if (stop !== undefined && event.kind !== 'refused') return;
    if (event.kind === 'refused') {
      // The first 429 to arrive is the one the burst provoked; later ones were in flight already.
      if (stop?.outcome !== 'refused') stop = { outcome: 'refused', throttled: ex, last: ex };
    } else if (event.kind === 'over') {
      stop = { outcome: 'over', message: event.message, last: ex };
    } else if (event.kind === 'window-ended') {
      windowsEnded += 1;
      if (windowsEnded >= 2) {
        stop = {
          outcome: 'stopped',
          message: `could not exhaust the window at this latency: ${tally.served} requests served, ${concurrency.join(' then ')} at once, windows ended first`,
          last: ex,
        };
      } else {
        const whole = windowLeftMs(header(ex, 'x-ratelimit-reset'), serverTimeOf(ex)) ?? MINUTE_WINDOW_MS;
        const senders = concurrency.at(-1) ?? 1;
        const pace = achievedPaceMs(Date.now() - started, senders, received);
        const next = retryConcurrency(senders, plan.tested.limit + 1, ex.elapsedMs, whole, pace);
        concurrency.push(next);
        spentBeforeRetry = spent;
        spendCap = retrySpendCap(plan, spent);
        grow(next);
      }
    }
  };

  const sendOne = async (operation: BurstOperation, inGroup: boolean): Promise<void> => {
    spent += 1;
    inFlight += 1;
    const order = ++sentOrder;
    pending.add(order);
    if (inGroup) groupInFlight += 1;
    try {
      const ex = await send(operation);
      const remaining = header(ex, 'x-ratelimit-remaining');
      if (order > known.order && ex.response?.status !== 429 && remaining !== undefined && remaining <= plan.tested.limit) known = { order, remaining };
      onResponse(ex, inGroup);
    } catch (error) {
      failure ??= error;
    } finally {
      inFlight -= 1;
      pending.delete(order);
      if (inGroup) groupInFlight -= 1;
      wake();
      answered = new Promise<void>((resolve) => (wake = resolve));
    }
  };

  const worker = async (): Promise<void> => {
    while (stop === undefined && failure === undefined && spent < spendCap) {
      const over = overLimitNext();
      if ((over && groupInFlight > 0) || (!over && inFlight >= allowedInFlight())) {
        await answered;
        continue;
      }
      if (!over) {
        await sendOne(FILLER_OPERATION, false);
        continue;
      }
      // The whole group at the same moment, as far as the cap allows (the first of them always).
      const group = overLimit.slice(0, Math.max(1, spendCap - spent));
      await Promise.all(group.map((operation) => sendOne(operation, true)));
    }
  };
  const running = new Set<Promise<void>>();
  const grow = (size: number): void => {
    while (running.size < size) {
      const p: Promise<void> = worker().finally(() => running.delete(p));
      running.add(p);
    }
  };
  grow(plan.concurrency);
  while (running.size > 0) await Promise.race(running);

  const figures = { spent, served: tally.served, concurrency, ...(spentBeforeRetry === undefined ? {} : { spentBeforeRetry }), elapsedMs: Date.now() - started };
  const { violation, observation } = tally.excess();
  // A 429 or a proof decides the verdict even if a request in flight then failed (or the budget ran out).
  if (stop === undefined && violation === undefined && failure !== undefined) throw failure;
  // A window that served too many is proven whatever ended the burst: its 429 came late, or
  // later windows ended before the limit (a server that never refuses, on a slow machine).
  if (stop !== undefined && stop.outcome !== 'over' && violation !== undefined) return { ...figures, ...stop, outcome: 'over', message: violation };
  const noted = observation === undefined ? {} : { observation };
  if (stop !== undefined) return { ...figures, ...stop, ...noted };
  if (violation !== undefined) return { ...figures, outcome: 'over', message: violation, ...(latest === undefined ? {} : { last: latest }) };
  return {
    ...figures,
    ...noted,
    outcome: 'stopped',
    message: `spent the burst's cap of ${spendCap} requests (${tally.served} served) without reaching the limit in one window`,
  };
}

/** What the burst's requests of each operation are sent with. */
export interface BurstTargets {
  /** A pet the run has seen, for getPet; absent: getPet goes as the filler. */
  petId?: bigint | undefined;
  /** A fresh valid NewPet for each createPet; absent (a read-only run): createPet goes as the filler. */
  newPet?: (() => string) | undefined;
}

/** The request of one operation of the burst (the filler: the cheapest listing). */
export function burstRequest(operation: BurstOperation, targets: BurstTargets): Pick<SendRequest, 'method' | 'path' | 'query' | 'body' | 'contentType'> {
  if (operation === 'getPet' && targets.petId !== undefined) return { method: 'GET', path: `/pets/${targets.petId}` };
  if (operation === 'createPet' && targets.newPet !== undefined) return { method: 'POST', path: '/pets', body: targets.newPet(), contentType: 'application/json' };
  return { method: 'GET', path: '/pets', query: [['limit', '1']] };
}

/** A rate-limit header as a number, when it is an integer a number holds exactly. */
export function header(ex: Exchange, name: RateLimitHeader): number | undefined {
  const value = rateLimitValue(ex, name);
  return value === undefined || value > BigInt(Number.MAX_SAFE_INTEGER) ? undefined : Number(value);
}

export function burstResponseOf(ex: Exchange): BurstResponse {
  return {
    seq: ex.seq,
    status: ex.response?.status ?? 0,
    limit: header(ex, 'x-ratelimit-limit'),
    remaining: header(ex, 'x-ratelimit-remaining'),
    reset: header(ex, 'x-ratelimit-reset'),
    sentAt: ex.sentAt,
    receivedAt: receivedAt(ex),
  };
}
