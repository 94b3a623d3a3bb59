/**
 * The run's shared state on the worker side: one client (so one rate-limit account and one
 * request budget for every suite), the ledger of findings, what is known of the store
 * (store-model.ts), the check pipeline every exchange goes through (check-pipeline.ts), the send
 * scheduler (rate-limit-sends.ts), the results tests share (shared-results.ts) and the
 * property-run plan. Suites get it through getSession().
 */
import { inject } from 'vitest';
import type { ServerClock } from '../checks/server-clock.js';
import { createClient, reachOptions, type ConformanceClient } from '../http/client.js';
import type { RunConfig } from '../run-config.js';
import { Ledger } from './ledger.js';
import { CheckPipeline } from './check-pipeline.js';
import { registerRunChecks } from './run-checks.js';
import { StoreModel } from './store-model.js';
import { SharedResults } from './shared-results.js';
import { encodeProgress } from '../conformance/progress.js';
import { loggedExchange } from '../report/evidence.js';
import { planPropertyRuns, PROPERTY_EXAMPLE_REQUESTS, type RunPlan } from './budget-plan.js';
import { limitFromPlan } from './burst-plan.js';
import { LimitProbe } from '../rate-limit/limit-probe.js';
import { runSendPolicy } from '../rate-limit/send-policy.js';
import { RefillDoubt } from '../rate-limit/refill-doubt.js';
import { SendScheduler } from './rate-limit-sends.js';
import { listenForStop } from './stop-channel.js';
import type { WaitRecord } from '../report/timeline-record.js';

/** Pets a run may add (fixed examples, random creations, the default page's 21): a store this much under 100 stays on one page. */
const STORE_GROWTH = 50;

/** Two waits for one reason ending this close together are one wait of sends held together. */
const SAME_WAIT_MS = 100;

export class Session {
  readonly config: RunConfig;
  readonly client: ConformanceClient;
  /** The run's own requests may use up the window before the burst: then the next one is RATE-005's request over the limit. */
  readonly #refillDoubt = new RefillDoubt();
  readonly limitProbe = new LimitProbe((advertised) => this.isSelected('RATE-005') && limitFromPlan(this.config.plan, advertised) !== undefined);
  readonly ledger = new Ledger();
  readonly store: StoreModel;
  /** Every exchange, as it arrives, to the store model and the run's checks; their findings to the ledger. */
  readonly #checks: CheckPipeline;
  /** Results tests share and hand on, by the typed keys their suites declare. */
  readonly shared = new SharedResults();
  /** Cases sent together, the waits for a window that takes them, and the mid-run burst. */
  readonly scheduler: SendScheduler;
  #plan: RunPlan | undefined;
  /** Every wait the run made before sending more, as it began: the spans of report.html's timeline. */
  readonly waits: WaitRecord[] = [];

  constructor(config: RunConfig) {
    this.config = config;
    this.client = createClient({
      baseUrl: config.baseUrl,
      apiKey: config.apiKey,
      timeoutMs: config.timeoutMs,
      maxBodyBytes: config.maxBodyBytes,
      maxRequests: config.maxRequests,
      maxWaitMs: config.maxWaitMs,
      ...(config.deadlineAt === undefined ? {} : { deadlineAt: config.deadlineAt }),
      ...(config.waitMarginMs === undefined ? {} : { waitMarginMs: config.waitMarginMs }),
      ...(config.ca === undefined ? {} : { ca: config.ca }),
      ...reachOptions(config),
      sendPolicy: runSendPolicy(this.limitProbe, this.#refillDoubt),
      // Live count for the main side, taken as each request leaves: a cancelled test's requests
      // reach no test's meta, and one in flight at the abort may never be answered.
      onSend: (requests) => console.info(encodeProgress({ kind: 'requests', requests })),
      onExchange: (ex) => this.#checks.inspect(ex),
      onWait: (ms, reason) => this.noteWait(ms, reason),
    });
    this.store = new StoreModel({
      runId: config.runId,
      listStore: () => this.client.send({ method: 'GET', path: '/pets', query: [['limit', '100']], purpose: 'census' }),
      create: (body, purpose) => this.client.send({ method: 'POST', path: '/pets', body, contentType: 'application/json', purpose }),
      exchangeOf: (seq) => this.client.exchanges.find((ex) => ex.seq === seq),
      record: (findings) => this.ledger.add(findings),
    });
    this.#checks = new CheckPipeline((findings) => this.ledger.add(findings), () => this.client.exchanges);
    // Shipped at once, cut to the log's body limit: the main side never waits for, or holds, whole bodies.
    if (config.exchangeLog === true) this.#checks.observe((ex) => console.info(encodeProgress({ kind: 'exchange', exchange: loggedExchange(ex) })));
    this.#checks.observe((ex) => this.store.observe(ex));
    this.#checks.observe((ex) => this.#refillDoubt.observe(ex, this.client.exchanges, this.client.stats.requests));
    registerRunChecks(this.#checks, config, this.store.probes);
    this.scheduler = new SendScheduler(this);
    if (config.stopChannel !== undefined) listenForStop(config.stopChannel, (stop) => this.client.stop(stop.reason, stop.message, { graceMs: stop.graceMs }));
  }

  /** A wait the run is about to make: kept for the timeline, and announced to the terminal unless `quiet`. */
  noteWait(ms: number, reason: string, quiet = false): void {
    const at = Date.now();
    // Sends held together for one reason wait for one moment: the timeline shows that wait once.
    if (this.waits.some((w) => w.reason === reason && Math.abs(w.at + w.ms - (at + ms)) < SAME_WAIT_MS)) return;
    this.waits.push({ at, ms, reason });
    if (!quiet) console.info(encodeProgress({ kind: 'wait', ms, reason, requests: this.client.stats.requests }));
  }

  /** The burst's wait for a fresh window (ConformanceClient.idle), kept like the client's own; the mid-run burst's is not announced. */
  async idle(ms: number, reason: string, quiet = false): Promise<void> {
    if (ms > 0) this.noteWait(ms, reason, quiet);
    await this.client.idle(ms);
  }

  /** The server's clock as the run's Date headers have shown it so far; undefined before any Date. */
  get serverClock(): ServerClock | undefined {
    return this.#checks.clock;
  }

  /** Marker carried in the names of everything this run creates or tries to create. */
  get namePrefix(): string {
    return `pc-${this.config.runId}-`;
  }

  isSelected(requirement: string): boolean {
    return this.config.selected.length === 0 || this.config.selected.includes(requirement);
  }

  /** The property-run plan, fixed once from the first census and the budget left then. */
  async plan(): Promise<RunPlan> {
    if (this.#plan === undefined) {
      const census = await this.store.census();
      const remaining = this.client.rateLimit.remaining;
      this.#plan = planPropertyRuns({
        budgetLeft: this.client.remainingBudget(),
        ...(remaining === undefined ? {} : { windowRemaining: remaining }),
        writes: !this.config.readOnly,
        exampleRequests: this.config.readOnly ? 0 : PROPERTY_EXAMPLE_REQUESTS,
        wholeStore: census.wholeStore && census.pets.length + STORE_GROWTH < 100,
      });
    }
    return this.#plan;
  }
}

/**
 * What a suite's test sees of the session (RequirementRun.session): the ledger, the check pipeline
 * and the timeline's waits are the harness's (src/conformance/requirement-test.ts), and a test
 * records findings through its RequirementRun.
 */
export type SuiteSession = Pick<Session, 'config' | 'client' | 'store' | 'shared' | 'scheduler' | 'limitProbe' | 'serverClock' | 'isSelected' | 'namePrefix' | 'plan' | 'idle'>;

let current: Session | undefined;

export function getSession(): Session {
  current ??= new Session(inject('runConfig'));
  return current;
}
