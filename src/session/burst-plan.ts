/**
 * RATE-005's burst, planned before a request is sent: which limit it tests (the plan's, or the
 * advertised numbers while they are plausible), how many requests must land in one window, how
 * many may be sent at once so they do, and how many it may spend at most.
 *
 * Pure: the caller passes what the run has observed (the last keyed response's headers, the
 * latencies) and the budget; nothing here sends or reads a clock.
 */
import { PLAN_LIMITS, PLAN_NAMES, planLimits, type Plan } from '../plans.js';
import { MINUTE_WINDOW_MS } from '../rate-limit/tolerances.js';
import { isUnixSecondsReset } from '../rate-limit/reset-kind.js';

/** More concurrent requests than this would look like an attack on a small server. */
export const MAX_CONCURRENCY = 32;
/** The burst plans to fill this share of the time it has, leaving room for latency that varies. */
const TIME_SHARE = 0.5;
/** Past the Reset before the first request of the next window, for clocks and whole seconds. */
const WAIT_MARGIN_MS = 250;
/** A Reset further ahead than this is not the per-minute window (a day, or nonsense). */
const WINDOW_HORIZON_MS = 3_600_000;

/** The keyed pet operations the spec names: each must meet a 429 the way the others do. */
export type BurstOperation = 'createPet' | 'getPet' | 'listPets';

/** What every request of a burst is sent as until one is expected over the limit: the cheapest read. */
export const FILLER_OPERATION: BurstOperation = 'listPets';

/**
 * What the requests expected over the limit are sent as: one of each, released at the same moment
 * (so none is sent after a 429 came back), so that each operation meets its own 429 whatever the
 * window's phase, for two requests more than the one the limit needs.
 */
export const OVER_LIMIT_OPERATIONS: readonly BurstOperation[] = ['createPet', 'getPet', 'listPets'];

/** What the run knows when the burst starts. */
export interface BurstInputs {
  plan?: Plan | undefined;
  /** X-RateLimit-* of the last keyed response, as sent (undefined when absent or not an integer). */
  limit?: number | undefined;
  remaining?: number | undefined;
  /** X-RateLimit-Reset as sent. */
  reset?: number | undefined;
  /** The server's clock (Date header) of that response, or the local time it arrived. */
  serverNowMs: number;
  /** Typical time of one exchange with the target (median elapsedMs). */
  latencyMs: number;
  budgetLeft: number;
  /** The window's length as the run saw it (the longest time to a Reset, at most a minute). */
  windowMs?: number | undefined;
}

export interface LimitUnderTest {
  /** Requests one window allows. */
  limit: number;
  /** Why this number: shown in evidence. */
  source: string;
  /** True when the limit comes from the plan table (given or matched): behaviour is judged against it, not the headers. */
  fromPlan: boolean;
  /** The plan, when the limit is the plan table's. */
  plan?: Plan;
}

export type BurstPlan =
  | { kind: 'cannot'; reason: string }
  | {
      kind: 'burst';
      tested: LimitUnderTest;
      /** Requests expected before the 429 (Remaining + 1 when plausible, else limit + 1). */
      expected: number;
      /** Time left in the current window, as far as the headers tell (else a whole window). */
      windowLeftMs: number;
      /**
       * Wait this long first: the current window has too little time left to reach its limit,
       * and trying would spend its remainder for nothing. Then plan for a whole window.
       */
      waitFirstMs?: number;
      concurrency: number;
      /** Most requests the burst may send, in-flight ones included. */
      spendCap: number;
      /** The run's budget when the burst starts: what a second try may spend up to (retrySpendCap). */
      budgetLeft: number;
      /** The operations of the requests expected over the limit, sent together; absent: the filler alone. */
      overLimit?: readonly BurstOperation[];
    };

/** The plan table's per-minute limit: from --plan, or the advertised Limit when it is one of the table's values. */
export function limitFromPlan(plan: Plan | undefined, advertisedLimit: number | undefined): LimitUnderTest | undefined {
  if (plan !== undefined) return { limit: planLimits(plan).perMinute, source: `the ${plan} plan (--plan)`, fromPlan: true, plan };
  // Only the published plans: a custom plan is the user's statement, never guessed from a header.
  const matched = PLAN_NAMES.find((p) => PLAN_LIMITS[p].perMinute === advertisedLimit);
  if (matched === undefined) return undefined;
  return { limit: PLAN_LIMITS[matched].perMinute, source: `X-RateLimit-Limit ${advertisedLimit}, the ${matched} plan's limit`, fromPlan: true, plan: matched };
}

/** Milliseconds from the server's now to a plausible absolute Reset (Unix seconds), else undefined. */
export function windowLeftMs(reset: number | undefined, serverNowMs: number): number | undefined {
  if (reset === undefined) return undefined;
  const left = reset * 1000 - serverNowMs;
  return left > 0 && left <= WINDOW_HORIZON_MS ? left : undefined;
}

/** Enough parallel senders that `count` exchanges of `latencyMs` take about half of `timeMs`. */
export function concurrencyFor(count: number, latencyMs: number, timeMs: number): number {
  const wanted = Math.ceil((count * Math.max(1, latencyMs)) / (TIME_SHARE * Math.max(1, timeMs)));
  return Math.max(1, Math.min(MAX_CONCURRENCY, count, wanted));
}

/**
 * The burst's cap once a window ended first: the second try starts in a fresh window and may
 * spend a fresh window's cap (2 x limit + 1, what proves an excess even by count alone) on top of
 * what was sent before, within the run's budget. Without it a first try that a server which never
 * refuses let run long would leave the fresh window too few requests to show its excess.
 */
export function retrySpendCap(plan: { spendCap: number; budgetLeft: number; tested: LimitUnderTest }, spentBefore: number): number {
  return Math.max(plan.spendCap, Math.min(plan.budgetLeft, spentBefore + 2 * plan.tested.limit + 1));
}

/**
 * What one sender took per request in the try that just ended: its time over the responses it
 * got, times the senders that shared them. More than an exchange's latency when the client itself
 * is slow to send the next (a starved machine), and that, not the latency, is what a window runs
 * out on.
 */
export function achievedPaceMs(elapsedMs: number, senders: number, answered: number): number {
  return answered > 0 ? (Math.max(0, elapsedMs) * senders) / answered : 0;
}

/**
 * The second try after a window ended first: at least twice as many senders, planned for a whole
 * window at the slower of the latency and the pace the first try achieved (achievedPaceMs).
 */
export function retryConcurrency(previous: number, count: number, latencyMs: number, wholeWindowMs: number, paceMs = 0): number {
  return Math.min(MAX_CONCURRENCY, Math.max(previous * 2, concurrencyFor(count, Math.max(latencyMs, paceMs), wholeWindowMs)));
}

export function planBurst(inputs: BurstInputs): BurstPlan {
  const { remaining, budgetLeft } = inputs;
  const fromPlan = limitFromPlan(inputs.plan, inputs.limit);
  const tested = fromPlan ?? advertisedLimit(inputs);
  if ('reason' in tested) return { kind: 'cannot', reason: tested.reason };
  const plausibleRemaining = remaining !== undefined && remaining <= tested.limit ? remaining : undefined;
  const expected = (plausibleRemaining ?? tested.limit) + 1;
  // Limit + 1 is what a window must refuse; one window's limit more covers a window that ends
  // mid-burst (and, without a usable Reset, proves by count alone that one window served too many).
  const spendCap = fromPlan === undefined ? expected + tested.limit : 2 * tested.limit + 1;
  const needed = fromPlan === undefined ? expected : tested.limit + 1;
  if (needed > budgetLeft) {
    return { kind: 'cannot', reason: `reaching the limit needs ${needed} more requests and the run's budget has ${budgetLeft} left (raise --max-requests)` };
  }
  const left = windowLeftMs(inputs.reset, inputs.serverNowMs);
  const whole = Math.min(MINUTE_WINDOW_MS, Math.max(inputs.windowMs ?? MINUTE_WINDOW_MS, left ?? 0));
  const cap = Math.min(spendCap, budgetLeft);
  if (left !== undefined && tooLittleTime(expected, inputs.latencyMs, left, whole)) {
    const fresh = tested.limit + 1;
    return { kind: 'burst', tested, expected: fresh, windowLeftMs: whole, waitFirstMs: left + WAIT_MARGIN_MS, concurrency: concurrencyFor(fresh, inputs.latencyMs, whole), spendCap: cap, budgetLeft, overLimit: OVER_LIMIT_OPERATIONS };
  }
  const time = left ?? whole;
  return { kind: 'burst', tested, expected, windowLeftMs: time, concurrency: concurrencyFor(expected, inputs.latencyMs, time), spendCap: cap, budgetLeft, overLimit: OVER_LIMIT_OPERATIONS };
}

/**
 * The rest of the window is too short when even a quarter of the most senders allowed would not
 * fit the requests in half of it, and it is under half a window: waiting for the next is cheaper.
 */
function tooLittleTime(count: number, latencyMs: number, leftMs: number, wholeMs: number): boolean {
  const wanted = Math.ceil((count * Math.max(1, latencyMs)) / (TIME_SHARE * Math.max(1, leftMs)));
  return wanted > MAX_CONCURRENCY / 4 && leftMs < wholeMs / 2;
}

/** Without a plan, the advertised Limit and Remaining, only while they are plausible. */
function advertisedLimit(inputs: BurstInputs): LimitUnderTest | { reason: string } {
  const { limit, remaining, budgetLeft } = inputs;
  if (remaining === undefined) {
    return { reason: 'the target sent no usable X-RateLimit-Remaining and no --plan was given, so the requests needed to reach the limit are unknown' };
  }
  if (limit !== undefined && remaining > limit) {
    return { reason: `advertised Remaining ${remaining} exceeds the advertised Limit ${limit}, so neither says when the limit is reached (give --plan)` };
  }
  if (!isUnixSecondsReset(inputs.reset)) {
    return { reason: 'without --plan the burst tells windows apart by X-RateLimit-Reset, and it is not a Unix time in seconds here (give --plan)' };
  }
  if (remaining + 1 > budgetLeft) {
    return { reason: `advertised Remaining ${remaining} exceeds the budget: reaching the limit needs ${remaining + 1} more requests and the run has ${budgetLeft} left (raise --max-requests, or give --plan)` };
  }
  const tested = limit ?? remaining;
  return { limit: tested, source: limit === undefined ? `X-RateLimit-Remaining ${remaining} (no Limit was advertised)` : `X-RateLimit-Limit ${limit} as advertised`, fromPlan: false };
}
