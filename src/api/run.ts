/**
 * One conformance run: resolve the target (the embedded reference server when no base URL is
 * given), check it is reachable, run suites/all.conformance.ts through vitest's Node API in a
 * single worker (one client, one rate-limit account for every suite), then build and write the
 * reports. Returns the report; main.ts decides the exit code.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { startVitest } from 'vitest/node';
import { suiteOptions, VITE_OPTIONS } from './suite-options.js';
import { loadCatalog, selectRequirements } from '../catalog.js';
import type { RunConfig } from '../run-config.js';
import { buildReport } from '../report/build.js';
import type { Report } from '../report/types.js';
import { ComplianceReporter, type ProgressListener } from '../../reporters/compliance.js';
import { startReferenceServer } from '../../fixtures/reference-server/index.js';
import { UsageError, type RunOptions } from '../cli/args.js';
import { checkReachable } from './preflight.js';
import { toolInfo } from '../tool-info.js';

/** Rate-limit window of the embedded server: a real minute would make `npm start` wait. */
const EMBEDDED_WINDOW_SECONDS = 1;
const MAX_BODY_BYTES = 1024 * 1024;

export function keyFingerprint(key: string): string {
  return `sha256:${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
}

async function readCa(file: string | undefined): Promise<string | undefined> {
  if (file === undefined) return undefined;
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read --ca file "${file}": ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

interface Target {
  baseUrl: string;
  apiKey: string;
  plan?: RunConfig['plan'];
  embedded: boolean;
  close(): Promise<void>;
}

async function resolveTarget(options: RunOptions, ca: string | undefined): Promise<Target> {
  if (options.baseUrl === undefined) {
    const server = await startReferenceServer({ windowSeconds: EMBEDDED_WINDOW_SECONDS });
    // The embedded key is a Free-plan key, so the plan check is exercised too.
    return { baseUrl: server.baseUrl, apiKey: server.keys.free, plan: options.plan ?? 'free', embedded: true, close: () => server.close() };
  }
  await checkReachable(options.baseUrl, { timeoutMs: options.timeoutMs, ...(ca === undefined ? {} : { ca }) });
  return {
    baseUrl: options.baseUrl,
    apiKey: options.apiKey ?? '',
    ...(options.plan === undefined ? {} : { plan: options.plan }),
    embedded: false,
    close: async () => undefined,
  };
}

export interface RunResult {
  report: Report;
}

export async function runConformance(
  options: RunOptions,
  listener: ProgressListener = {},
  replay?: RunConfig['replay'],
): Promise<RunResult> {
  const catalog = loadCatalog();
  let selected: string[];
  try {
    selected = options.only.length === 0 ? [] : [...selectRequirements(options.only)];
  } catch (error) {
    throw new UsageError(`--only: ${(error as Error).message}`);
  }
  const ca = await readCa(options.caFile);
  const target = await resolveTarget(options, ca);
  const startedAt = new Date();
  const started = performance.now();
  const runId = randomBytes(5).toString('hex');
  const config: RunConfig = {
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    seed: options.seed,
    runId,
    readOnly: options.readOnly,
    maxRequests: options.maxRequests,
    timeoutMs: options.timeoutMs,
    maxBodyBytes: MAX_BODY_BYTES,
    maxWaitMs: options.maxWaitMs,
    ...(options.deadlineMs === undefined ? {} : { deadlineAt: Date.now() + options.deadlineMs }),
    ...(target.plan === undefined ? {} : { plan: target.plan }),
    selected,
    ...(replay === undefined ? {} : { replay }),
    ...(ca === undefined ? {} : { ca }),
  };
  const reporter = new ComplianceReporter(listener);
  const runErrors: string[] = [];
  try {
    const vitest = await startVitest('test', [], suiteOptions({ reporters: [reporter], provide: { runConfig: config } }), VITE_OPTIONS);
    await vitest.close();
  } finally {
    await target.close();
  }
  runErrors.push(...reporter.errors);
  const report = buildReport(catalog, reporter.outcomes, {
    tool: toolInfo(),
    target: {
      baseUrl: target.baseUrl,
      embedded: target.embedded,
      keyFingerprint: keyFingerprint(target.apiKey),
      ...(target.plan === undefined ? {} : { plan: target.plan }),
    },
    seed: options.seed,
    runId,
    startedAt,
    durationMs: performance.now() - started,
    options: { readOnly: options.readOnly, maxRequests: options.maxRequests, timeoutMs: options.timeoutMs, only: options.only },
    runErrors,
  });
  return { report };
}
