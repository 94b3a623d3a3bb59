#!/usr/bin/env -S node --max-semi-space-size=1 --optimize-for-size --no-sparkplug
/**
 * Entry point of `petstore-conformance`. Thin on purpose: parse, dispatch, map outcomes to exit
 * codes. 0: no must-requirement failed; 1: at least one failed; 2: could not run (bad usage,
 * unreachable target, internal error); 130/143/129: a run stopped by SIGINT/SIGTERM/SIGHUP, which
 * still writes its reports (signals.ts). Errors are one line, never a stack trace.
 *
 * The V8 flags on the first line keep the peak memory of a run (this process and the suite's
 * worker thread) about 20 MB lower: small young generations, a heap tuned for size and no baseline
 * compiler (less CPU too), at no measurable cost in time for a run that keeps little alive (see
 * bench/). v8-flags.ts sets them again for a start without that line (`node dist/src/cli/main.js`);
 * it must stay the first import.
 */
import './v8-flags.js';
import { parseCommandLine, USAGE } from './args.js';
import { toolInfo } from '../tool-info.js';
import { renderContextOfFile } from '../report/digest.js';
import { writeReports } from '../report/write.js';
import { failureLine } from './failure.js';
import { stopOnSignals } from './signals.js';
import { signalExitCode } from '../report/build.js';

async function main(argv: readonly string[]): Promise<number> {
  const command = parseCommandLine(argv, process.env);
  if (command.command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command.command === 'version') {
    process.stdout.write(`${toolInfo().version}\n`);
    return 0;
  }
  if (command.command === 'report') {
    // Loaded on demand: validating a saved report needs Ajv, which a plain run never loads here.
    const { loadReport, ReportFileError } = await import('../report/load.js');
    const report = await loadReport(command.reportFile);
    if (command.reporters.includes('har') && report.exchanges === undefined) {
      throw new ReportFileError(`"${command.reportFile}" holds no exchange log (its run was made without --reporter har), so no HAR can be rendered from it`);
    }
    // The digest shown is the saved file's, from its bytes: the file is not rewritten.
    const context = await renderContextOfFile(command.reportFile);
    const paths = await writeReports(report, command.reportDir, command.reporters.filter((r) => r !== 'json'), context);
    for (const p of paths) process.stdout.write(`report: ${p}\n`);
    return 0;
  }
  if (command.command === 'coverage') return (await import('./coverage.js')).coverageCommand();
  if (command.command === 'replay') return (await import('./replay.js')).replay(command);
  if (command.command === 'diff') return (await import('./diff.js')).diffCommand(command);
  if (command.command === 'attest') return (await import('./attest.js')).attestCommand(command);
  if (command.command === 'verify') return (await import('./attest.js')).verifyCommand(command);
  // Before the run's modules load (a third of a second): a signal from now on stops the run, not the process.
  const stop = stopOnSignals(process.stderr, [process.stdout, process.stderr]);
  const { runCommand } = await import('./run-command.js');
  const code = await runCommand(command, { stdout: process.stdout, stderr: process.stderr, env: process.env, signal: stop.signal });
  // A signal that came after the run had ended still ends the process as that signal does.
  return stop.received === undefined ? code : signalExitCode(stop.received);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(failureLine(error));
    process.exit(2);
  },
);
