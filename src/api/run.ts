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
import { haltedReport, type RunHalt } from './halt.js';
import type { TargetAccess } from '../report/types.js';
import { certificateOf } from './client-identity.js';

/**
 * Rate-limit window of the embedded server: a real minute would make `npm start` wait. It is the
 * shortest window: the embedded key's windows are stretched while the run sends slowly
 * (pacedWindowLimiter: to hold its `limit` requests at its pace 1.5 times over), so that on a
 * busy machine, where every request takes longer, RATE-005's burst still fills a window before it
 * ends and gets its 429, where a fixed 1-second window would end first.
 */
const EMBEDDED_WINDOW_SECONDS = 1;
/**
 * Without --plan, the embedded key has a quota of its own, as the spec's Enterprise plan does
 * ("custom"): a window of 100 holds every request the run sends before its burst (the property
 * runs are planned to fit it, src/session/budget-plan.ts), so the run's only wait is the
 * Retry-After of the burst's 429 (RATE-005/006), instead of also waiting out a window the run's
 * own requests used up (a Free key's 60). With --plan, the key is that plan's, with its limit.
 */
const EMBEDDED_CUSTOM_QUOTA = { perWindow: 100, perDay: 10_000 } as const;
/**
 * The client's margin on rate-limit waits against the embedded server: the default 250 ms allows
 * for another machine's clock and for a server that rounds Reset or Retry-After down; the embedded
 * server reads this process's clock and rounds both up (fixtures/reference-server/rate-limit.ts),
 * so the margin only has to cover timers that fire a few ms early and a busy event loop. The
 * burst's 429 still gets its real retry, at Retry-After + this margin (RATE-006).
 */
const EMBEDDED_WAIT_MARGIN_MS = 100;
const MAX_BODY_BYTES = 1024 * 1024;
export const ABORTED_MESSAGE = 'the run was aborted by its caller; nothing more was sent';
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

/** Runs the suites; an abort cancels vitest's run, and the worker's tests stop the client (requirement-test.ts). */
async function runSuites(config: RunConfig, reporter: ComplianceReporter, signal: AbortSignal | undefined): Promise<void> {
  let vitest: Vitest | undefined;
  const cancel = (): void => void vitest?.cancelCurrentRun('keyboard-input');
  const grab = { onInit: (ctx: Vitest) => { vitest = ctx; if (signal?.aborted === true) cancel(); } };
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    // vitest's own logger would print to the caller's terminal; what matters reaches the reporter.
    const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
    const options = suiteOptions({ reporters: [grab, reporter], provide: { runConfig: config } });
    const started = await startVitest('test', [], options, VITE_OPTIONS, { stdout: silent, stderr: silent });
    await started.close();
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
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

/** A test that vitest's cancellation cut short broke for the caller's reason, not for one of ours. */
function withoutAbortErrors(outcomes: readonly TestOutcome[]): TestOutcome[] {
  return outcomes.map((o) => {
    if (o.internalError === undefined || !/aborted/i.test(o.internalError)) return o;
    const { internalError: _dropped, ...rest } = o;
    return { ...rest, status: 'inconclusive', reason: ABORTED_MESSAGE };
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
  const stopped = (halt: RunHalt): Report => {
    const target = { baseUrl: resolved.baseUrl ?? 'embedded', embedded: resolved.baseUrl === undefined, apiKey: resolved.apiKey ?? '', ...(resolved.plan === undefined ? {} : { plan: resolved.plan }) };
    return haltedReport(withLog(buildReport(catalog, [], info(target, [])), []), halt, resolved.selected);
  };
  if (isAborted(resolved.signal)) return stopped({ reason: 'aborted', message: ABORTED_MESSAGE });

  let target: Target;
  try {
    target = await resolveTarget(resolved);
  } catch (error) {
    if (error instanceof UnreachableError) return stopped({ reason: 'unreachable', message: error.message });
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
    ...(resolved.exchangeLog === true ? { exchangeLog: true } : {}),
    keyMode: resolved.keyMode,
    ...(target.embedded ? { waitMarginMs: EMBEDDED_WAIT_MARGIN_MS } : {}),
    ...(resolved.gatewayHeaders.length === 0 ? {} : { gatewayHeaders: resolved.gatewayHeaders }),
    proxy: resolved.proxy,
    ...(resolved.clientIdentity === undefined ? {} : { clientCertificate: certificateOf(resolved.clientIdentity) }),
  };
  const counted = countingRequests(resolved.progress ?? {});
  const reporter = new ComplianceReporter(counted.listener);
  try {
    await keepingProcessState(() => runSuites(config, reporter, resolved.signal));
  } finally {
    await target.close();
  }
  const aborted = isAborted(resolved.signal);
  const built = buildReport(catalog, aborted ? withoutAbortErrors(reporter.outcomes) : reporter.outcomes, info(target, [...reporter.errors]));
  const report = withLog({ ...built, requests: Math.max(built.requests, counted.requests()) }, reporter.exchanges);
  if (aborted) return haltedReport(report, { reason: 'aborted', message: ABORTED_MESSAGE }, resolved.selected);
  const halt = report.halted;
  if (halt !== undefined && PREFLIGHT_HALTS.has(halt.reason)) return haltedReport(report, halt, resolved.selected);
  return report;
}
