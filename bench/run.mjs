// Benchmarks of whole conformance runs: the current tree beside the previous release, pair by pair
// in the same call, with each figure's ratio to the previous release next to the absolute
// figures. Machines of the same kind differ by up to 2x in speed, and one machine drifts while it
// runs: a ratio measured pair by pair means the same on every machine, an absolute figure only on
// the one it came from. Nothing is asserted: the targets are read off these figures, never checked
// by a timed test.
//
//   npm run bench                      embedded x5 pairs, Free plan x3 pairs (a minute each), slow target x5 pairs
//   BENCH_RUNS=3 BENCH_FREE_RUNS=1 BENCH_SLOW_RUNS=3 npm run bench
//   BENCH_ROWS=embedded npm run bench  only the embedded run (rows: embedded, html, free, slow)
//   BENCH_NPM_TEST=1 npm run bench     also `npm test` in both trees (minutes), one pair unless BENCH_NPM_TEST_RUNS is set
//   BENCH_PREVIOUS=<tag or commit>     the release to compare with (default: the newest tag, else bench/config.json's commit);
//                                      BENCH_PREVIOUS=none measures the current tree alone
//   BENCH_FRESH=1                      clone, install and build the previous release again (bench/lib/previous-release.mjs)
//
// A pair is one run of each tree, the two in turn (now then previous, then previous then now, ...),
// so that a change of the machine's speed falls on both. Every process is timed from outside,
// start-up included: spawn to exit on the wall clock, its CPU time and its peak resident memory
// (scripts/resource-usage.mjs of this tree wraps both trees' CLIs; worker threads included).
// `npm test`'s CPU time is its whole process tree's (Linux only, bench/lib/process.mjs).
//
// Embedded: each tree's CLI against its own embedded reference server, writing report.json
// (html: report.json and report.html, whose timeline loads a charting library). Free plan: a reference
// server (this tree's, for both) configured like a Free key with a real 60-second window (60/min,
// 1,000/day) and a staging store of 150 pets, --plan free. Slow target: a reference server that
// takes 80 ms per response with a 3-second window, where only a concurrent burst can use a window
// up (issue 12); --plan free.
import { closeSync, openSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReferenceServer } from '../dist/fixtures/reference-server/index.js';
import { cliOf, conformanceRun } from './lib/conformance-run.mjs';
import { median, timed } from './lib/process.mjs';
import { currentTree, preparePrevious, previousRelease } from './lib/previous-release.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROWS = new Set((process.env.BENCH_ROWS ?? 'embedded,html,free,slow').split(','));
const count = (name, fallback) => Number(process.env[name] ?? fallback);
const EMBEDDED_PAIRS = ROWS.has('embedded') ? count('BENCH_RUNS', 5) : 0;
const HTML_PAIRS = ROWS.has('html') ? count('BENCH_RUNS', 5) : 0;
const FREE_PAIRS = ROWS.has('free') ? count('BENCH_FREE_RUNS', 3) : 0;
const SLOW_PAIRS = ROWS.has('slow') ? count('BENCH_SLOW_RUNS', 5) : 0;
const NPM_TEST_PAIRS = process.env.BENCH_NPM_TEST === '1' ? count('BENCH_NPM_TEST_RUNS', 1) : 0;

const say = (line) => console.error(line);
const started = new Date();
const loadAtStart = loadavg();

const current = currentTree(ROOT);
const NOW = { name: 'now', root: ROOT, cli: cliOf(ROOT), label: `${current.sha.slice(0, 7)}${current.dirty ? ' with changes not committed' : ''}` };
let PREVIOUS;
if (process.env.BENCH_PREVIOUS !== 'none') {
  const { ref, why } = previousRelease(ROOT);
  const prepared = await preparePrevious(ROOT, ref, say);
  PREVIOUS = { name: 'previous', root: prepared.dir, cli: cliOf(prepared.dir), label: `${ref} (${prepared.sha.slice(0, 7)}, ${why}), built in ${prepared.dir}${prepared.reused ? ' (kept from an earlier call)' : ''}` };
}

/** `pairs` runs of each tree, in turn, alternating which goes first; the runs by tree, in pair order. */
async function inPairs(label, pairs, measure) {
  const runs = { now: [], previous: [] };
  for (let i = 0; i < pairs; i++) {
    const order = PREVIOUS === undefined ? [NOW] : i % 2 === 0 ? [NOW, PREVIOUS] : [PREVIOUS, NOW];
    for (const tree of order) {
      const run = await measure(tree);
      if (run.code !== 0) say(`${label}, ${tree.name} (pair ${i + 1}): exit ${run.code}${run.log === undefined ? '' : `; output: ${run.log}`}`);
      runs[tree.name].push(run);
    }
  }
  return runs;
}

/** A reference server of this tree for each run, so both trees meet the same target. */
const against = (server) => async (tree) => {
  const target = await startReferenceServer(server);
  try {
    return await conformanceRun(tree.cli, ['--base-url', target.baseUrl, '--plan', 'free'], { PETSTORE_API_KEY: target.keys.free });
  } finally {
    await target.close();
  }
};

/** `npm test` in a tree (its build included, as the script runs it), output in a log kept when it fails. */
async function npmTest(tree) {
  const log = join(tmpdir(), `petstore-conformance-bench-npm-test-${tree.name}.log`);
  const fd = openSync(log, 'w');
  try {
    const ran = await timed('npm', ['test'], { cwd: tree.root, stdio: ['ignore', fd, fd] });
    return { ...ran, log };
  } finally {
    closeSync(fd);
  }
}

const embedded = await inPairs('embedded run', EMBEDDED_PAIRS, (tree) => conformanceRun(tree.cli, []));
const html = await inPairs('embedded run with report.html', HTML_PAIRS, (tree) => conformanceRun(tree.cli, [], {}, 'json,html'));
const free = await inPairs('Free-plan run', FREE_PAIRS, against({ windowSeconds: 60, pets: 150 }));
const slow = await inPairs('slow-target run', SLOW_PAIRS, against({ windowSeconds: 3, behaviour: { delayMs: () => 80 } }));
const npm = await inPairs('npm test', NPM_TEST_PAIRS, npmTest);

/** Requests of a report split by credential (reports before requestsByKey count every request as keyed). */
const withKey = (r) => r.report?.requestsByKey?.withKey ?? r.report?.requests ?? NaN;
const withoutKey = (r) => r.report?.requestsByKey?.withoutKey ?? 0;
const requests = (r) => r.report?.requests ?? NaN;
const wallS = (r) => r.wallMs / 1000;
const cpuS = (r) => r.cpuMs / 1000;
const peak = (r) => r.peakMiB;

const fixed = (value, digits) => (Number.isNaN(value) ? '-' : value.toFixed(digits));

/** The median of the pairs' ratios now / previous, with their range. */
function ratio(runs, of) {
  const ratios = runs.now.map((r, i) => (runs.previous[i] === undefined ? NaN : of(r) / of(runs.previous[i]))).filter((x) => Number.isFinite(x));
  if (ratios.length === 0) return '-';
  const range = ratios.length > 1 ? ` (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})` : '';
  return `${median(ratios).toFixed(2)}${range}`;
}

const row = (cells) => `| ${cells.join(' | ')} |`;
const figures = [
  ['embedded full run, wall s', embedded, wallS, 2, '≤ 2.0, and ratio ≤ 1'],
  ['embedded full run, CPU s', embedded, cpuS, 2, '-'],
  ['embedded full run, peak MiB', embedded, peak, 0, '≤ 150'],
  ['embedded full run, requests', embedded, requests, 0, '-'],
  ['embedded run writing report.html, wall s', html, wallS, 2, 'ratio ≤ 1.05'],
  ['embedded run writing report.html, CPU s', html, cpuS, 2, '-'],
  ['embedded run writing report.html, peak MiB', html, peak, 0, 'ratio ≤ 1.05'],
  ['`npm test`, wall s', npm, wallS, 0, '≤ 180'],
  ['`npm test`, CPU s (its processes)', npm, cpuS, 0, '-'],
  ['slow target (80 ms, 3 s window), requests', slow, requests, 0, '≤ 130'],
  ['slow target (80 ms, 3 s window), wall s', slow, wallS, 1, '-'],
  ['Free key (60 s window), requests with the key', free, withKey, 0, '≤ 75'],
  ['Free key (60 s window), requests without a valid key', free, withoutKey, 0, '-'],
].filter(([, runs]) => runs.now.length > 0);

const cpu = cpus()[0]?.model?.trim() ?? 'unknown CPU';
console.log(`\nMachine: ${cpu}, ${cpus().length} cores, Node ${process.version}, ${started.toISOString().slice(0, 10)}; load average at the start ${loadAtStart.map((l) => l.toFixed(2)).join(' ')}`);
console.log(`Now: ${NOW.label}`);
console.log(`Previous release: ${PREVIOUS?.label ?? 'not measured (BENCH_PREVIOUS=none)'}`);
console.log(`Pairs (one run of each, in turn): embedded ${EMBEDDED_PAIRS}, with report.html ${HTML_PAIRS}, Free plan ${FREE_PAIRS}, slow target ${SLOW_PAIRS}, npm test ${NPM_TEST_PAIRS}; medians, ratios pair by pair (their median, and range)\n`);
console.log(row(['figure', 'now', 'previous release', 'now / previous', 'target']));
console.log(row(['---', '---:', '---:', '---:', '---']));
for (const [name, runs, of, digits, target] of figures) {
  console.log(row([name, fixed(median(runs.now.map(of)), digits), runs.previous.length === 0 ? '-' : fixed(median(runs.previous.map(of)), digits), ratio(runs, of), target]));
}

const exercised = (report) => report.requirements.filter((r) => r.status === 'pass' || r.status === 'fail').length;

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
  const seen = new Set(runs.map((r) => (r.report === undefined ? 'no report' : `${r.report.verdict}, RATE-005 ${r.report.requirements.find((q) => q.id === 'RATE-005')?.status}`)));
  return [...seen].join(' / ');
}

console.log('\nThe current tree\'s runs (medians):\n');
console.log(row(['run', 'wall s', 'peak MiB', 'requests', 'burst requests', 'rate-limit wait s', 'requirements exercised', 'exercised per request', 'verdict', 'previous release\'s verdict']));
console.log(row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---', '---']));
for (const [name, runs, memory] of [
  ['embedded reference server', embedded, true],
  ['Free plan, 60 s window', free, false],
  ['slow target (80 ms, 3 s window)', slow, false],
]) {
  const done = runs.now.filter((r) => r.report !== undefined);
  if (done.length === 0) continue;
  const all = median(done.map(requests));
  const ex = median(done.map((r) => exercised(r.report)));
  console.log(
    row([
      name,
      fixed(median(done.map(wallS)), 2),
      memory ? fixed(median(done.map(peak)), 0) : '-',
      `${all} (${median(done.map(withKey))} with the key)`,
      String(median(done.map((r) => burstRequests(r.report)))),
      fixed(median(done.map((r) => r.report.rateLimitWaitMs)) / 1000, 1),
      `${ex} / ${done[0].report.requirements.length}`,
      fixed(ex / all, 2),
      verdicts(done),
      runs.previous.length === 0 ? '-' : verdicts(runs.previous),
    ]),
  );
}
