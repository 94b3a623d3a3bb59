/**
 * The send scheduler: cases sent together (as many at once as the key's window has room for, in
 * groups where their overlap is under test), the waits for a window that can take them, and
 * RATE-005's burst sent mid-run on top of the run's own requests with RATE-006's request after
 * it (the window top-up, src/session/window-top-up.ts). Every test's request passes beforeSend.
 */
import type { ServerClock } from '../checks/server-clock.js';
import type { ConformanceClient, SendRequest } from '../http/client.js';
import type { Exchange } from '../http/exchange.js';
import type { RunConfig } from '../run-config.js';
import { DETERMINISTIC_REQUESTS, PROPERTY_EXAMPLE_REQUESTS } from './budget-plan.js';
import { windowLeftMs, type BurstInputs, type BurstPlan } from './burst-plan.js';
import { burstInputsOf, runBurst, type BurstResult } from './burst.js';
import { earliestServerNow, holdForWindowMs, latestServerNow, planTopUp, topUpApproaching } from './window-top-up.js';
import { isClientError } from '../http/errors.js';

/**
 * Requests kept for the run's own cases when the burst is sent mid-run: the deterministic probes,
 * the fixed examples and the authentication probes (a generous bound, not a count).
 */
const TOP_UP_RESERVE = DETERMINISTIC_REQUESTS + PROPERTY_EXAMPLE_REQUESTS + 20;

/** RATE-005's burst sent mid-run (src/session/window-top-up.ts), and RATE-006's request sent once its 429's Retry-After had passed. */
export interface TopUp {
  plan: Extract<BurstPlan, { kind: 'burst' }>;
  result: BurstResult;
  /** Keyed requests of the run in the window before the top-up, by the window's own Remaining. */
  runInWindow: number;
  recovery?: Exchange;
}

/**
 * Independent cases of one test sent together at most: a few, so the run's own requests can use up
 * a short window (the limit probe then decides RATE-005 for one request) without a burst's load.
 */
export const CASES_AT_ONCE = 4;

/**
 * The size of the groups `together` releases at once with `groups`, and the smallest group its
 * first one waits for the next window to send whole: what overlapping creations need to show, and
 * what CREATE-002 can afford to fetch whole on a Free key (CREATE-001's fixed examples, fetched by
 * the group).
 */
export const MIN_GROUP = 3;
/** Past the Reset by the earliest reading of the server's clock, as the client's own waits add their margin. */
const GROUP_WAIT_MARGIN_MS = 250;

export interface TogetherOptions {
  /**
   * Released in groups of MIN_GROUP at the same moment, each once the group before is
   * answered, rather than one more as each is answered; and before the first group the scheduler
   * pauses until the next window when this one has no room for MIN_GROUP of them and one to spare.
   * For cases whose overlap is itself under test (CREATE-001's valid creations).
   */
  groups?: boolean;
}

/** What the scheduler reads of the session: its client and options, the server's clock, and the waits it keeps for the timeline. */
export interface SchedulerSession {
  readonly client: ConformanceClient;
  readonly config: RunConfig;
  readonly serverClock: ServerClock | undefined;
  /** The run's limit probe (src/rate-limit/limit-probe.ts): once it was sent, the window's limit is being judged without a top-up. */
  readonly limitProbe: { readonly exchange: Exchange | undefined };
  isSelected(requirement: string): boolean;
  idle(ms: number, reason: string, quiet?: boolean): Promise<void>;
}

export class SendScheduler {
  readonly #session: SchedulerSession;
  readonly client: ConformanceClient;
  readonly config: RunConfig;
  /** RATE-005's burst, when it was sent mid-run; undefined until then (and when it never was). */
  topUp: TopUp | undefined;
  /** Set once RATE-005's own test starts, or once a top-up was tried: one per run at most. */
  #topUpClosed = false;
  /** True while the mid-run burst and its recovery request are being sent: nothing else overlaps them. */
  #toppingUp = false;

  constructor(session: SchedulerSession) {
    this.#session = session;
    this.client = session.client;
    this.config = session.config;
  }

  get serverClock(): ServerClock | undefined {
    return this.#session.serverClock;
  }

  isSelected(requirement: string): boolean {
    return this.#session.isSelected(requirement);
  }

  idle(ms: number, reason: string, quiet = false): Promise<void> {
    return this.#session.idle(ms, reason, quiet);
  }

  /** No more mid-run bursts: RATE-005's test has started and sends its own if it needs one. */
  closeTopUp(): void {
    this.#topUpClosed = true;
  }

  /**
   * Called before each request a test sends: when the run's own requests cannot use up a window
   * and the window they are using has just enough time left to be filled, RATE-005's burst is
   * sent now, on top of them, and after its 429 RATE-006's request at exactly Retry-After
   * (src/session/window-top-up.ts). Once per run; a top-up that could not reach the limit is
   * dropped, and RATE-005 then sends its burst at the end as without it.
   */
  async beforeSend(): Promise<void> {
    const { client } = this;
    // Planned on the window's Remaining, which requests still in flight (cases sent together) do not show yet.
    const inputs = client.keyedInFlight > 0 ? undefined : this.#topUpInputs(0);
    const plan = inputs === undefined ? undefined : planTopUp(inputs);
    if (plan === undefined) return;
    this.#topUpClosed = true;
    this.#toppingUp = true;
    const runInWindow = plan.tested.limit + 1 - plan.expected;
    const send = (extra: Partial<SendRequest>): Promise<Exchange> =>
      client.send({ method: 'GET', path: '/pets', query: [['limit', '1']], pace: false, retryOn429: false, purpose: 'RATE-005', ...extra });
    try {
      const result = await runBurst(plan, () => send({}), (ms) => this.idle(ms, 'too little of the window is left for the burst', true));
      if (result.outcome === 'stopped') return;
      this.topUp = { plan, result, runInWindow };
      if (result.outcome === 'refused' && result.throttled !== undefined) {
        // Exactly when Retry-After says, with no backoff on top: that moment is what RATE-006 tests.
        this.topUp.recovery = await send({ exactRetryAfter: true, purpose: 'RATE-006' });
      }
    } catch (error) {
      // The test that was about to send meets the same stop (halt, budget) and reports it.
      if (!isClientError(error)) throw error;
    } finally {
      this.#toppingUp = false;
    }
  }

  /** What a top-up would be planned on now, with `inFlight` requests counted off Remaining; undefined when none may be sent any more. */
  #topUpInputs(inFlight: number): BurstInputs | undefined {
    if (this.#topUpClosed || !this.isSelected('RATE-005')) return undefined;
    const { client } = this;
    if (client.stats.throttled > 0 || this.#session.limitProbe.exchange !== undefined || client.stopped !== undefined || client.rateLimit.remaining === undefined) return undefined;
    const serverNowMs = latestServerNow(this.serverClock, Date.now());
    if (serverNowMs === undefined) return undefined;
    const inputs = burstInputsOf(client.exchanges, this.config.plan, client.remainingBudget() - TOP_UP_RESERVE, this.serverClock);
    return { ...inputs, ...(inputs.remaining === undefined ? {} : { remaining: Math.max(0, inputs.remaining - inFlight) }), serverNowMs };
  }

  /**
   * Runs `run` on every item, up to CASES_AT_ONCE at a time while the key's window has room for
   * them all and one to spare (ConformanceClient.mayOverlap): otherwise one at a time, so the
   * last request of a window, the limit probe, a 429's wait and the mid-run burst each meet a run
   * with nothing of its own in flight. For a test's independent cases (requests that neither
   * create what another needs nor depend on another's answer). Every item runs; the earliest
   * item's error is thrown once all have settled.
   */
  async together<T>(items: readonly T[], run: (item: T, index: number) => Promise<void>, how: TogetherOptions = {}): Promise<void> {
    await this.#holdForWindow(items.length);
    if (how.groups === true) await this.#holdForGroup(Math.min(items.length, MIN_GROUP));
    const running = new Set<Promise<void>>();
    const atOnce = how.groups === true ? MIN_GROUP : CASES_AT_ONCE;
    const roomForOneMore = (): boolean => {
      if (running.size >= atOnce || this.#toppingUp || !this.client.mayOverlap(running.size)) return false;
      const inputs = this.#topUpInputs(running.size);
      return inputs === undefined || !topUpApproaching(inputs);
    };
    const failures = new Map<number, unknown>();
    for (const [index, item] of items.entries()) {
      // A group is released whole and answered whole before the next: the next one then goes out on
      // the connections the group opened, all at the same moment (a fresh connection's handshake
      // would hold its request back behind one that reuses a connection).
      if (how.groups === true && running.size > 0 && !roomForOneMore()) await Promise.all([...running]);
      while (running.size > 0 && !roomForOneMore()) await Promise.race(running);
      const task: Promise<void> = run(item, index)
        .catch((error: unknown) => {
          failures.set(index, error);
        })
        .finally(() => running.delete(task));
      running.add(task);
    }
    await Promise.all(running);
    // The error of the earliest item, as when they run one after another, whatever finished first.
    const first = Math.min(...failures.keys());
    if (failures.has(first)) throw failures.get(first);
  }

  /**
   * A group of `size` cases that must go out at the same moment waits for the next window when this
   * one has no room for them all and one to spare (a shared key others nearly used up), rather than
   * go out one at a time: a wait, never a request, and only where the window's Reset is known and
   * no 429 was met (after one, cases are sent one at a time for the rest of the run).
   */
  async #holdForGroup(size: number): Promise<void> {
    const { client } = this;
    const { limit, remaining, reset } = client.rateLimit;
    // A window too small for a group at all is not waited for: the next one would be no better.
    if (size < MIN_GROUP || client.mayOverlap(MIN_GROUP - 1) || client.stats.throttled > 0 || remaining === undefined || (limit ?? 0) <= MIN_GROUP) return;
    // Room for them all and one to spare as last read, its Reset passed: the next window can only
    // have more, and the group's first request reads it. Waiting for it to have surely turned (by
    // the server's earliest clock, up to a second behind) would leave the reading as stale.
    if (remaining > MIN_GROUP) return;
    const now = earliestServerNow(this.serverClock, Date.now()) ?? Date.now();
    const ms = windowLeftMs(reset, now);
    if (ms !== undefined) await client.pause(ms + GROUP_WAIT_MARGIN_MS, `${size} cases that go out together wait for the next rate-limit window (X-RateLimit-Remaining ${remaining})`);
  }

  /**
   * Where a top-up is in prospect, `cases` sent together (one keyed request each) wait for the
   * next window when this one cannot take them whole with the top-up's moment still ahead after
   * them (src/session/window-top-up.ts, holdForWindowMs): a wait, never a request.
   */
  async #holdForWindow(cases: number): Promise<void> {
    const { client } = this;
    const inputs = client.keyedInFlight > 0 ? undefined : this.#topUpInputs(0);
    const earliest = earliestServerNow(this.serverClock, Date.now());
    if (inputs === undefined || earliest === undefined) return;
    const ms = holdForWindowMs(inputs, earliest, cases, CASES_AT_ONCE);
    if (ms > 0) await client.pause(ms, `${cases} cases sent together wait for the next rate-limit window, which can take them whole`);
  }
}
