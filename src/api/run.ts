/**
 * One conformance run: resolve the target (the embedded reference server when no base URL is
 * given), check it is reachable, run suites/all.conformance.ts through vitest's Node API in a
 * single worker (one client, one rate-limit account for every suite), then build the report.
 * Resolves to the report whatever the target did; throws only ConformanceUsageError for bad
 * options. Writes nothing to the console and leaves the process as it found it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { startVitest, type Vitest } from 'vitest/node';
import { suiteOptions, VITE_OPTIONS } from './suite-options.js';
import { loadCatalog } from '../catalog.js';
import type { RunConfig } from '../run-config.js';
import { isPlanName, planLimits } from '../plans.js';
import { buildReport, type RunInfo, type TestOutcome } from '../report/build.js';
import type { LoggedExchange, Report } from '../report/types.js';
import { ComplianceReporter, type ProgressListener } from '../../reporters/compliance.js';
import { pacedWindowLimiter, referenceBehaviour, startReferenceServer } from '../../fixtures/reference-server/index.js';
import { checkReachable, UnreachableError } from './preflight.js';
import { toolInfo } from '../tool-info.js';
import { resolveOptions, type ConformanceOptions, type ResolvedOptions } from './options.js';
import { haltedReport, stoppedReport } from './halt.js';
import type { TargetAccess } from '../report/types.js';
import { certificateOf } from './client-identity.js';
import { STOP_GRACE_MS, STOP_SETTLE_MS, stopOf, type RunStop } from './stop.js';
import { openStopChannel } from '../session/stop-channel.js';
import { EMBEDDED_CUSTOM_QUOTA, EMBEDDED_WINDOW_SECONDS } from './embedded-server.js';

/**
 * The client's margin on rate-limit waits against the embedded server: the default 250 ms allows
 * for another machine's clock and for a server that rounds Reset or Retry-After down; the embedded
 * server reads this process's clock and rounds both up (fixtures/reference-server/rate-limit.ts),
 * so the margin only has to cover timers that fire a few ms early and a busy event loop. The
 * burst's 429 still gets its real retry, at Retry-After + this margin (RATE-006).
 */
const EMBEDDED_WAIT_MARGIN_MS = 100;
const MAX_BODY_BYTES = 1024 * 1024;
const PREFLIGHT_HALTS: ReadonlySet<string> = new Set(['bad-key', 'wrong-base-url']);

export function keyFingerprint(key: string): string {
  return `sha256:${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
}

interface Target {
  baseUrl: string;
  apiKey: string;
  plan?: RunConfig['plan'];
  embedded: boolean;
  close(): Promise<void>;
}

function reachable(baseUrl: string, options: ResolvedOptions): Promise<void> {
  const identity = options.clientIdentity;
  return checkReachable(baseUrl, { timeoutMs: options.timeoutMs, ca: options.ca, proxy: options.proxy.route, clientCertificate: identity === undefined ? undefined : certificateOf(identity) });
}

async function resolveTarget(options: ResolvedOptions): Promise<Target> {
  if (options.baseUrl === undefined) {
    const plan = options.plan;
    // A named plan's key is the reference server's own; a custom plan's key, and the key without
    // --plan, get their quota per window (the embedded window is a second, not a minute).
    const named = plan !== undefined && isPlanName(plan) ? plan : undefined;
    const limits = plan === undefined || named !== undefined ? undefined : planLimits(plan);
    const customQuota = named !== undefined ? undefined : limits === undefined ? EMBEDDED_CUSTOM_QUOTA : { perWindow: limits.perMinute, perDay: limits.perDay };
    const customKey = `psk_custom_${randomBytes(12).toString('hex')}`;
    const server = await startReferenceServer({
      windowSeconds: EMBEDDED_WINDOW_SECONDS,
      limiter: pacedWindowLimiter,
      ...(customQuota === undefined
        ? {}
        : { keys: { [customKey]: 'free' }, behaviour: { quota: (p, ctx) => (ctx.auth?.key === customKey ? customQuota : referenceBehaviour.quota(p, ctx)) } }),
    });
    // An explicit proxy serves the embedded server too: it must be able to reach it.
    if (options.proxy.route !== undefined) {
      try {
        await reachable(server.baseUrl, options);
      } catch (error) {
        await server.close();
        throw error;
      }
    }
    // Only an explicit --plan: defaulting to the embedded key's plan would judge RATE-004 on a claim the user never made.
    return { baseUrl: server.baseUrl, apiKey: named === undefined ? customKey : server.keys[named], ...(plan === undefined ? {} : { plan }), embedded: true, close: () => server.close() };
  }
  await reachable(options.baseUrl, options);
  return {
    baseUrl: options.baseUrl,
    apiKey: options.apiKey ?? '',
    ...(options.plan === undefined ? {} : { plan: options.plan }),
    embedded: false,
    close: async () => undefined,
  };
}

/** The target, or the stop when the signal aborts first: a remote reachability check may take the whole timeout. */
async function targetUnlessAborted(options: ResolvedOptions): Promise<Target | { stop: RunStop }> {
  const resolving = resolveTarget(options);
  const { signal } = options;
  if (signal === undefined) return resolving;
  let onAbort = (): void => undefined;
  const aborted = new Promise<{ stop: RunStop }>((resolve) => {
    onAbort = () => resolve({ stop: stopOf(signal) });
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const first = await Promise.race([resolving, aborted]);
    // What comes after the abort is not waited for, but an embedded server it started is closed.
    if ('stop' in first) resolving.then((late) => late.close(), () => undefined).catch(() => undefined);
    return first;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * vitest marks the exit code of the process that hosts it and sets TEST/VITEST/NODE_ENV: a
 * library must leave its caller's process as it was.
 */
async function keepingProcessState<T>(work: () => Promise<T>): Promise<T> {
  const exitCode = process.exitCode;
  const env = Object.fromEntries(['TEST', 'VITEST', 'NODE_ENV'].map((name) => [name, process.env[name]]));
  try {
    return await work();
  } finally {
    process.exitCode = exitCode;
    for (const [name, value] of Object.entries(env)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/**
 * vitest's logger, made as vitest starts, ends the process on SIGINT and SIGTERM: it would take the
 * caller's process down and the run's report with it (the CLI keeps both, src/cli/signals.ts). Until
 * `done` (vitest's onInit), every listener for them added is taken off as soon as it is on; no signal
 * can arrive in between, as signals are handled on the event loop.
 */
function keepingSignalHandlers(): { done(): void } {
  const watch = (event: string | symbol, listener: (...args: unknown[]) => void): void => {
    if (event === 'SIGINT' || event === 'SIGTERM') queueMicrotask(() => process.off(event, listener));
  };
  process.on('newListener', watch);
  return { done: () => process.off('newListener', watch) };
}

/**
 * Runs the suites. An abort stops the worker's client (src/session/stop-channel.ts): nothing new
 * is sent, the requests in flight get STOP_GRACE_MS, and the tests still to come end at once with
 * what the run saw. Only a run still going STOP_SETTLE_MS after that is cancelled outright
 * (vitest skips what is left; the worker's tests stop the client too, requirement-test.ts).
 * Resolves to the stop, when there was one.
 */
async function runSuites(config: RunConfig, reporter: ComplianceReporter, signal: AbortSignal | undefined): Promise<RunStop | undefined> {
  const channel = config.stopChannel === undefined ? undefined : openStopChannel(config.stopChannel);
  let vitest: Vitest | undefined;
  let cancelled = false;
  let stop: RunStop | undefined;
  let settle: NodeJS.Timeout | undefined;
  const cancel = (): void => {
    cancelled = true;
    void vitest?.cancelCurrentRun('keyboard-input');
  };
  const onAbort = (): void => {
    if (signal === undefined) return;
    stop = stopOf(signal);
    channel?.stop({ kind: 'stop', reason: stop.reason, message: stop.unjudged, graceMs: STOP_GRACE_MS });
    settle = setTimeout(cancel, STOP_GRACE_MS + STOP_SETTLE_MS);
  };
  const signals = keepingSignalHandlers();
  const grab = {
    onInit: (ctx: Vitest) => {
      signals.done();
      vitest = ctx;
      if (cancelled) cancel();
    },
  };
  if (signal?.aborted === true) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  try {
    // vitest's own logger would print to the caller's terminal; what matters reaches the reporter.
    const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
    const options = suiteOptions({ reporters: [grab, reporter], provide: { runConfig: config } });
    const started = await startVitest('test', [], options, VITE_OPTIONS, { stdout: silent, stderr: silent });
    await started.close();
  } finally {
    signals.done();
    signal?.removeEventListener('abort', onAbort);
    clearTimeout(settle);
    channel?.close();
  }
  return stop;
}

/** The caller's listener, plus the highest request count any progress event carried. */
function countingRequests(listener: ProgressListener): { listener: ProgressListener; requests(): number } {
  let requests = 0;
  return {
    listener: {
      onTestStart: (requirement, title) => listener.onTestStart?.(requirement, title),
      onTestEnd: (outcome) => listener.onTestEnd?.(outcome),
      onOutput: (text) => listener.onOutput?.(text),
      onProgress: (event) => {
        requests = Math.max(requests, event.requests);
        listener.onProgress?.(event);
      },
    },
    requests: () => requests,
  };
}

/** A function, not an inline test, so the compiler does not carry the first answer over an await. */
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/**
 * The outcomes of a stopped run. A test the stop cut short (it ended after the stop without a
 * verdict, or vitest's cancellation skipped or broke it) was not judged: it gets the stop's reason.
 * Pass, fail and a choice (not exercised) stand, whenever they were reached.
 */
function afterStop(outcomes: readonly TestOutcome[], stop: RunStop): TestOutcome[] {
  return outcomes.map((o) => {
    const brokenByCancel = o.internalError !== undefined && /aborted/i.test(o.internalError);
    const cutShort = o.status === 'inconclusive' && (o.cancelled === true || o.halt?.reason === stop.reason);
    if (!brokenByCancel && !cutShort) return o;
    const { internalError: _dropped, cancelled: _cancelled, ...rest } = o;
    return { ...rest, status: 'inconclusive', reason: stop.unjudged, stoppedBy: 'PC_HALTED' };
  });
}

/** What report.json says of the route to the target: names, never values or credentials. */
function accessOf(resolved: ResolvedOptions): TargetAccess | undefined {
  const { route, bypassedBy } = resolved.proxy;
  const identity = resolved.clientIdentity;
  const access: TargetAccess = {
    ...(route === undefined ? {} : { proxy: { url: route.url, from: 'variable' in route.source ? route.source.variable : route.source.option, credentials: route.authorization !== undefined } }),
    ...(bypassedBy === undefined ? {} : { noProxy: bypassedBy }),
    ...(resolved.gatewayHeaders.length === 0 ? {} : { headers: resolved.gatewayHeaders.map((h) => h.name) }),
    ...(identity === undefined ? {} : { clientCertificate: { subject: identity.subject, fingerprint256: identity.fingerprint256 } }),
  };
  return Object.keys(access).length === 0 ? undefined : access;
}

export async function runConformance(options: ConformanceOptions = {}): Promise<Report> {
  const resolved = resolveOptions(options);
  const access = accessOf(resolved);
  const catalog = loadCatalog();
  const startedAt = new Date();
  const started = performance.now();
  const runId = randomBytes(5).toString('hex');
  const info = (target: Pick<Target, 'baseUrl' | 'embedded' | 'apiKey' | 'plan'>, runErrors: string[]): RunInfo => ({
    tool: toolInfo(),
    target: {
      baseUrl: target.baseUrl,
      embedded: target.embedded,
      ...(target.apiKey === '' ? {} : { keyFingerprint: keyFingerprint(target.apiKey) }),
      ...(target.plan === undefined ? {} : { plan: target.plan }),
      ...(access === undefined ? {} : { access }),
    },
    seed: resolved.seed,
    runId,
    startedAt,
    durationMs: performance.now() - started,
    options: { readOnly: resolved.readOnly, maxRequests: resolved.maxRequests, timeoutMs: resolved.timeoutMs, only: resolved.only },
    keyMode: resolved.keyMode,
    runErrors,
  });
  // Concurrent sends complete out of order; the log is in send order.
  const withLog = (report: Report, exchanges: readonly LoggedExchange[]): Report =>
    resolved.exchangeLog === true ? { ...report, exchanges: [...exchanges].sort((a, b) => a.seq - b.seq) } : report;
  const notRun = (): Report => {
    const target = { baseUrl: resolved.baseUrl ?? 'embedded', embedded: resolved.baseUrl === undefined, apiKey: resolved.apiKey ?? '', ...(resolved.plan === undefined ? {} : { plan: resolved.plan }) };
    return withLog(buildReport(catalog, [], info(target, [])), []);
  };
  const { signal } = resolved;
  if (signal !== undefined && isAborted(signal)) return stoppedReport(notRun(), stopOf(signal), resolved.selected);

  let target: Target;
  try {
    const resolvedTarget = await targetUnlessAborted(resolved);
    if ('stop' in resolvedTarget) return stoppedReport(notRun(), resolvedTarget.stop, resolved.selected);
    target = resolvedTarget;
  } catch (error) {
    if (error instanceof UnreachableError) return haltedReport(notRun(), { reason: 'unreachable', message: error.message }, resolved.selected);
    throw error;
  }
  const config: RunConfig = {
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    seed: resolved.seed,
    runId,
    readOnly: resolved.readOnly,
    maxRequests: resolved.maxRequests,
    timeoutMs: resolved.timeoutMs,
    maxBodyBytes: MAX_BODY_BYTES,
    maxWaitMs: resolved.maxWaitMs,
    ...(resolved.deadlineMs === undefined ? {} : { deadlineAt: Date.now() + resolved.deadlineMs }),
    ...(target.plan === undefined ? {} : { plan: target.plan }),
    selected: resolved.selected,
    ...(resolved.replay === undefined ? {} : { replay: resolved.replay }),
    ...(resolved.ca === undefined ? {} : { ca: resolved.ca }),
    ...(resolved.exhaustDailyQuota === true ? { exhaustDailyQuota: true } : {}),
    ...(resolved.riskBreakingStore === true ? { riskBreakingStore: true } : {}),
    ...(resolved.exchangeLog === true ? { exchangeLog: true } : {}),
    keyMode: resolved.keyMode,
    ...(target.embedded ? { waitMarginMs: EMBEDDED_WAIT_MARGIN_MS } : {}),
    ...(resolved.gatewayHeaders.length === 0 ? {} : { gatewayHeaders: resolved.gatewayHeaders }),
    proxy: resolved.proxy,
    ...(resolved.clientIdentity === undefined ? {} : { clientCertificate: certificateOf(resolved.clientIdentity) }),
    ...(signal === undefined ? {} : { stopChannel: `petstore-conformance-stop-${runId}-${randomBytes(4).toString('hex')}` }),
  };
  const counted = countingRequests(resolved.progress ?? {});
  const reporter = new ComplianceReporter(counted.listener);
  let stop: RunStop | undefined;
  try {
    stop = await keepingProcessState(() => runSuites(config, reporter, signal));
  } finally {
    await target.close();
  }
  const built = buildReport(catalog, stop === undefined ? reporter.outcomes : afterStop(reporter.outcomes, stop), info(target, [...reporter.errors]));
  const timeline = reporter.timeline === undefined ? {} : { timeline: reporter.timeline };
  const report = withLog({ ...built, requests: Math.max(built.requests, counted.requests()), ...timeline }, reporter.exchanges);
  if (stop !== undefined) return stoppedReport(report, stop, resolved.selected);
  const halt = report.halted;
  if (halt !== undefined && PREFLIGHT_HALTS.has(halt.reason)) return haltedReport(report, halt, resolved.selected);
  return report;
}
