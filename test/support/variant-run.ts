/**
 * Runs the built CLI against one variant of the reference server, started in the test process,
 * the way a user would run it against their own server: --base-url, the key in
 * PETSTORE_API_KEY, --plan, a temporary --report-dir, and the json reporter.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReferenceServer, type Behaviour } from '../../fixtures/reference-server/index.js';
import type { Variant } from '../../fixtures/variants/index.js';
import type { Report } from '../../src/report/types.js';
import { runCli, type CliResult } from './cli.js';
import { reportSchemaErrors } from './report-schema.js';
import { limiter } from './limiter.js';

/** Short windows keep every burst to a fraction of a second. */
const DEFAULT_WINDOW_SECONDS = 1;
/** A fixed seed makes each variant's property runs the same on every test run. */
export const VARIANT_SEED = 20_240_601;

export interface VariantRun {
  cli: CliResult;
  report: Report | undefined;
  /** Why report.json could not be read, when it could not. */
  reportError?: string;
  schemaErrors: string[];
  /** Requirement ids whose status is 'fail', sorted. */
  failing: string[];
  /** Requests the server received. */
  requests: number;
}

/** CLI runs at once from one test file: each spends most of a core, and the machine has two. */
const MAX_PARALLEL_RUNS = 3;

const slot = limiter(MAX_PARALLEL_RUNS);

/**
 * Starts the variant's server, runs the CLI against it and reads report.json. `behaviour` adds
 * hooks on top of the variant's own (for tests that observe the server, e.g. counting POSTs).
 */
export function runVariant(variant: Variant, behaviour: Partial<Behaviour> = {}): Promise<VariantRun> {
  return slot(async () => {
    const server = await startReferenceServer({
      ...variant.server,
      windowSeconds: variant.server?.windowSeconds ?? DEFAULT_WINDOW_SECONDS,
      behaviour: { ...variant.server?.behaviour, ...behaviour },
    });
    const dir = await mkdtemp(join(tmpdir(), `pc-variant-${variant.name.replace(/[^a-z0-9-]/gi, '_')}-`));
    try {
      const plan = variant.plan ?? 'free';
      const cli = await runCli(
        ['--base-url', server.baseUrl, ...(variant.omitPlan === true ? [] : ['--plan', plan]), '--seed', String(VARIANT_SEED), '--report-dir', dir, '--reporter', 'json', ...(variant.args ?? [])],
        { PETSTORE_API_KEY: server.keys[plan] },
      );
      let report: Report | undefined;
      let reportError: string | undefined;
      try {
        report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report;
      } catch (error) {
        reportError = `no readable report.json (exit ${cli.code}): ${(error as Error).message}\n${cli.stderr}`;
      }
      return {
        cli,
        report,
        ...(reportError === undefined ? {} : { reportError }),
        schemaErrors: report === undefined ? [] : reportSchemaErrors(report),
        failing: (report?.requirements ?? []).filter((r) => r.status === 'fail').map((r) => r.id).sort(),
        requests: server.requests,
      };
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
}

/** One line per failing requirement with its first violations, for assertion messages. */
export function describeFailures(run: VariantRun, ids: readonly string[]): string {
  const lines: string[] = [];
  for (const r of run.report?.requirements ?? []) {
    if (!ids.includes(r.id)) continue;
    const messages = r.evidence.filter((e) => e.kind === 'violation').slice(0, 3).map((e) => e.message);
    lines.push(`${r.id} ${r.status}: ${messages.join(' | ') || r.reason || ''}`);
  }
  return lines.join('\n');
}
