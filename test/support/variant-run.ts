/**
 * Runs the CLI against one variant of the reference server, started in the test process, the way
 * a user would run it against their own server: --base-url, the key in PETSTORE_API_KEY, --plan,
 * a temporary --report-dir, and the json reporter. By default the built CLI in a process of its
 * own; `inProcess`, the same command line through the CLI's own parsing and run command
 * (src/cli/run-command.ts) in this process, which spares a Node start and the import of vitest's
 * Node API per run (about 0.3 s of CPU): the variants table's many runs use it, the other files'
 * runs keep the process, so the built CLI stays exercised end to end.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReferenceServer, type Behaviour } from '../../fixtures/reference-server/index.js';
import { VARIANTS, variantServerOptions, type Variant } from '../../fixtures/variants/index.js';
import type { Report } from '../../src/report/types.js';
import { cliEnv, runCli, type CliResult } from './cli.js';
import { parseCommandLine } from '../../src/cli/args.js';
import { failureLine, runCommand } from '../../src/cli/run-command.js';
import { reportSchemaErrors } from './report-schema.js';
import { limiter } from './limiter.js';

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
  /** With windowOffsetMs: how far into its window the server handled the run's first request. */
  startPhaseMs?: number;
}

/** CLI runs at once from one test file: each spends most of a core, and the machine has two. */
const MAX_PARALLEL_RUNS = 3;

const slot = limiter(MAX_PARALLEL_RUNS);

/**
 * The CLI's command line run in this process: what it prints and the code it would exit with.
 * One at a time per process (the library restores the process state it changes when it ends).
 */
async function runInProcess(args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: { isTTY: false, write: (text: string | Uint8Array) => ((stdout += String(text)), true) },
    stderr: { isTTY: false, columns: 0, write: (text: string | Uint8Array) => ((stderr += String(text)), true) },
    env,
  };
  let code: number;
  try {
    const command = parseCommandLine(args, env);
    if (command.command !== 'run') throw new Error(`not a conformance run: ${command.command}`);
    code = await runCommand(command, io);
  } catch (error) {
    io.stderr.write(failureLine(error));
    code = 2;
  }
  return { code, stdout, stderr };
}

const inProcessSlot = limiter(1);

/**
 * Starts the variant's server, runs the CLI against it and reads report.json. `behaviour` adds
 * hooks on top of the variant's own (for tests that observe the server, e.g. counting POSTs).
 */
export function runVariant(variant: Variant, behaviour: Partial<Behaviour> = {}, how: { inProcess?: boolean; windowOffsetMs?: number } = {}): Promise<VariantRun> {
  return (how.inProcess === true ? inProcessSlot : slot)(async () => {
    // windowOffsetMs: the server holds the run's first request until it falls that far into its window (startAtPhaseMs).
    const options = variantServerOptions(variant, { behaviour, ...(how.windowOffsetMs === undefined ? {} : { startAtPhaseMs: how.windowOffsetMs }) });
    const server = await startReferenceServer(options);
    const dir = await mkdtemp(join(tmpdir(), `pc-variant-${variant.name.replace(/[^a-z0-9-]/gi, '_')}-`));
    try {
      const plan = variant.plan ?? 'free';
      const args = ['--base-url', server.baseUrl, ...(variant.omitPlan === true ? [] : ['--plan', plan]), '--seed', String(VARIANT_SEED), '--report-dir', dir, '--reporter', 'json', ...(variant.args ?? [])];
      const env = { PETSTORE_API_KEY: server.keys[plan] };
      const cli = how.inProcess === true ? await runInProcess(args, { ...cliEnv(), ...env }) : await runCli(args, env);
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
        ...(server.startPhaseMs === undefined ? {} : { startPhaseMs: server.startPhaseMs }),
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

/** Every requirement the run failed or could not tell, with why: what an assertion on a verdict says when it fails. */
export function describeNotPassed(run: VariantRun): string {
  const ids = (run.report?.requirements ?? []).filter((r) => r.status === 'fail' || r.status === 'inconclusive').map((r) => r.id);
  return `verdict ${run.report?.verdict ?? 'none'}\n${describeFailures(run, ids)}`;
}

/** The variant of the table with that name. */
export function variantNamed(name: string): Variant {
  const found = VARIANTS.find((v) => v.name === name);
  if (found === undefined) throw new Error(`no variant ${name}`);
  return found;
}

/** A requirement's result in the run's report. */
export const requirementIn = (run: VariantRun, id: string): Report['requirements'][number] | undefined => run.report?.requirements.find((r) => r.id === id);

/** The messages of the run's observations about a requirement. */
export const observationsIn = (run: VariantRun, id: string): string[] => (run.report?.observations ?? []).filter((o) => o.requirement === id).map((o) => o.message);
