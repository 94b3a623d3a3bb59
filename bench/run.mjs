// Benchmarks of a whole conformance run, printed as a table of medians. No thresholds: the
// targets (docs in README) are read off these figures, not asserted by the test suite.
//
//   npm run bench                 embedded run x5, Free-plan run x3, slow-target run x3
//   BENCH_RUNS=3 BENCH_FREE_RUNS=1 npm run bench   (the slow-target row follows BENCH_FREE_RUNS
//   unless BENCH_SLOW_RUNS is set)
//
// Embedded: process start to exit of `petstore-conformance` against the embedded reference
// server; peak memory is the process's max RSS (worker threads included) from scripts/max-rss.mjs.
// Free plan: a reference server configured like a Free key with a real 60-second window
// (60/min, 1,000/day) and a realistic staging store of 150 pets; the CLI runs against it with
// --plan free.
// Slow target: a reference server that takes 80 ms per response with a 3-second window, where
// only a concurrent burst can use a window up (issue 12); --plan free.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
const FREE_RUNS = Number(process.env.BENCH_FREE_RUNS ?? 3);
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

const total = (runs) => runs[0]?.report.requirements.length ?? 0;
console.log(`\nMachine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}`);
console.log(`Medians of ${EMBEDDED_RUNS} embedded runs, ${FREE_RUNS} Free-plan runs and ${SLOW_RUNS} slow-target runs\n`);
console.log(row(['run', 'wall s', 'peak MiB', 'requests', 'burst requests', 'rate-limit wait s', 'requirements exercised', 'exercised per request', 'verdict']));
console.log(row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---']));
for (const [name, runs, memory] of [
  ['embedded reference server', embedded, true],
  ['Free plan, 60 s window', free, false],
  ['slow target (80 ms, 3 s window)', slow, false],
]) {
  if (runs.length === 0) continue;
  const requests = median(runs.map((r) => r.report.requests));
  const ex = median(runs.map((r) => exercised(r.report)));
  console.log(
    row([
      name,
      (median(runs.map((r) => r.wallMs)) / 1000).toFixed(2),
      memory ? median(runs.map((r) => r.peakMb)).toFixed(0) : '-',
      String(requests),
      String(median(runs.map((r) => burstRequests(r.report)))),
      (median(runs.map((r) => r.report.rateLimitWaitMs)) / 1000).toFixed(1),
      `${ex} / ${total(runs)}`,
      (ex / requests).toFixed(2),
      verdicts(runs),
    ]),
  );
}
