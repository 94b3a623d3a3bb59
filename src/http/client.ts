/**
 * The one HTTP client every suite shares.
 *
 * It is deliberately conservative, because it may run against a customer's staging key that
 * a careless burst could get banned: a run-wide request budget, pacing on X-RateLimit-*,
 * at most one retry after a 429 (and only after Retry-After), no redirects (the key never
 * reaches another origin), bounded waits, and a halt after repeated transport failures.
 * Everything it sends is recorded as an Exchange with the key redacted.
 *
 * This module keeps the run's rules (budget, halting, the single retry, the record); the pieces
 * it calls do one job each: prepare.ts builds the request, pacer.ts decides every wait (unless
 * the run's send policy times a send otherwise, send-policy.ts), transport.ts sends it,
 * recorder.ts redacts it into an Exchange.
 */
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { toolInfo } from '../tool-info.js';
import { BudgetExhaustedError, RunHaltedError, TransportError } from './errors.js';
import type { HaltReason } from './errors.js';
import type { Exchange } from './exchange.js';
import { Pacer } from './pacer.js';
import type { RateLimitState } from './pacer.js';
import { createPreparer, isSendableHeaderValue, parseBaseUrl } from './prepare.js';
import type { PreparedRequest, SendRequest } from './prepare.js';
import { ExchangeRecorder } from './recorder.js';
import { keptExchange } from './kept-body.js';
import { Transport, type ClientCertificate } from './transport.js';
import type { GatewayHeader } from './gateway-headers.js';
import { proxyUseOf, type ProxyChoice } from './proxy-route.js';
import type { SendPolicy } from './send-policy.js';
import { readExchange } from '../rate-limit/reading.js';

export { authTemplateOf } from './prepare.js';
export type { CustomAuth, HttpMethod, SendRequest } from './prepare.js';
export type { RateLimitState } from './pacer.js';
export type { SendPolicy } from './send-policy.js';

export interface ClientOptions {
  /** May carry a path (".../v1"); request paths are appended to it, never replacing it. */
  baseUrl: string;
  apiKey: string;
  /** Per request: connect + headers + body. */
  timeoutMs: number;
  /** Response body cap; past it the connection is destroyed and the exchange is `truncated`. */
  maxBodyBytes: number;
  /** Run-wide budget, retries included: the (maxRequests+1)th send throws BudgetExhaustedError. */
  maxRequests: number;
  /** Longest single wait (default 65 000 ms); a longer one throws RunHaltedError instead. */
  maxWaitMs?: number;
  /**
   * Unix ms (on `now`) of the whole run's deadline: a send, retry or wait that would reach past
   * it throws RunHaltedError('deadline') without sending. Requests already in flight keep their
   * own timeout, so the run ends at most one timeout after the deadline.
   */
  deadlineAt?: number;
  /** Added to every wait the rate limit asks for (default 250 ms; see WaitBounds in pacer.ts). */
  waitMarginMs?: number;
  /** Extra PEM CA, trusted in addition to the system roots. */
  ca?: string;
  /** Sent on every request, whatever its credential (gateway-headers.ts): secrets, recorded as GATEWAY_VALUE. */
  gatewayHeaders?: readonly GatewayHeader[];
  /** The run's proxy (proxy-route.ts): the route every request is tunnelled through, and what curl lines say. */
  proxy?: ProxyChoice;
  /** For a target that asks for mutual TLS. */
  clientCertificate?: ClientCertificate;
  /**
   * Times the sends whose moment the run tests (send-policy.ts; the run's are in src/rate-limit/:
   * the limit probe, the exact retry). Without one every send waits what the pacer asks.
   */
  sendPolicy?: SendPolicy;
  /** Called as each request goes out, with the count sent so far: an answer may never arrive (abort, hung server). */
  onSend?: (requests: number) => void;
  onExchange?: (ex: Exchange) => void;
  onWait?: (ms: number, reason: string) => void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface ClientStats {
  requests: number;
  keyedRequests: number;
  retries: number;
  waitedMs: number;
  /** 429 responses seen, whatever the auth mode. */
  throttled: number;
}

export interface ConformanceClient {
  /** The exchange as it came, whole body included (up to the cap): the caller's checks judge it. */
  send(req: SendRequest): Promise<Exchange>;
  /**
   * Every exchange of the run, in seq order, as the record keeps them: bodies longer than evidence
   * shows are cut to their first part (kept-body.ts), so this never holds more than a few KiB per
   * request. Judge bodies on the exchange `send` returned (or `onExchange` got), never on these.
   */
  readonly exchanges: readonly Exchange[];
  readonly stats: Readonly<ClientStats>;
  readonly rateLimit: Readonly<RateLimitState>;
  /** Why the client stopped sending, once it has; every later send throws RunHaltedError. */
  readonly stopped: { reason: HaltReason; message: string } | undefined;
  /**
   * Whether one more keyed request may be sent while `inFlight` others are unanswered: the window
   * keeps a request to spare after all of them, no 429 was met and no Retry-After is pending (see
   * Pacer.roomToOverlap). False whenever Remaining is unknown.
   */
  mayOverlap(inFlight: number): boolean;
  /** Keyed requests sent and not answered yet. */
  readonly keyedInFlight: number;
  /**
   * A wait the run chooses for the rate limit's sake (cases held for the next window): announced
   * and counted like the client's own waits. Optional, so never a halt: false, without waiting,
   * when it would pass the longest wait allowed or the run's deadline.
   */
  pause(ms: number, reason: string): Promise<boolean>;
  remainingBudget(): number;
  /**
   * Stop sending from now on: every later send throws RunHaltedError(reason), and every wait on
   * the rate limit (or `idle`) ends at once with it. With `graceMs`, the requests already in flight
   * get that long to be answered (an answer is judged as usual); then they are cut off, and their
   * sends throw RunHaltedError too. Without it they run to their own timeout.
   */
  stop(reason: HaltReason, message: string, options?: { graceMs?: number }): void;
  /** A wait of the run's own (not one the rate limit asks for): cut short by a stop, which it then throws. */
  idle(ms: number): Promise<void>;
  redact(text: string): string;
  close(): Promise<void>;
}

const MAX_CONSECUTIVE_TRANSPORT_FAILURES = 3;

type Reach = Pick<ClientOptions, 'gatewayHeaders' | 'proxy' | 'clientCertificate'>;

/** The client options that reach the target (gateway headers, proxy, client certificate), from a run's configuration, those set only. */
export function reachOptions(config: { [K in keyof Reach]?: Reach[K] | undefined }): Reach {
  return {
    ...(config.gatewayHeaders === undefined || config.gatewayHeaders.length === 0 ? {} : { gatewayHeaders: config.gatewayHeaders }),
    ...(config.proxy === undefined ? {} : { proxy: config.proxy }),
    ...(config.clientCertificate === undefined ? {} : { clientCertificate: config.clientCertificate }),
  };
}

export function createClient(options: ClientOptions): ConformanceClient {
  return new Client(options);
}

class Client implements ConformanceClient {
  private readonly maxRequests: number;
  private readonly deadlineAt: number | undefined;
  private readonly onSend: ((requests: number) => void) | undefined;
  private readonly onExchange: ((ex: Exchange) => void) | undefined;
  private readonly sendPolicy: SendPolicy | undefined;
  private readonly onWait: ((ms: number, reason: string) => void) | undefined;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly prepare: (req: SendRequest) => PreparedRequest;
  private readonly pacer: Pacer;
  private readonly transport: Transport;
  private readonly recorder: ExchangeRecorder;

  private readonly recorded: Exchange[] = [];
  private readonly counters: Omit<ClientStats, 'throttled'> = { requests: 0, keyedRequests: 0, retries: 0, waitedMs: 0 };
  private seq = 0;
  private closed = false;
  private halted: RunHaltedError | undefined;
  private consecutiveTransportFailures = 0;
  /** Keyed requests sent but not answered: the Remaining we last saw does not count them yet. */
  private inFlightKeyed = 0;
  /** Once per run: the wait to X-RateLimit-Reset after a retry at Retry-After was refused again. */
  private resetWaitUsed = false;
  /** Aborted by the first halt: it wakes every wait, so a stopped run is not held by a Reset a minute away. */
  private readonly halting = new AbortController();

  constructor(options: ClientOptions) {
    const { origin, basePath } = parseBaseUrl(options.baseUrl);
    if (options.apiKey === '' || !isSendableHeaderValue(options.apiKey)) {
      throw new TypeError('apiKey must be a non-empty string usable in a header');
    }
    for (const [name, value] of [
      ['timeoutMs', options.timeoutMs],
      ['maxBodyBytes', options.maxBodyBytes],
      ['maxRequests', options.maxRequests],
    ] as const) {
      if (!Number.isFinite(value) || value < 0) throw new TypeError(`${name} must be a non-negative number`);
    }
    this.maxRequests = options.maxRequests;
    this.deadlineAt = options.deadlineAt;
    this.onSend = options.onSend;
    this.onExchange = options.onExchange;
    this.sendPolicy = options.sendPolicy;
    this.onWait = options.onWait;
    this.now = options.now ?? Date.now;
    // The default sleep ends with the halt, so no timer of a stopped run is left pending.
    this.sleep = options.sleep ?? ((ms) => delay(ms, undefined, { signal: this.halting.signal }).catch(() => undefined));
    // Every concurrent wait (a burst's senders) listens on it.
    setMaxListeners(0, this.halting.signal);
    const route = options.proxy?.route;
    const proxyUse = options.proxy === undefined ? undefined : proxyUseOf(options.proxy);
    this.recorder = new ExchangeRecorder(options.apiKey, origin, {
      ...(options.gatewayHeaders === undefined ? {} : { gatewayHeaders: options.gatewayHeaders }),
      ...(route === undefined ? {} : { proxySecrets: route.secrets }),
      ...(proxyUse === undefined ? {} : { proxy: proxyUse }),
    });
    const { name, version } = toolInfo();
    this.prepare = createPreparer({
      origin,
      basePath,
      apiKey: options.apiKey,
      userAgent: `${name}/${version}`,
      ...(options.gatewayHeaders === undefined ? {} : { gatewayHeaders: options.gatewayHeaders }),
      redact: (text) => this.recorder.redact(text),
    });
    this.pacer = new Pacer(options);
    this.transport = new Transport({
      origin,
      timeoutMs: options.timeoutMs,
      maxBodyBytes: options.maxBodyBytes,
      ca: options.ca,
      ...(route === undefined ? {} : { proxy: { url: route.url, ...(route.authorization === undefined ? {} : { authorization: route.authorization }) } }),
      ...(options.clientCertificate === undefined ? {} : { clientCertificate: options.clientCertificate }),
    });
  }

  get exchanges(): readonly Exchange[] {
    return this.recorded;
  }

  get stats(): Readonly<ClientStats> {
    return { ...this.counters, throttled: this.pacer.throttled };
  }

  get rateLimit(): Readonly<RateLimitState> {
    return this.pacer.state;
  }

  get stopped(): { reason: HaltReason; message: string } | undefined {
    return this.halted === undefined ? undefined : { reason: this.halted.reason, message: this.halted.message };
  }

  get keyedInFlight(): number {
    return this.inFlightKeyed;
  }

  mayOverlap(inFlight: number): boolean {
    return this.pacer.roomToOverlap(Math.max(inFlight, this.inFlightKeyed), this.now());
  }

  remainingBudget(): number {
    return Math.max(0, this.maxRequests - this.counters.requests);
  }

  async pause(ms: number, reason: string): Promise<boolean> {
    if (this.pacer.refuseWait(ms, reason, this.now()) !== undefined) return false;
    await this.wait(ms, reason);
    return true;
  }

  stop(reason: HaltReason, message: string, options: { graceMs?: number } = {}): void {
    this.halt(reason, message);
    if (options.graceMs === undefined) return;
    // unref: a stopped client whose requests all ended must not keep its process alive for the grace.
    setTimeout(() => this.transport.abortInFlight(), options.graceMs).unref();
  }

  async idle(ms: number): Promise<void> {
    this.assertUsable();
    await this.sleepUnlessHalted(ms);
    this.assertUsable();
  }

  redact(text: string): string {
    return this.recorder.redact(text);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.transport.close();
  }

  async send(req: SendRequest): Promise<Exchange> {
    const prepared = this.prepare(req);
    this.assertUsable();
    if (this.counters.requests >= this.maxRequests) throw new BudgetExhaustedError(this.maxRequests);
    const send = { paced: prepared.paced, keyed: prepared.mode === 'key', retryOn429: prepared.retryOn429, exactRetryAfter: prepared.exactRetryAfter };
    const now = this.now();
    const timing = this.sendPolicy?.time(send, { pacer: this.pacer, inFlightKeyed: this.inFlightKeyed, now });
    const hold = timing === undefined ? this.pacer.holdBeforeSend(send, this.inFlightKeyed, now) : timing.hold;
    if (hold !== undefined) await this.wait(hold.ms, hold.reason);
    const first = await this.dispatch(prepared, undefined);
    timing?.sent?.(first);
    if (first.response?.status !== 429) return first;

    if (this.pacer.throttledTooOften) {
      const halted = this.waitForResetInstead(`two 429 responses in a row (the last: exchange ${first.seq})`);
      // The caller that asked for the raw 429 (the burst, the recovery probe) still gets its
      // evidence; the sends after it wait for the Reset, or are refused once the run is halted.
      if (!prepared.retryOn429) return first;
      if (halted !== undefined) throw halted;
    }
    if (!prepared.retryOn429) return first;

    const retryHold = timing?.retryHoldMs?.(this.now()) ?? this.pacer.holdBeforeRetry(this.now());
    const second = await this.retry(prepared, first, retryHold, `429 on exchange ${first.seq}: waiting before the single retry`);
    if (second.response?.status !== 429) return second;
    const halted = this.waitForResetInstead(`the retry after Retry-After got 429 again (exchanges ${first.seq} and ${second.seq})`);
    if (halted !== undefined) throw halted;
    const third = await this.retry(prepared, second, this.pacer.holdBeforeRetry(this.now()), `429 again on exchange ${second.seq}: waiting for X-RateLimit-Reset before one last try`);
    if (third.response?.status === 429) {
      throw this.halt('throttled', `429 again after waiting for X-RateLimit-Reset (exchanges ${first.seq}, ${second.seq} and ${third.seq}); stopping so the key is not banned`);
    }
    return third;
  }

  /** Waits, then sends the request again as a retry of `refused`. */
  private async retry(prepared: PreparedRequest, refused: Exchange, holdMs: number, reason: string): Promise<Exchange> {
    await this.wait(holdMs, reason);
    this.counters.retries++;
    return this.dispatch(prepared, refused.seq);
  }

  /**
   * 429s came in a row: waiting the Retry-After was not enough (a Retry-After that ends too early
   * is RATE-006's to judge). Once per run, when the server's own X-RateLimit-Reset still lies
   * ahead, every send waits for it rather than the rest of the run going unjudged; otherwise, or
   * a second time, the run halts so the key is not banned: then the halt is returned.
   */
  private waitForResetInstead(what: string): RunHaltedError | undefined {
    if (!this.resetWaitUsed && this.pacer.holdUntilReset(this.now())) {
      this.resetWaitUsed = true;
      return undefined;
    }
    return this.halt('throttled', `${what}; stopping so the key is not banned`);
  }

  private assertUsable(): void {
    if (this.closed) throw new Error('the client is closed');
    if (this.halted) throw new RunHaltedError(this.halted.reason, this.halted.message);
    if (this.deadlineAt !== undefined && this.now() >= this.deadlineAt) {
      throw this.halt('deadline', `the run's deadline (${new Date(this.deadlineAt).toISOString()}) has passed; nothing more is sent`);
    }
  }

  private halt(reason: HaltReason, message: string): RunHaltedError {
    this.halted ??= new RunHaltedError(reason, message);
    this.halting.abort();
    return new RunHaltedError(reason, message);
  }

  private async wait(ms: number, reason: string): Promise<void> {
    const refusal = this.pacer.refuseWait(ms, reason, this.now());
    if (refusal !== undefined) throw this.halt(refusal.reason, refusal.message);
    if (ms <= 0) return;
    this.onWait?.(ms, reason);
    const started = this.now();
    await this.sleepUnlessHalted(ms);
    this.counters.waitedMs += this.halted === undefined ? ms : Math.max(0, Math.min(ms, this.now() - started));
    if (this.halted !== undefined) throw new RunHaltedError(this.halted.reason, this.halted.message);
  }

  /** Sleeps `ms`, or less when the client halts meanwhile. */
  private async sleepUnlessHalted(ms: number): Promise<void> {
    const { signal } = this.halting;
    if (signal.aborted) return;
    let wake = (): void => undefined;
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
      signal.addEventListener('abort', wake, { once: true });
    });
    try {
      await Promise.race([this.sleep(ms), woken]);
    } finally {
      signal.removeEventListener('abort', wake);
    }
  }

  private async dispatch(p: PreparedRequest, retryOf: number | undefined): Promise<Exchange> {
    this.assertUsable();
    // Checked again right before sending: concurrent sends may have passed the first check.
    if (this.counters.requests >= this.maxRequests) throw new BudgetExhaustedError(this.maxRequests);
    this.counters.requests++;
    const keyed = p.mode === 'key';
    if (keyed) {
      this.counters.keyedRequests++;
      this.inFlightKeyed++;
    }
    const seq = ++this.seq;
    // Both clocks read together, before anything else runs: receivedAt (sentAt + elapsedMs) must never
    // come out earlier than the answer really arrived, or requests in flight together (a burst) would
    // be judged as one after the other (a GC pause or a slow progress write here once made a
    // conforming server's Remaining appear to rise).
    const started = performance.now();
    const sentAt = this.now();
    this.onSend?.(this.counters.requests);
    const outcome = await this.transport.send(p);
    if (keyed) this.inFlightKeyed--;
    const elapsedMs = Math.round((performance.now() - started) * 1000) / 1000;
    const exchange = this.recorder.toExchange(p, outcome, { seq, sentAt, elapsedMs, retryOf });

    this.record(keptExchange(exchange));
    this.observe(exchange);
    // State is updated before the callback so a throwing check cannot leave a 429 unremembered.
    this.onExchange?.(exchange);

    if (outcome.failure?.kind === 'stopped' && this.halted !== undefined) {
      // Not the target's failure: the run cut the request off after the stop's grace.
      throw new RunHaltedError(this.halted.reason, this.halted.message);
    }
    if (outcome.failure !== undefined) {
      const message = `${p.method} ${exchange.request.target}: ${exchange.error?.message ?? outcome.failure.kind}`;
      if (this.consecutiveTransportFailures >= MAX_CONSECUTIVE_TRANSPORT_FAILURES) {
        this.halt('transport', `${this.consecutiveTransportFailures} transport failures in a row, the last: ${message}`);
      }
      throw new TransportError(outcome.failure.kind, exchange, message);
    }
    return exchange;
  }

  private record(exchange: Exchange): void {
    // Concurrent sends may complete out of order; the record stays in seq order.
    let i = this.recorded.length;
    while (i > 0 && (this.recorded[i - 1]?.seq ?? 0) > exchange.seq) i--;
    this.recorded.splice(i, 0, exchange);
  }

  private observe(exchange: Exchange): void {
    const res = exchange.response;
    if (res === undefined) {
      this.consecutiveTransportFailures++;
      return;
    }
    this.consecutiveTransportFailures = 0;
    this.pacer.observe(exchange.seq, readExchange(exchange), this.now(), this.seq);
  }
}
