// Benchmarks of whole conformance runs, printed as two tables of medians: the figures issue 20 set
// targets for (each with its target and the previous release's figure, bench/previous.json), then
// the details of each run. Nothing is asserted: the targets are read off these figures, never
// checked by a timed test.
//
//   npm run bench                 embedded run x5, Free-plan run x5 (about a minute each), slow-target run x5
//   BENCH_RUNS=3 BENCH_FREE_RUNS=1 npm run bench   (the slow-target row follows BENCH_FREE_RUNS
//   unless BENCH_SLOW_RUNS is set)
//   BENCH_NPM_TEST=1 npm run bench                 also times `npm test` (minutes), once unless BENCH_NPM_TEST_RUNS is set
//
// Every process is timed from outside, start-up included: spawn to exit, wall clock, and its
// maximum resident set.
//
// Embedded: process start to exit of `petstore-conformance` against the embedded reference
// server; peak memory is the process's max RSS (worker threads included) from scripts/max-rss.mjs.
// Free plan: a reference server configured like a Free key with a real 60-second window
// (60/min, 1,000/day) and a realistic staging store of 150 pets; the CLI runs against it with
// --plan free.
// Slow target: a reference server that takes 80 ms per response with a 3-second window, where
// only a concurrent burst can use a window up (issue 12); --plan free.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReferenceServer } from '../dist/fixtures/reference-server/index.js';

const CLI = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
const MAX_RSS = fileURLToPath(new URL('../scripts/max-rss.mjs', import.meta.url));
/** The node flags of the CLI's `#!/usr/bin/env -S node ...` line. */
const CLI_NODE_FLAGS = readFileSync(CLI, 'utf8').split('\n', 1)[0].split(/\s+/).filter((word) => word.startsWith('--'));
const EMBEDDED_RUNS = Number(process.env.BENCH_RUNS ?? 5);
const FREE_RUNS = Number(process.env.BENCH_FREE_RUNS ?? 5);
const NPM_TEST_RUNS = process.env.BENCH_NPM_TEST === '1' ? Number(process.env.BENCH_NPM_TEST_RUNS ?? 1) : 0;
const PREVIOUS = JSON.parse(readFileSync(new URL('./previous.json', import.meta.url), 'utf8'));
const SLOW_RUNS = Number(process.env.BENCH_SLOW_RUNS ?? FREE_RUNS);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Runs the CLI under scripts/max-rss.mjs; returns wall ms, peak RSS in MB, exit code and the report. */
async function runCli(args, env = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'pc-bench-'));
  try {
    return await measure(dir, args, env);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function measure(dir, args, env) {
  const started = performance.now();
  const rssFile = join(dir, 'max-rss');
  const code = await new Promise((resolve, reject) => {
    // With the V8 flags of the CLI's first line, as when it is started as its bin.
    const child = spawn(process.execPath, [...CLI_NODE_FLAGS, MAX_RSS, rssFile, CLI, '--report-dir', dir, '--reporter', 'json', ...args], {
      env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    child.on('error', reject);
    child.on('close', resolve);
  });
  const wallMs = performance.now() - started;
  const rssKb = Number((await readFile(rssFile, 'utf8').catch(() => '')).trim());
  const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
  return { code, wallMs, peakMb: rssKb > 0 ? rssKb / 1024 : NaN, report };
}

const exercised = (report) => report.requirements.filter((r) => r.status === 'pass' || r.status === 'fail').length;

function row(cells) {
  return `| ${cells.join(' | ')} |`;
}

const embedded = [];
for (let i = 0; i < EMBEDDED_RUNS; i++) {
  const r = await runCli([]);
  if (r.code !== 0) console.error(`embedded run ${i + 1} exited ${r.code}`);
  embedded.push(r);
}

/** `count` CLI runs with --plan free, each against a fresh reference server started with `server`. */
async function runsAgainst(label, count, server) {
  const runs = [];
  for (let i = 0; i < count; i++) {
    const target = await startReferenceServer(server);
    try {
      const r = await runCli(['--base-url', target.baseUrl, '--plan', 'free'], { PETSTORE_API_KEY: target.keys.free });
      if (r.code !== 0) console.error(`${label} run ${i + 1} exited ${r.code}`);
      runs.push(r);
    } finally {
      await target.close();
    }
  }
  return runs;
}

const free = await runsAgainst('free-plan', FREE_RUNS, { windowSeconds: 60, pets: 150 });

/**
 * Requests RATE-005's burst spent, from its observation ("burst: N requests spent ..."); 0 when the
 * run's own requests used up the window and the next one was the request over the limit.
 */
function burstRequests(report) {
  if (report.observations.some((o) => o.requirement === 'RATE-005' && o.message.startsWith("the run's own requests used up the window"))) return 0;
  const note = report.observations.find((o) => o.requirement === 'RATE-005' && o.message.startsWith('burst: '));
  const match = note === undefined ? null : /^burst: (\d+) requests spent/.exec(note.message);
  return match === null ? NaN : Number(match[1]);
}

/** Each run's verdict (and RATE-005's status), as "verdict, RATE-005 status"; several values when runs differ. */
function verdicts(runs) {
  const seen = new Set(runs.map((r) => `${r.report.verdict}, RATE-005 ${r.report.requirements.find((q) => q.id === 'RATE-005')?.status}`));
  return [...seen].join(' / ');
}

const slow = await runsAgainst('slow-target', SLOW_RUNS, { windowSeconds: 3, behaviour: { delayMs: () => 80 } });

/** `npm test` from outside: wall seconds of each run (the build included, as the script runs it). */
async function timeNpmTest(count) {
  const walls = [];
  for (let i = 0; i < count; i++) {
    const logPath = join(tmpdir(), `petstore-conformance-bench-npm-test-${i + 1}.log`);
    const log = openSync(logPath, 'w');
    const started = performance.now();
    const code = await new Promise((resolve, reject) => {
      const child = spawn('npm', ['test'], { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: ['ignore', log, log] });
      child.on('error', reject);
      child.on('close', resolve);
    });
    // A failed self-test is a finding of its own: keep what it printed.
    if (code !== 0) console.error(`npm test run ${i + 1} exited ${code}; its output: ${logPath}`);
    walls.push((performance.now() - started) / 1000);
    closeSync(log);
  }
  return walls;
}

const npmTest = await timeNpmTest(NPM_TEST_RUNS);

/** Requests of a report split by credential (reports before requestsByKey count every request as keyed). */
const withKey = (r) => r.report.requestsByKey?.withKey ?? r.report.requests;
const withoutKey = (r) => r.report.requestsByKey?.withoutKey ?? 0;
const figure = (runs, of, digits = 0) => (runs.length === 0 ? 'not measured' : median(runs.map(of)).toFixed(digits));

console.log(`\nMachine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}`);
console.log(`Medians of ${EMBEDDED_RUNS} embedded runs, ${FREE_RUNS} Free-plan runs, ${SLOW_RUNS} slow-target runs and ${NPM_TEST_RUNS} npm test runs`);
console.log(`Previous release: ${PREVIOUS.release}\n`);
console.log(row(['figure', 'now', 'target', 'previous release']));
console.log(row(['---', '---:', '---:', '---:']));
for (const [name, now, target, previous] of [
  ['embedded full run, wall s', figure(embedded, (r) => r.wallMs / 1000, 2), '≤ 2.0', PREVIOUS.embeddedWallS.toFixed(1)],
  ['embedded full run, peak MiB', figure(embedded, (r) => r.peakMb), '≤ 150', String(PREVIOUS.embeddedPeakMiB)],
  ['`npm test`, wall s', figure(npmTest, (s) => s), '≤ 180', String(PREVIOUS.npmTestWallS)],
  ['slow target (80 ms, 3 s window), requests', figure(slow, (r) => r.report.requests), '≤ 130', String(PREVIOUS.slowTargetRequests)],
  ['Free key (60 s window), requests with the key', figure(free, withKey), '≤ 75', String(PREVIOUS.freeKeyRequestsWithKey)],
  ['Free key (60 s window), requests without a valid key', figure(free, withoutKey), '-', String(PREVIOUS.freeKeyRequestsWithoutKey)],
]) {
  console.log(row([name, now, target, previous]));
}

const total = (runs) => runs[0]?.report.requirements.length ?? 0;
console.log('');
console.log(row(['run', 'wall s', 'peak MiB', 'requests', 'burst requests', 'rate-limit wait s', 'requirements exercised', 'exercised per request', 'verdict']));
console.log(row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---']));
for (const [name, runs, memory] of [
  ['embedded reference server', embedded, true],
  ['Free plan, 60 s window', free, false],
  ['slow target (80 ms, 3 s window)', slow, false],
]) {
  if (runs.length === 0) continue;
  const requests = median(runs.map((r) => r.report.requests));
  const keyed = median(runs.map(withKey));
  const ex = median(runs.map((r) => exercised(r.report)));
  console.log(
    row([
      name,
      (median(runs.map((r) => r.wallMs)) / 1000).toFixed(2),
      memory ? median(runs.map((r) => r.peakMb)).toFixed(0) : '-',
      `${requests} (${keyed} with the key)`,
      String(median(runs.map((r) => burstRequests(r.report)))),
      (median(runs.map((r) => r.report.rateLimitWaitMs)) / 1000).toFixed(1),
      `${ex} / ${total(runs)}`,
      (ex / requests).toFixed(2),
      verdicts(runs),
    ]),
  );
}
