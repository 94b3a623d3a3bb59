/**
 * RATE-005's burst, sent mid-run on top of the run's own requests (the window top-up). Where a
 * run that sends one request at a time cannot use up a window by itself (a slow target, a short
 * window), a burst after every other probe starts in whatever window it happens to meet, often a
 * fresh one, and spends up to the whole limit + 1. Sent instead at the moment the window the run
 * is already using still has just enough time left to be filled, the burst spends only what that
 * window has left + 1: the requests the run already sent in it count.
 *
 * Where the run's own requests can use a window up (a Free key's 60 s window), the limit probe
 * (src/http/client.ts) is cheaper still, and no top-up is planned. Pure: the caller passes what
 * the run has observed.
 */
import type { ServerClock } from '../checks/server-clock.js';
import { concurrencyFor, MAX_CONCURRENCY, planBurst, windowLeftMs, type BurstInputs, type BurstPlan } from './burst-plan.js';

type Planned = Extract<BurstPlan, { kind: 'burst' }>;

/**
 * The top-up waits until filling the window needs this many senders at once (or all of them, when
 * the window has fewer left): late (the later, the
 * more of the window the run's own requests have used), while the senders still fit the top-up
 * into half of the time left.
 */
export const TOP_UP_FROM_CONCURRENCY = 10;
/**
 * Beyond this many senders the rest of the window is too short to rely on: the top-up lets this
 * window go and waits for the same moment in the next one (a run sending one request at a time
 * passes from 10 to 14 over one or two requests).
 */
const TOP_UP_MAX_CONCURRENCY = (7 * MAX_CONCURRENCY) / 16;
/** Cases sent together go on until the top-up needs this many senders a round trip later: they use the window faster than the clock does. */
const TOP_UP_APPROACH_CONCURRENCY = 12;
/**
 * The run cannot fill a window alone when limit x latency exceeds the window by this much: the
 * margin keeps a fast target whose latency the machine's load inflates out of it.
 */
const SEQUENTIAL_SHORTFALL = 1.25;
/**
 * Shorter windows are left to the burst at the end: Reset and Date have whole seconds, and a window
 * of a second is over before a top-up timed inside it could be sure of the time it has.
 */
const MIN_WINDOW_MS = 2_000;

/**
 * The latest the server's clock can read at local time `now`, by the narrow bound of the run's
 * Date headers (src/checks/server-clock.ts: about one latency wide once responses spanned a
 * second's turn, where the Date of the last response alone is up to a second behind). The latest
 * reading gives the least time left in a window, so a plan made on it can only finish early.
 */
export function latestServerNow(clock: ServerClock | undefined, now: number): number | undefined {
  return clock === undefined ? undefined : now + clock.narrowHigh;
}

/**
 * The earliest the server's clock can read at local time `now` (the freshest Date, which no cache
 * makes later than the clock): a wait for a window's end timed on it ends after that end.
 */
export function earliestServerNow(clock: ServerClock | undefined, now: number): number | undefined {
  return clock === undefined ? undefined : now + clock.low;
}

/**
 * Where a top-up is ever planned: a limit from the plan table, a window of 2 s or more, and a run
 * that cannot use up a window alone. The burst a top-up would start from and the window's
 * Remaining; undefined elsewhere.
 */
function topUpSetting(inputs: BurstInputs): { plan: Planned; remaining: number } | undefined {
  const plan = planBurst(inputs);
  const { remaining, windowMs } = inputs;
  if (plan.kind !== 'burst' || !plan.tested.fromPlan || remaining === undefined || windowMs === undefined || windowMs < MIN_WINDOW_MS) return undefined;
  if (remaining > plan.tested.limit || plan.tested.limit * inputs.latencyMs <= SEQUENTIAL_SHORTFALL * windowMs) return undefined;
  return { plan, remaining };
}

/**
 * The burst this window would take, whenever it is sent, or undefined where no top-up is ever
 * planned (topUpSetting), without a Reset that places the window, and until the run has used a
 * third of the window or more.
 */
function topUpNeed(inputs: BurstInputs): Planned | undefined {
  const setting = topUpSetting(inputs);
  const left = windowLeftMs(inputs.reset, inputs.serverNowMs);
  if (setting === undefined || left === undefined) return undefined;
  const { plan, remaining } = setting;
  // Worth it only where the run's own requests have used a third of the window or more; else the next window may do better.
  if (remaining > (2 * plan.tested.limit) / 3) return undefined;
  // What this window has left, not a fresh window: planBurst would wait for one this late in a window.
  const expected = remaining + 1;
  return { kind: 'burst', tested: plan.tested, expected, windowLeftMs: left, concurrency: concurrencyFor(expected, inputs.latencyMs, left), spendCap: plan.spendCap, budgetLeft: plan.budgetLeft };
}

/** Senders the top-up waits for: TOP_UP_FROM_CONCURRENCY, or all of them when the window has fewer left (the run's cases sent together used it nearly up). */
const startingConcurrency = (expected: number): number => Math.min(TOP_UP_FROM_CONCURRENCY, expected);

/**
 * The burst to send now, on top of the run's own requests, or undefined: see topUpNeed, and only
 * when the window the run is in has reached the moment described above (with fewer requests
 * left than TOP_UP_FROM_CONCURRENCY, once all at once are needed and one round trip still fits).
 * `serverNowMs` should be latestServerNow's.
 */
export function planTopUp(inputs: BurstInputs): Planned | undefined {
  const need = topUpNeed(inputs);
  if (need === undefined || need.concurrency < startingConcurrency(need.expected) || need.concurrency > TOP_UP_MAX_CONCURRENCY) return undefined;
  return need.expected < TOP_UP_FROM_CONCURRENCY && need.windowLeftMs < inputs.latencyMs ? undefined : need;
}

/**
 * Whether the top-up's moment is near (three quarters of the senders it waits for would already be
 * needed): a run sending cases together goes back to one at a time then, so that moment is not
 * skipped. Not sooner: cases sent together use the window up about as fast as its time runs out,
 * so the senders needed grow slowly while they go, and one at a time the window is used far less.
 * `inputs.remaining` should leave out the requests in flight.
 */
export function topUpApproaching(inputs: BurstInputs): boolean {
  // Judged one round trip ahead: the requests in flight must be answered before the top-up goes.
  const need = topUpNeed({ ...inputs, serverNowMs: inputs.serverNowMs + inputs.latencyMs });
  return need !== undefined && need.concurrency >= Math.min(TOP_UP_APPROACH_CONCURRENCY, need.expected);
}

/**
 * Requests after cases sent together that may not pass the top-up's check (SendScheduler.beforeSend):
 * a census of the store (session.store.census) is sent by the session itself, as after CREATE-003's cases.
 */
const UNCHECKED_AFTER_CASES = 2;

/**
 * How long `cases` keyed requests about to be sent `atOnce` at a time (a test's cases sent
 * together) should wait so that one window takes them whole with the top-up's moment still ahead
 * after them: 0 to send them now. They are where the run uses a window up fastest. Sent across a
 * window's end, they are split over two windows that neither hold enough of the run's own
 * requests for a cheap top-up; sent too close to it, they carry the window to the top-up's moment
 * in their midst, with much of the window left, or past it, so that the window goes without one
 * (and the burst at the end spends a fresh window's limit + 1). Then they wait for the next
 * window: its Reset by `earliestServerNowMs` (earliestServerNow), so the wait ends after the
 * window does. Only where a top-up is ever planned (topUpSetting); never when the cases would
 * use the window up themselves (the limit probe then costs one request).
 * `inputs.serverNowMs` should be latestServerNow's.
 */
export function holdForWindowMs(inputs: BurstInputs, earliestServerNowMs: number, cases: number, atOnce: number): number {
  const setting = topUpSetting(inputs);
  // Until the window has surely ended; undefined when it has (the cases meet a fresh window) or no Reset places it.
  const untilEnd = windowLeftMs(inputs.reset, earliestServerNowMs);
  if (setting === undefined || untilEnd === undefined || cases <= 1 || setting.remaining <= cases) return 0;
  const { latencyMs } = inputs;
  // By the latest reading of the server's clock: the least time the window may have left.
  const left = windowLeftMs(inputs.reset, inputs.serverNowMs) ?? 0;
  const leftAfter = left - Math.ceil(cases / Math.max(1, atOnce)) * latencyMs;
  const expectedAfter = setting.remaining - cases + 1;
  const later = leftAfter - UNCHECKED_AFTER_CASES * latencyMs;
  // Not yet the top-up's moment when the cases are done, not past it once the requests that may go unchecked are sent, and a round trip left then.
  const ahead =
    later >= latencyMs &&
    concurrencyFor(expectedAfter, latencyMs, leftAfter) < startingConcurrency(expectedAfter) &&
    concurrencyFor(expectedAfter - UNCHECKED_AFTER_CASES, latencyMs, later) <= TOP_UP_MAX_CONCURRENCY;
  return ahead ? 0 : untilEnd;
}
