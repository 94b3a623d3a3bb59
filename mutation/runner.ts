/**
 * A StrykerJS test runner plugin (`testRunner: 'conformance'`): each "test" is one whole
 * conformance run, the built CLI against the mutated reference server started in a process of its
 * own (serve.ts), judged by its report.json (judge.ts), never by its exit code alone.
 *
 * Tests: `embedded` (the server as the embedded run starts it) and the conforming variants of
 * config.ts's VARIANT_TESTS. The dry run runs each on the unmutated server and reports the
 * mutants each reached (Stryker's coverage counters, written by the server process): the embedded
 * run covers what it reaches; a variant covers the limiters' mutants it reaches (limiters.ts,
 * rate-limit.ts: the windows it is in the runs for), and elsewhere only what no test before it
 * reached. Stryker then runs a mutant with the tests that cover it, started in that order a few at
 * a time (first-decisive.ts), until one kills it, and marks the mutants none reaches NoCoverage.
 *
 * A test's name carries a digest of everything that decides its verdict but the mutated files
 * (the built suite, reporters, schemas, the variants, this runner's own configuration), so an
 * incremental run reuses a result only while the suite that produced it is unchanged: Stryker
 * retests a killed mutant whose killing test changed and a survivor that gained a test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { MutantResult } from '@stryker-mutator/api/core';
import type { Logger } from '@stryker-mutator/api/logging';
import type { Reporter } from '@stryker-mutator/api/report';
import { commonTokens, declareClassPlugin, PluginKind, tokens } from '@stryker-mutator/api/plugin';
import {
  DryRunStatus,
  MutantRunStatus,
  TestStatus,
  type DryRunResult,
  type MutantRunOptions,
  type MutantRunResult,
  type TestResult,
  type TestRunner,
  type TestRunnerCapabilities,
} from '@stryker-mutator/api/test-runner';
import type { Report } from '../src/report/types.js';
import {
  CPU_HEAVY_RUNS_AT_ONCE,
  CPU_HEAVY_TESTS,
  CPU_SLOT_SECONDS,
  DEADLINE_SECONDS,
  EMBEDDED_TEST,
  EXTRA_FLAGS,
  HANG_GRACE_SECONDS,
  LIMITERS_ONLY_TESTS,
  MUTATION_SEED,
  TESTS_AT_ONCE,
  VARIANT_TESTS,
  extraFlagsBeside,
} from './config.js';
import { takeSlot } from './cpu-slots.js';
import { firstDecisive } from './first-decisive.js';
import { isKill, judgeReport, type Detection } from './judge.js';
import type { TargetLine } from './serve.js';
import { targetLineProblem } from './target-line.js';

const ACTIVE_MUTANT_ENV = '__STRYKER_ACTIVE_MUTANT__';
const TESTS: readonly string[] = [EMBEDDED_TEST, ...VARIANT_TESTS];
/**
 * The embedded run's path depends a little on where its one-second windows fall (the burst at the
 * end or mid-run, a limit probe): a few mutants are reached by one run and not the next. Its
 * coverage is the union of this many runs, so that they are judged rather than left NoCoverage.
 */
const EMBEDDED_COVERAGE_RUNS = 3;
/** A server that has not printed its address by then is not starting. */
const SERVER_START_MS = 30_000;

/** What decides a test's verdict, besides the mutated files (paths relative to the sandbox). */
const SUITE_FILES = ['dist/src', 'dist/suites', 'dist/reporters', 'dist/schemas', 'dist/mutation/config.js', 'dist/mutation/judge.js', 'dist/mutation/runner.js', 'dist/mutation/serve.js', 'package-lock.json'];
const VARIANT_FILES = ['dist/fixtures/variants'];

type Outcome =
  | { kind: 'judged'; detection: Detection; summary: string; ms: number }
  | { kind: 'server-did-not-start'; message: string }
  | { kind: 'no-target'; message: string }
  | { kind: 'hang'; message: string }
  /** Stopped because another test of the mutant decided first. */
  | { kind: 'aborted' };

type Coverage = Record<string, number>;

/** What one test reached on the unmutated server (the union of its rounds), or why the reference did not pass it. */
type TestCoverage = { ids: Set<string>; ms: number } | { failure: string };

/**
 * The limiters' code (in the sandbox, instrumented): the embedded run reaches much of it with the
 * paced windows or with no window limit at all (the daily count), while the variants run its
 * other windows. Its mutants are judged by every test that reaches them, embedded first.
 */
const POLICY_LIMITER_FILE = 'dist/fixtures/reference-server/limiters.js';
const RATE_LIMIT_FILE = 'dist/fixtures/reference-server/rate-limit.js';
/** Where Stryker's workers share their CPU slots (cpu-slots.ts): the run's sandbox, fresh each run. */
const SLOTS_DIR = '.mutation-cpu-slots';

/** The ids of the mutants instrumented into `files` (Stryker's coverage and switch calls name them). */
async function mutantIdsIn(files: readonly string[]): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const file of files) {
    const code = await readFile(file, 'utf8').catch(() => '');
    for (const call of code.matchAll(/stry(?:Cov|MutAct)_9fa48\(([^)]*)\)/g)) {
      for (const id of (call[1] ?? '').matchAll(/"([^"]+)"/g)) ids.add(id[1] ?? '');
    }
  }
  return ids;
}

async function filesUnder(path: string): Promise<string[]> {
  const entries = await readdir(path, { withFileTypes: true, recursive: true }).catch(() => undefined);
  if (entries === undefined) return [path];
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name)).sort();
}

async function digestOf(paths: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const root of paths) {
    for (const file of await filesUnder(root)) {
      hash.update(file).update('\0');
      hash.update(await readFile(file).catch(() => Buffer.from('missing'))).update('\0');
    }
  }
  return hash.digest('hex').slice(0, 12);
}

/** The environment of our own processes: nothing of Stryker's or the user's (a proxy, a key) leaks in. */
function baseEnv(): NodeJS.ProcessEnv {
  const keep = ['PATH', 'TMPDIR', 'HOME'];
  return Object.fromEntries(keep.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]]])));
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

async function stop(child: ChildProcess, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited(child);
  clearTimeout(timer);
}

/** A function, not a property read: TypeScript would take a checked `aborted` for false ever after, across awaits. */
const aborted = (signal: AbortSignal | undefined): boolean => signal?.aborted === true;

/** Starts serve.js and reads its TargetLine, or says why it did not start. */
async function startServer(test: string, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; target: TargetLine } | { error: string; noTarget?: true }> {
  const child = spawn(process.execPath, ['dist/mutation/serve.js', test], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4_000)));
  const lines = createInterface({ input: child.stdout! });
  const first = new Promise<string | undefined>((resolve) => {
    lines.once('line', resolve);
    child.once('exit', () => resolve(undefined));
    setTimeout(() => resolve(undefined), SERVER_START_MS).unref();
  });
  const line = await first;
  if (line === undefined) {
    await stop(child, 'SIGKILL', 0);
    return { error: `the server did not start: ${stderr.trim().split('\n').slice(0, 3).join(' / ') || 'no output'}` };
  }
  const target = JSON.parse(line) as TargetLine;
  const wrong = targetLineProblem(target);
  if (wrong !== undefined) {
    await stop(child, 'SIGKILL', 0);
    return { error: wrong, noTarget: true };
  }
  return { child, target };
}

class ConformanceTestRunner implements TestRunner {
  static inject = tokens(commonTokens.logger);
  readonly #log: Logger;
  readonly #names = new Map<string, string>();

  constructor(logger: Logger) {
    this.#log = logger;
  }

  capabilities(): TestRunnerCapabilities {
    // Every run is a new server process and a new CLI process.
    return { reloadEnvironment: true };
  }

  async init(): Promise<void> {
    const suite = await digestOf(SUITE_FILES);
    const variants = await digestOf([...SUITE_FILES, ...VARIANT_FILES]);
    const flags = [`--seed ${MUTATION_SEED}`, `--deadline ${DEADLINE_SECONDS}`, ...EXTRA_FLAGS].join(' ');
    this.#names.set(EMBEDDED_TEST, `embedded run (${flags}; suite ${suite})`);
    for (const v of VARIANT_TESTS) this.#names.set(v, `variant ${v} (${flags}; suite ${variants})`);
  }

  #name(test: string): string {
    return this.#names.get(test) ?? test;
  }

  /** One conformance run of `test` with `mutant` active (none: the reference); `signal` stops it. */
  async #run(test: string, mutant: string | undefined, coverageFile?: string, signal?: AbortSignal): Promise<Outcome> {
    if (aborted(signal)) return { kind: 'aborted' };
    const release = CPU_HEAVY_TESTS.includes(test) ? await takeSlot(SLOTS_DIR, CPU_HEAVY_RUNS_AT_ONCE, signal) : async () => undefined;
    if (release === undefined) return { kind: 'aborted' };
    const waiting = setTimeout(() => void release(), CPU_SLOT_SECONDS * 1000);
    try {
      return await this.#runStarted(test, mutant, coverageFile, signal);
    } finally {
      clearTimeout(waiting);
      await release();
    }
  }

  /** #run once its CPU slot, when it needs one, is held. */
  async #runStarted(test: string, mutant: string | undefined, coverageFile: string | undefined, signal: AbortSignal | undefined): Promise<Outcome> {
    const serverEnv = { ...baseEnv(), ...(mutant === undefined ? {} : { [ACTIVE_MUTANT_ENV]: mutant }), ...(coverageFile === undefined ? {} : { MUTATION_COVERAGE_FILE: coverageFile }) };
    const started = await startServer(test, serverEnv);
    if ('error' in started) return started.noTarget === true ? { kind: 'no-target', message: started.error } : { kind: 'server-did-not-start', message: started.error };
    const dir = await mkdtemp(join(tmpdir(), 'pc-mutant-'));
    const startedAt = Date.now();
    let onAbort: (() => void) | undefined;
    try {
      if (aborted(signal)) return { kind: 'aborted' };
      const args = ['dist/src/cli/main.js', '--base-url', started.target.baseUrl, '--seed', String(MUTATION_SEED), '--deadline', String(DEADLINE_SECONDS), '--report-dir', dir, '--reporter', 'json', ...started.target.args, ...extraFlagsBeside(started.target.args)];
      const cli = spawn(process.execPath, args, { env: { ...baseEnv(), NO_COLOR: '1', PETSTORE_API_KEY: started.target.apiKey }, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      cli.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4_000)));
      let hung = false;
      const limit = setTimeout(() => {
        hung = true;
        cli.kill('SIGKILL');
      }, (DEADLINE_SECONDS + HANG_GRACE_SECONDS) * 1000);
      onAbort = () => cli.kill('SIGKILL');
      signal?.addEventListener('abort', onAbort, { once: true });
      await exited(cli);
      clearTimeout(limit);
      if (aborted(signal)) return { kind: 'aborted' };
      if (hung) return { kind: 'hang', message: `the run did not end within its deadline (${DEADLINE_SECONDS} s) + ${HANG_GRACE_SECONDS} s` };
      const text = await readFile(join(dir, 'report.json'), 'utf8').catch(() => undefined);
      if (text === undefined) {
        // The run could not judge at all: no report is no CONFORMS.
        return { kind: 'judged', detection: 'not-verified', summary: `no report.json (exit ${cli.exitCode}): ${stderr.trim().split('\n')[0] ?? ''}`, ms: Date.now() - startedAt };
      }
      const judgement = judgeReport(JSON.parse(text) as Report);
      return { kind: 'judged', ...judgement, ms: Date.now() - startedAt };
    } finally {
      if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
      await stop(started.child, 'SIGTERM', 5_000);
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** One test's coverage on the unmutated server (TestCoverage). */
  async #coverage(test: string, dir: string): Promise<TestCoverage> {
    const ids = new Set<string>();
    let ms = 0;
    for (let round = 0; round < (test === EMBEDDED_TEST ? EMBEDDED_COVERAGE_RUNS : 1); round++) {
      const file = join(dir, `${test}-${round}.json`);
      const outcome = await this.#run(test, undefined, file);
      if (outcome.kind !== 'judged' || isKill(outcome.detection)) {
        return { failure: outcome.kind === 'judged' ? outcome.summary : 'message' in outcome ? outcome.message : outcome.kind };
      }
      ms = Math.max(ms, outcome.ms);
      const counters = JSON.parse(await readFile(file, 'utf8')) as { static: Coverage; perTest: Record<string, Coverage> };
      for (const id of [...Object.keys(counters.static), ...Object.values(counters.perTest).flatMap((c) => Object.keys(c))]) ids.add(id);
    }
    return { ids, ms };
  }

  /**
   * Runs every test on the unmutated server, TESTS_AT_ONCE at a time, longest first (the variants
   * mostly wait on their windows: about the token bucket's minute instead of the three and a half
   * their runs take one after another; all ten at once slowed the token bucket's run past its
   * deadline), then assigns coverage in the tests' order.
   */
  async dryRun(): Promise<DryRunResult> {
    const dir = await mkdtemp(join(tmpdir(), 'pc-mutation-coverage-'));
    try {
      const tests: TestResult[] = [];
      const perTest: Record<string, Coverage> = {};
      const reached = new Set<string>();
      const policyLimiterMutants = await mutantIdsIn([POLICY_LIMITER_FILE]);
      const limiterMutants = new Set([...policyLimiterMutants, ...(await mutantIdsIn([RATE_LIMIT_FILE]))]);
      const coverages = new Map<string, TestCoverage>();
      // VARIANT_TESTS is in cost order; a failure ends the dry run, so nothing more need start.
      await firstDecisive([...VARIANT_TESTS].reverse().concat(EMBEDDED_TEST), TESTS_AT_ONCE, async (test) => {
        const coverage = await this.#coverage(test, dir);
        coverages.set(test, coverage);
        return coverage;
      }, (coverage) => 'failure' in coverage);
      for (const test of TESTS) {
        const coverage = coverages.get(test) ?? { failure: 'not run: another test failed first' };
        const base = { id: test, name: this.#name(test), timeSpentMs: 'ms' in coverage ? coverage.ms : 0 };
        if ('failure' in coverage) {
          // The reference must conform in every test: otherwise no mutant's verdict means anything.
          tests.push({ ...base, status: TestStatus.Failed, failureMessage: `the unmutated server does not pass: ${coverage.failure}` });
          continue;
        }
        tests.push({ ...base, status: TestStatus.Success });
        // A test judges the limiters' mutants it reaches (a test that reaches rate-limit.ts only
        // through a policy limiter's day count, as the embedded run does, only those of
        // limiters.ts), and elsewhere only what no test before it reached.
        const judged = LIMITERS_ONLY_TESTS.includes(test) ? policyLimiterMutants : limiterMutants;
        const own = [...coverage.ids].filter((id) => !reached.has(id) || judged.has(id));
        perTest[test] = Object.fromEntries(own.map((id) => [id, 1]));
        for (const id of coverage.ids) reached.add(id);
        this.#log.info(`${test}: conforms (${coverage.ms} ms); covers ${own.length} mutants`);
      }
      return { status: DryRunStatus.Complete, tests, mutantCoverage: { static: {}, perTest } };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * A NOT VERIFIED without any failure can come from the machine rather than the mutant (a busy
   * machine's stalls): it kills only when a second run says it again.
   */
  async #confirmedRun(test: string, mutant: string, signal: AbortSignal, heard: Heard[]): Promise<Outcome> {
    const first = await this.#run(test, mutant, undefined, signal);
    heard.push({ test, outcome: first });
    if (first.kind !== 'judged' || first.detection !== 'not-verified') return first;
    const second = await this.#run(test, mutant, undefined, signal);
    heard.push({ test: `${test} (again)`, outcome: second });
    return second.kind === 'judged' && second.detection === 'none' ? second : first;
  }

  /** The mutant's covering tests, TESTS_AT_ONCE at a time in cost order, until one decides (first-decisive.ts). */
  async mutantRun(options: MutantRunOptions): Promise<MutantRunResult> {
    const selected = TESTS.filter((t) => options.testFilter === undefined || options.testFilter.includes(t));
    const heard: Heard[] = [];
    const { decided, started } = await firstDecisive(selected, TESTS_AT_ONCE, (test, signal) => this.#confirmedRun(test, options.activeMutant.id, signal, heard), decides);
    if (decided === undefined) {
      // A survivor should have passed every test that reaches it: one whose runs said anything
      // else (NOT VERIFIED once, a run aborted) is logged, so that a full run shows why it lived.
      if (heard.length !== selected.length || heard.some(({ outcome }) => outcome.kind !== 'judged' || outcome.detection !== 'none')) {
        this.#log.warn(`mutant ${options.activeMutant.id} survived after: ${heard.map(heardLine).join(' | ')}`);
      }
      return { status: MutantRunStatus.Survived, nrOfTests: selected.length };
    }
    const { item: test, result: outcome } = decided;
    if (outcome.kind === 'hang') return { status: MutantRunStatus.Timeout, reason: `${test}: ${outcome.message}` };
    // No run could be made: the mutant is an error, neither killed nor survived (Stryker leaves it out of the score).
    if (outcome.kind === 'no-target') return { status: MutantRunStatus.Error, errorMessage: `${test}: ${outcome.message}` };
    // A target that cannot be reached is NOT VERIFIED for the suite (exit 2, 'unreachable').
    const failureMessage = outcome.kind === 'server-did-not-start' ? `[server-did-not-start] ${outcome.message}` : outcome.kind === 'judged' ? `[${outcome.detection}] ${outcome.summary}` : '[aborted]';
    return { status: MutantRunStatus.Killed, killedBy: [test], failureMessage, nrOfTests: started };
  }
}

/** Each mutant's result as it is known (reports/mutation/mutants.jsonl): a long run can be triaged while it goes on. */
export const PROGRESS_FILE = 'reports/mutation/mutants.jsonl';

class ProgressReporter implements Reporter {
  static inject = tokens();

  onMutationTestingPlanReady(): void {
    mkdirSync('reports/mutation', { recursive: true });
    writeFileSync(PROGRESS_FILE, '');
  }

  onMutantTested(result: Readonly<MutantResult>): void {
    const { fileName, location, mutatorName, replacement, status, statusReason } = result;
    appendFileSync(PROGRESS_FILE, `${JSON.stringify({ fileName, location, mutatorName, replacement, status, statusReason })}\n`);
  }
}

/** One run of a mutant's test and what it said. */
interface Heard {
  test: string;
  outcome: Outcome;
}

function heardLine({ test, outcome }: Heard): string {
  if (outcome.kind !== 'judged') return `${test}: ${'message' in outcome ? `${outcome.kind}: ${outcome.message}` : outcome.kind}`;
  return `${test}: [${outcome.detection}] ${Math.round(outcome.ms / 1000)} s: ${outcome.summary.slice(0, 300)}`;
}

/** What ends a mutant's runs: a kill, a hang, or no run possible. */
const decides = (outcome: Outcome): boolean => (outcome.kind === 'judged' ? isKill(outcome.detection) : outcome.kind !== 'aborted');

export const strykerPlugins = [
  declareClassPlugin(PluginKind.TestRunner, 'conformance', ConformanceTestRunner),
  declareClassPlugin(PluginKind.Reporter, 'conformance-progress', ProgressReporter),
];
