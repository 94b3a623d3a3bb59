/**
 * `npm run mutate`: StrykerJS mutates the reference server (fixtures/reference-server/) and runs
 * the conformance suite against each mutant (runner.ts), incrementally (only what changed since the
 * committed mutation/stryker-incremental.json); then every mutant not killed is looked up in
 * mutation/triage.yaml, and the score, the class counts, the figures per file and the blind spots
 * found are printed. Exit 1 when a survivor is unexplained, a blind spot survives or the triage
 * file is malformed; 2 when Stryker itself failed. Never part of `npm test` or `.ci/run`.
 *
 * Flags: --force (retest every mutant), --concurrency N, --readme (write the figures into
 * the mutation-score block of docs/self-accuracy.md, where the README links for them), --triage-only (judge the last run's reports/mutation/
 * mutation.json again, without Stryker: after editing the triage), --partial (judge the mutants a
 * run still going has tested so far, reports/mutation/mutants.jsonl, on the working tree's sources).
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile, mkdir, stat } from 'node:fs/promises';
import { getPriority, setPriority } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { parse } from 'yaml';
import type ts from 'typescript';
import { loadCatalog } from '../src/catalog.js';
import { DEADLINE_SECONDS, MUTATION_SEED } from './config.js';
import { keyOf, parseSource, type Location } from './keys.js';
import { SCORE_PAGE, consoleSummary, readmeBlock, withReadmeBlock, type JudgedRun } from './report.js';
import { PROGRESS_FILE } from './runner.js';
import { figuresOf, triageProblems, unusedEntries, verdictOf, type StrykerStatus, type Triage } from './triage.js';

const MUTATED_DIR = 'fixtures/reference-server';
const TRIAGE_FILE = 'mutation/triage.yaml';
const JSON_REPORT = 'reports/mutation/mutation.json';
const INCREMENTAL_FILE = 'mutation/stryker-incremental.json';
/** Other engineers share the machine's two cores: a mutation run yields to them, as `nice -n 10` would. */
const NICENESS = 10;

interface Flags {
  force: boolean;
  concurrency?: number;
  readme: boolean;
  triageOnly: boolean;
  partial: boolean;
}

function parseFlags(argv: readonly string[]): Flags {
  const flags: Flags = { force: false, readme: false, triageOnly: false, partial: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--force') flags.force = true;
    else if (arg === '--readme') flags.readme = true;
    else if (arg === '--triage-only') flags.triageOnly = true;
    else if (arg === '--partial') flags.partial = flags.triageOnly = true;
    else if (arg === '--concurrency' && /^[1-9][0-9]*$/.test(argv[i + 1] ?? '')) flags.concurrency = Number(argv[++i]);
    else throw new UsageError(`unknown flag ${JSON.stringify(arg)}; expected --force, --concurrency N, --readme, --triage-only, --partial`);
  }
  return flags;
}

class UsageError extends Error {}

/** One mutant as Stryker's JSON report and its API both give it. */
interface ResultMutant {
  location: Location;
  mutatorName: string;
  replacement?: string;
  status: StrykerStatus;
  statusReason?: string;
}

interface JsonReport {
  files: Record<string, { source: string; mutants: ResultMutant[] }>;
}

function git(args: readonly string[]): string {
  try {
    return execFileSync('git', args, { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

/**
 * The commit measured, marked when the mutated files or the suite differ from it. The incremental
 * file is left out: every run rewrites it, so it would mark every run just finished.
 */
function commitOf(): string {
  const head = git(['rev-parse', '--short', 'HEAD']) || 'unknown';
  const paths = [MUTATED_DIR, 'src', 'suites', 'reporters', 'schemas', 'mutation', `:(exclude)${INCREMENTAL_FILE}`];
  const dirty = git(['status', '--porcelain', '--untracked-files=no', '--', ...paths]) !== '';
  return dirty ? `${head} + uncommitted changes` : head;
}

async function runStryker(flags: Flags): Promise<void> {
  if (getPriority() < NICENESS) setPriority(NICENESS);
  const { Stryker } = await import('@stryker-mutator/core');
  await new Stryker({
    configFile: 'mutation/stryker.config.mjs',
    ...(flags.force ? { force: true } : {}),
    ...(flags.concurrency === undefined ? {} : { concurrency: flags.concurrency }),
  }).runMutationTest();
}

/**
 * The mutants tested so far by a run still going, with the working tree's sources. Stryker names
 * each file by its absolute path in the checkout the run was started in, which may be another
 * worktree of the same commit (triaged from a branch while it runs in main): a mutated file is
 * known by its name within fixtures/reference-server/, wherever the run's checkout is.
 */
async function partialReport(): Promise<JsonReport> {
  const files: JsonReport['files'] = {};
  for (const line of (await readFile(PROGRESS_FILE, 'utf8')).split('\n')) {
    if (line.trim() === '') continue;
    const m = JSON.parse(line) as ResultMutant & { fileName: string };
    if (basename(dirname(m.fileName)) !== basename(MUTATED_DIR)) continue;
    const local = join(MUTATED_DIR, basename(m.fileName));
    files[local] ??= { source: await readFile(local, 'utf8'), mutants: [] };
    files[local]?.mutants.push(m);
  }
  return { files };
}

async function judge(wallSeconds: number | undefined, partial: boolean): Promise<{ run: JudgedRun; problems: string[]; stale: string[] }> {
  const report = partial ? await partialReport() : (JSON.parse(await readFile(JSON_REPORT, 'utf8')) as JsonReport);
  // The day the mutants were tested, not the day of judging: --triage-only often runs the next day.
  const testedOn = (await stat(partial ? PROGRESS_FILE : JSON_REPORT)).mtime;
  const triage = parse(await readFile(TRIAGE_FILE, 'utf8')) as Partial<Triage> | null;
  const entries: Triage = { survivors: triage?.survivors ?? [], blindSpots: triage?.blindSpots ?? [] };
  const catalog = loadCatalog();
  const problems = triageProblems(entries, new Set(catalog.requirements.map((r) => r.id)));
  const mutants: JudgedRun['mutants'][number][] = [];
  for (const [fileName, file] of Object.entries(report.files)) {
    const name = basename(fileName);
    if (relative(resolve(MUTATED_DIR), resolve(fileName)) !== name) continue;
    // The sources Stryker mutated, as its report holds them: the keys name what was measured.
    const source: ts.SourceFile = parseSource(name, file.source);
    for (const m of file.mutants) {
      const key = keyOf(name, source, { location: m.location, mutatorName: m.mutatorName, replacement: m.replacement ?? '' });
      const mutant = { key, line: m.location.start.line, status: m.status, ...(m.statusReason === undefined ? {} : { reason: m.statusReason }) };
      mutants.push({ mutant, verdict: verdictOf(mutant, entries) });
    }
  }
  const stale = unusedEntries(entries, mutants.map((m) => m.mutant.key)).map((e) => `${e.file} ${e.scope} ${e.mutator} ${e.original ?? '*'} -> ${e.replacement ?? '*'}`);
  const run: JudgedRun = {
    commit: commitOf(),
    date: testedOn.toISOString().slice(0, 10),
    seed: MUTATION_SEED,
    deadlineSeconds: DEADLINE_SECONDS,
    mutants,
    ...(wallSeconds === undefined ? {} : { wallSeconds }),
    ...(partial ? { partial } : {}),
  };
  return { run, problems, stale };
}

async function main(): Promise<number> {
  const flags = parseFlags(process.argv.slice(2));
  let wallSeconds: number | undefined;
  if (!flags.triageOnly) {
    const started = Date.now();
    try {
      await runStryker(flags);
    } catch (error) {
      process.stderr.write(`mutate: Stryker failed: ${error instanceof Error ? error.message : String(error)}\n`);
      return 2;
    }
    wallSeconds = (Date.now() - started) / 1000;
  }
  const { run, problems, stale } = await judge(wallSeconds, flags.partial);
  process.stdout.write(`\n${consoleSummary(run)}\n`);
  if (!flags.partial) for (const s of stale) process.stdout.write(`note: triage entry matches no mutant any more (remove it): ${s}\n`);
  for (const p of problems) process.stdout.write(`TRIAGE FILE: ${p}\n`);
  await mkdir('reports/mutation', { recursive: true });
  await writeFile('reports/mutation/summary.md', `${readmeBlock(run)}\n`);
  if (flags.readme) {
    const page = await readFile(SCORE_PAGE, 'utf8');
    const updated = withReadmeBlock(page, readmeBlock(run));
    if (updated === undefined) {
      process.stderr.write(`mutate: ${SCORE_PAGE} has no mutation-score block to write\n`);
      return 2;
    }
    await writeFile(SCORE_PAGE, updated);
  }
  const figures = figuresOf(run.mutants.map((m) => m.verdict));
  return figures.unexplained > 0 || problems.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`mutate: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  },
);
