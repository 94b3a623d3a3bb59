// The load bench: a command run again and again beside busy processes, one per core by default,
// so that anyone can check before they push that the project gives the same answers on a busy
// machine (issue 26): that `npm test` passes, that the embedded run says CONFORMS and completes.
//
//   npm run bench:load                                   20 embedded runs beside one busy process per core
//   npm run bench:load -- --busy 2 --runs 20             the same, beside two
//   npm run bench:load -- --busy 2 --runs 3 -- npm test  `npm test` three times beside two busy processes
//
// Prints each run (exit code, verdict when it printed one, wall s) and then how many passed (exit
// 0), how many said CONFORMS (and, for the embedded run, were complete), and their times. Exits 0
// only when every run passed (and, for the embedded run, conformed and was complete). The busy
// processes are stopped however the bench ends, Ctrl-C included (bench/lib/busy.mjs). A run's
// output is kept in a log file only when it failed; the path is printed.
import { openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBusy } from './lib/busy.mjs';
import { cliOf, conformanceRun } from './lib/conformance-run.mjs';
import { median, running, timed } from './lib/process.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const USAGE = 'usage: node bench/load.mjs [--busy N] [--runs R] [-- <command> [args...]]  (no command: the embedded run)';

function parse(argv) {
  const split = argv.indexOf('--');
  const own = split === -1 ? argv : argv.slice(0, split);
  const command = split === -1 ? [] : argv.slice(split + 1);
  const options = { busy: cpus().length, runs: command.length === 0 ? 20 : 3, command };
  for (let i = 0; i < own.length; i += 2) {
    const [flag, value] = [own[i], Number(own[i + 1])];
    if ((flag !== '--busy' && flag !== '--runs') || !Number.isInteger(value) || value < (flag === '--busy' ? 0 : 1)) throw new Error(USAGE);
    options[flag.slice(2)] = value;
  }
  return options;
}

/** A verdict line any run of the CLI prints (CONFORMS / DOES NOT CONFORM / NOT VERIFIED). */
const VERDICT = /^(CONFORMS|DOES NOT CONFORM|NOT VERIFIED):/m;

async function embeddedRun() {
  const run = await conformanceRun(cliOf(ROOT), []);
  const verdict = run.report === undefined ? 'no report' : run.report.verdict === 'conforms' ? 'CONFORMS' : run.report.verdictLine;
  const complete = run.report?.complete === true;
  const ok = run.code === 0 && run.report?.verdict === 'conforms' && complete;
  return { code: run.code, wallMs: run.wallMs, verdict, complete, ok, log: undefined };
}

async function commandRun(command, index) {
  const log = join(tmpdir(), `petstore-conformance-load-${process.pid}-${index}.log`);
  const fd = openSync(log, 'w');
  let ran;
  try {
    ran = await timed(command[0], command.slice(1), { cwd: process.cwd(), stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd);
  }
  const verdict = VERDICT.exec(readFileSync(log, 'utf8'))?.[1];
  const ok = ran.code === 0;
  if (ok) rmSync(log, { force: true });
  return { code: ran.code, wallMs: ran.wallMs, verdict, complete: undefined, ok, log: ok ? undefined : log };
}

const seconds = (ms) => (ms / 1000).toFixed(1);

async function main() {
  const options = parse(process.argv.slice(2));
  const what = options.command.length === 0 ? 'the embedded run' : options.command.join(' ');
  const busy = startBusy(options.busy);
  const interrupted = async (signal) => {
    for (const child of running) child.kill('SIGTERM');
    await busy.stop();
    console.error(`\n${signal}: stopped the ${options.busy} busy processes`);
    process.exit(130);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.once(signal, () => void interrupted(signal));
  console.log(`${what}, ${options.runs} times, beside ${options.busy} busy processes (pids ${busy.pids.join(', ') || 'none'}) on ${cpus().length} cores`);
  const runs = [];
  try {
    for (let i = 1; i <= options.runs; i++) {
      const run = options.command.length === 0 ? await embeddedRun() : await commandRun(options.command, i);
      runs.push(run);
      const verdict = run.verdict === undefined ? '' : `, ${run.verdict}${run.complete === false ? ' (not complete)' : ''}`;
      console.log(`run ${i}/${options.runs}: exit ${run.code}${verdict}, ${seconds(run.wallMs)} s${run.log === undefined ? '' : `; output: ${run.log}`}`);
    }
  } finally {
    await busy.stop();
  }
  const walls = runs.map((r) => r.wallMs);
  const count = (test) => `${runs.filter(test).length}/${runs.length}`;
  const said = runs.some((r) => r.verdict !== undefined) ? `; said CONFORMS: ${count((r) => r.verdict === 'CONFORMS')}` : '';
  const complete = options.command.length === 0 ? `; complete: ${count((r) => r.complete === true)}` : '';
  console.log(`\npassed (exit 0): ${count((r) => r.code === 0)}${said}${complete}`);
  console.log(`wall s: min ${seconds(Math.min(...walls))}, median ${seconds(median(walls))}, max ${seconds(Math.max(...walls))}`);
  process.exitCode = runs.every((r) => r.ok) ? 0 : 1;
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 2;
});
