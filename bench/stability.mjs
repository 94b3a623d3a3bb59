// Stability benchmark: same server, same verdict. Runs the whole suite with several seeds against
// every in-tree variant (fixtures/variants, built into dist/) and prints, per variant, whether the
// set of failed requirements, and the set of inconclusive ones, was identical in every run; then
// the share of variants whose failing set never changed (the figure issue 11 asks to be 100 %).
//
//   npm run bench:stability                      every variant x 10 seeds
//   BENCH_SEEDS=3 BENCH_VARIANTS='^(ids-above-2\^53|category-id-as-double)$' npm run bench:stability
//   BENCH_JSON=1 ...                             one JSON document on stdout instead of the table
//
// Runs go two at a time at most (the machine's two cores are shared). Seeds are fixed and distinct,
// so two runs of the benchmark send the same requests.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReferenceServer } from '../dist/fixtures/reference-server/index.js';
import { VARIANTS, variantServerOptions } from '../dist/fixtures/variants/index.js';

const CLI = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
const SEED_COUNT = Number(process.env.BENCH_SEEDS ?? 10);
const PARALLEL = Math.min(2, Math.max(1, Number(process.env.BENCH_PARALLEL ?? 2)));
const PATTERN = new RegExp(process.env.BENCH_VARIANTS ?? '');
const AS_JSON = process.env.BENCH_JSON === '1';

const seeds = Array.from({ length: SEED_COUNT }, (_, i) => 1_000_003 * (i + 1));
const variants = VARIANTS.filter((v) => PATTERN.test(v.name));

/** A requirement's status and why, in a line: enough to read a seed-dependent verdict from a CI log. */
function said(requirement) {
  const violation = requirement.evidence?.find((e) => e.kind === 'violation')?.message;
  const why = requirement.status === 'fail' ? violation : requirement.reason;
  return why === undefined ? requirement.status : `${requirement.status}: ${String(why).slice(0, 300)}`;
}

/** For each requirement whose status was not the same in every run, what each seed's run said of it. */
function differences(runs) {
  const done = runs.filter((r) => r.error === undefined);
  const ids = [...new Set(done.flatMap((r) => Object.keys(r.said)))];
  const status = (run, id) => (run.said[id] ?? 'absent').split(':')[0];
  return Object.fromEntries(
    ids.filter((id) => new Set(done.map((r) => status(r, id))).size > 1).map((id) => [id, done.map((r) => `seed ${r.seed}: ${r.said[id] ?? 'absent'}`)]),
  );
}

/** One CLI run against a fresh server of the variant; the sorted ids per status, or why there is no report. */
async function runOnce(variant, seed) {
  const server = await startReferenceServer(variantServerOptions(variant));
  const dir = await mkdtemp(join(tmpdir(), 'pc-stability-'));
  try {
    const plan = variant.plan ?? 'free';
    const args = ['--base-url', server.baseUrl, '--plan', plan, '--seed', String(seed), '--report-dir', dir, '--reporter', 'json', ...(variant.args ?? [])];
    const code = await new Promise((resolve, reject) => {
      const child = spawn(CLI, args, { env: { PATH: process.env.PATH, NO_COLOR: '1', PETSTORE_API_KEY: server.keys[plan] }, stdio: 'ignore' });
      child.on('error', reject);
      child.on('close', resolve);
    });
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
    const ids = (status) => report.requirements.filter((r) => r.status === status).map((r) => r.id).sort().join(' ');
    return { seed, code, failing: ids('fail'), inconclusive: ids('inconclusive'), said: Object.fromEntries(report.requirements.map((r) => [r.id, said(r)])) };
  } catch (error) {
    return { seed, error: error.message };
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
      results[i] = await jobs[i]();
      done(i, results);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return results;
}

const distinct = (runs, key) => [...new Set(runs.map((r) => r.error === undefined ? r[key] : `error: ${r.error}`))];

/** A line on stderr as each variant's runs complete, so a long benchmark shows where it is (and what it found so far). */
function progress(i, results) {
  const v = Math.floor(i / seeds.length);
  const runs = results.slice(v * seeds.length, (v + 1) * seeds.length);
  if (runs.filter((r) => r !== undefined).length !== seeds.length) return;
  const failing = distinct(runs, 'failing');
  process.stderr.write(`${variants[v].name}: failed set ${failing.length === 1 ? 'identical' : `CHANGED ${failing.map((s) => `[${s}]`).join(' / ')}`}\n`);
}

const started = performance.now();
const jobs = variants.flatMap((variant) => seeds.map((seed) => () => runOnce(variant, seed)));
const results = await runAll(jobs, progress);
const rows = variants.map((variant, v) => {
  const runs = results.slice(v * seeds.length, (v + 1) * seeds.length);
  const failing = distinct(runs, 'failing');
  const inconclusive = distinct(runs, 'inconclusive');
  return {
    name: variant.name,
    kind: variant.kind,
    runs: runs.length,
    failingStable: failing.length === 1 && !failing[0].startsWith('error:'),
    inconclusiveStable: inconclusive.length === 1 && !inconclusive[0].startsWith('error:'),
    failing,
    inconclusive,
    differences: differences(runs),
  };
});
const percent = (n) => (rows.length === 0 ? 0 : Math.round((1000 * n) / rows.length) / 10);
const summary = {
  variants: rows.length,
  seeds,
  failingStablePercent: percent(rows.filter((r) => r.failingStable).length),
  inconclusiveStablePercent: percent(rows.filter((r) => r.inconclusiveStable).length),
  wallSeconds: Math.round((performance.now() - started) / 100) / 10,
  rows,
};

if (AS_JSON) {
  process.stdout.write(`${JSON.stringify(summary)}\n`);
} else {
  const show = (sets) => sets.map((s) => `[${s}]`).join(' / ');
  console.log(`| variant | kind | failed set identical | failed set(s) | inconclusive set identical | inconclusive set(s) |`);
  console.log(`| --- | --- | --- | --- | --- | --- |`);
  for (const r of rows) {
    console.log(`| ${r.name} | ${r.kind} | ${r.failingStable ? 'yes' : 'NO'} | ${show(r.failing)} | ${r.inconclusiveStable ? 'yes' : 'NO'} | ${show(r.inconclusive)} |`);
  }
  for (const r of rows.filter((row) => Object.keys(row.differences).length > 0)) {
    console.log(`\n${r.name}: ${Object.entries(r.differences).map(([id, lines]) => `${id}\n  ${lines.join('\n  ')}`).join('\n')}`);
  }
  console.log(`\n${rows.length} variants x ${seeds.length} seeds in ${summary.wallSeconds} s (${PARALLEL} at a time)`);
  console.log(`failed sets identical in every run: ${summary.failingStablePercent} % of variants`);
  console.log(`inconclusive sets identical in every run: ${summary.inconclusiveStablePercent} % of variants`);
}
