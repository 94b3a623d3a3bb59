// Stability benchmark: same server, same verdict, whatever the seed and wherever the target's
// rate-limit window falls when the run starts. Runs the whole suite against every in-tree variant
// (fixtures/variants, built into dist/), each started at several phases of its window crossed with
// several seeds, and prints, per variant, the failed set of every offset x seed, then the number
// of variants whose failed set (or inconclusive set) was not one and the same in every run.
//
//   npm run bench:stability                      every variant x 4 offsets x 3 seeds
//   BENCH_OFFSETS=6 BENCH_SEEDS=2 BENCH_VARIANTS='^limits-per-operation$' npm run bench:stability
//   BENCH_JSON=1 ...                             one JSON document on stdout instead of the table
//
// The offsets are spread evenly over the variant's window (its windowSeconds: 0, W/n, 2W/n, ...)
// and placed deterministically: the reference server holds the run's first request until it falls
// that far into the limiter's window (ReferenceServerOptions.startAtPhaseMs), so the client's
// start-up, however long a busy machine makes it, does not move them. A limiter with no window of
// its own before the run (token bucket, sliding log, windows begun by the key's first request)
// has no phase: its offsets are the same run, made again. Runs go two at a time at most (the
// machine's two cores are shared). Seeds are fixed and distinct, so two runs of the benchmark send
// the same requests.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReferenceServer } from '../dist/fixtures/reference-server/index.js';
import { PHASE_DEPENDENT_VARIANTS, VARIANTS, phaseSeeds, variantServerOptions, windowMsOf, windowPhasesOf } from '../dist/fixtures/variants/index.js';

const CLI = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
const SEED_COUNT = Number(process.env.BENCH_SEEDS ?? 3);
const OFFSET_COUNT = Number(process.env.BENCH_OFFSETS ?? 4);
const PARALLEL = Math.min(2, Math.max(1, Number(process.env.BENCH_PARALLEL ?? 2)));
const PATTERN = new RegExp(process.env.BENCH_VARIANTS ?? '');
const AS_JSON = process.env.BENCH_JSON === '1';

const seeds = phaseSeeds(SEED_COUNT);
// The phase-dependent shapes too: this bench is where their failed sets are read.
const variants = [...VARIANTS, ...PHASE_DEPENDENT_VARIANTS].filter((v) => PATTERN.test(v.name));

/** OFFSET_COUNT phases spread evenly over the variant's window, in ms. */
const offsetsOf = (variant) => windowPhasesOf(variant, OFFSET_COUNT);

/** A requirement's status and why, in a line: enough to read an unstable verdict from a CI log. */
function said(requirement) {
  const violation = requirement.evidence?.find((e) => e.kind === 'violation')?.message;
  const why = requirement.status === 'fail' ? violation : requirement.reason;
  return why === undefined ? requirement.status : `${requirement.status}: ${String(why).slice(0, 300)}`;
}

const runName = (r) => `offset ${r.offsetMs} ms, seed ${r.seed}`;

/** For each requirement whose status was not the same in every run, what each run said of it. */
function differences(runs) {
  const done = runs.filter((r) => r.error === undefined);
  const ids = [...new Set(done.flatMap((r) => Object.keys(r.said)))];
  const status = (run, id) => (run.said[id] ?? 'absent').split(':')[0];
  return Object.fromEntries(
    ids.filter((id) => new Set(done.map((r) => status(r, id))).size > 1).map((id) => [id, done.map((r) => `${runName(r)}: ${r.said[id] ?? 'absent'}`)]),
  );
}

/** One CLI run against a fresh server of the variant, its first request held to `offsetMs` into the window. */
async function runOnce(variant, offsetMs, seed) {
  const server = await startReferenceServer({ ...variantServerOptions(variant), startAtPhaseMs: offsetMs });
  const dir = await mkdtemp(join(tmpdir(), 'pc-stability-'));
  try {
    const plan = variant.plan ?? 'free';
    const planArgs = variant.omitPlan === true ? [] : ['--plan', plan];
    const args = ['--base-url', server.baseUrl, ...planArgs, '--seed', String(seed), '--report-dir', dir, '--reporter', 'json', ...(variant.args ?? [])];
    const code = await new Promise((resolve, reject) => {
      const child = spawn(CLI, args, { env: { PATH: process.env.PATH, NO_COLOR: '1', PETSTORE_API_KEY: server.keys[plan] }, stdio: 'ignore' });
      child.on('error', reject);
      child.on('close', resolve);
    });
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
    const ids = (status) => report.requirements.filter((r) => r.status === status).map((r) => r.id).sort().join(' ');
    const phase = server.startPhaseMs === undefined ? {} : { startPhaseMs: Math.round(server.startPhaseMs) };
    return { offsetMs, seed, ...phase, code, failing: ids('fail'), inconclusive: ids('inconclusive'), said: Object.fromEntries(report.requirements.map((r) => [r.id, said(r)])) };
  } catch (error) {
    return { offsetMs, seed, error: error.message };
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs every job, at most PARALLEL at a time, keeping the results in job order; `done(i)` after each. */
async function runAll(jobs, done) {
  const results = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < jobs.length; i = next++) {
      results[i] = await jobs[i].run();
      done(i, results);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return results;
}

const setOf = (run, key) => (run.error === undefined ? run[key] : `error: ${run.error}`);
const distinct = (runs, key) => [...new Set(runs.map((r) => setOf(r, key)))];

/** One line: each distinct set named by a letter, then the letter of every offset x seed. */
function grid(runs, key) {
  const sets = distinct(runs, key);
  const letter = (run) => String.fromCharCode(65 + sets.indexOf(setOf(run, key)));
  const offsets = [...new Set(runs.map((r) => r.offsetMs))];
  const cells = offsets.map((o) => `${o} ms: ${runs.filter((r) => r.offsetMs === o).map(letter).join(' ')}`);
  return `${sets.map((s, i) => `${String.fromCharCode(65 + i)} = [${s}]`).join('; ')} | ${cells.join(' | ')}`;
}

const perVariant = OFFSET_COUNT * seeds.length;
const runsOf = (results, v) => results.slice(v * perVariant, (v + 1) * perVariant);

/** A line on stderr as each variant's runs complete, so a long benchmark shows where it is (and what it found so far). */
function progress(i, results) {
  const v = Math.floor(i / perVariant);
  const runs = runsOf(results, v);
  if (runs.filter((r) => r !== undefined).length !== perVariant) return;
  const failing = distinct(runs, 'failing');
  process.stderr.write(`${variants[v].name}: failed set ${failing.length === 1 ? 'identical' : `CHANGED ${failing.map((s) => `[${s}]`).join(' / ')}`}\n`);
}

const started = performance.now();
const jobs = variants.flatMap((variant) => offsetsOf(variant).flatMap((offsetMs) => seeds.map((seed) => ({ run: () => runOnce(variant, offsetMs, seed) }))));
const results = await runAll(jobs, progress);
const rows = variants.map((variant, v) => {
  const runs = runsOf(results, v);
  const failing = distinct(runs, 'failing');
  const inconclusive = distinct(runs, 'inconclusive');
  return {
    name: variant.name,
    kind: variant.kind,
    windowMs: windowMsOf(variant),
    runs: runs.length,
    failingStable: failing.length === 1 && !failing[0].startsWith('error:'),
    inconclusiveStable: inconclusive.length === 1 && !inconclusive[0].startsWith('error:'),
    failing,
    inconclusive,
    failingGrid: grid(runs, 'failing'),
    inconclusiveGrid: grid(runs, 'inconclusive'),
    startPhases: runs.map((r) => ({ offsetMs: r.offsetMs, seed: r.seed, startPhaseMs: r.startPhaseMs })),
    differences: differences(runs),
  };
});
const unstable = (key) => rows.filter((r) => !r[key]).length;
const summary = {
  variants: rows.length,
  seeds,
  offsets: OFFSET_COUNT,
  runs: results.length,
  failingUnstable: unstable('failingStable'),
  inconclusiveUnstable: unstable('inconclusiveStable'),
  wallSeconds: Math.round((performance.now() - started) / 100) / 10,
  rows,
};

if (AS_JSON) {
  process.stdout.write(`${JSON.stringify(summary)}\n`);
} else {
  console.log(`Failed sets at each offset x seed (seeds ${seeds.join(', ')}, in that order at each offset):\n`);
  for (const r of rows) console.log(`${r.failingStable ? '  ' : '! '}${r.name} (${r.kind}, ${r.windowMs / 1000} s window): ${r.failingGrid}`);
  const shaky = rows.filter((r) => !r.inconclusiveStable);
  if (shaky.length > 0) console.log(`\nInconclusive sets that changed:\n${shaky.map((r) => `  ${r.name}: ${r.inconclusiveGrid}`).join('\n')}`);
  for (const r of rows.filter((row) => Object.keys(row.differences).length > 0)) {
    console.log(`\n${r.name}: ${Object.entries(r.differences).map(([id, lines]) => `${id}\n  ${lines.join('\n  ')}`).join('\n')}`);
  }
  console.log(`\n${rows.length} variants x ${OFFSET_COUNT} offsets x ${seeds.length} seeds (${results.length} runs) in ${summary.wallSeconds} s (${PARALLEL} at a time)`);
  console.log(`variants with more than one failed set: ${summary.failingUnstable}`);
  console.log(`variants with more than one inconclusive set: ${summary.inconclusiveUnstable}`);
}
