#!/usr/bin/env -S node --max-semi-space-size=1 --optimize-for-size
/**
 * Entry point of `petstore-conformance`. Thin on purpose: parse, dispatch, map outcomes to exit
 * codes. 0: no must-requirement failed; 1: at least one failed; 2: could not run (bad usage,
 * unreachable target, internal error). Errors are one line, never a stack trace.
 *
 * The V8 flags on the first line keep the peak memory of a run (this process and the suite's
 * worker thread) about 20 MB lower: small young generations and a heap tuned for size, at no
 * measurable cost in time for a run that keeps little alive (see bench/). v8-flags.ts sets them
 * again for a start without that line (`node dist/src/cli/main.js`); it must stay the first import.
 */
import './v8-flags.js';
import { parseCommandLine, USAGE, type ReporterName } from './args.js';
import { runConformance } from '../api/run.js';
import { libraryOptions } from './library-options.js';
import { createProgress } from './progress.js';
import { haltLine, renderSummary, styleFor } from './terminal.js';
import { toolInfo } from '../tool-info.js';
import { exitCodeOf } from '../report/build.js';
import { appendStepSummary, writeReports } from '../report/write.js';

function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split('\n')[0] ?? text).trim();
}

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
    const { loadReport } = await import('../report/load.js');
    const report = await loadReport(command.reportFile);
    const paths = await writeReports(report, command.reportDir, command.reporters.filter((r) => r !== 'json'));
    for (const p of paths) process.stdout.write(`report: ${p}\n`);
    return 0;
  }
  if (command.command === 'coverage') return (await import('./coverage.js')).coverageCommand();
  if (command.command === 'replay') return (await import('./replay.js')).replay(command);
  if (command.command === 'diff') return (await import('./diff.js')).diffCommand(command);
  const target = command.baseUrl ?? 'the embedded reference server';
  process.stdout.write(`petstore-conformance ${toolInfo().version}: testing ${target} (seed ${command.seed})\n`);
  if (command.baseUrl !== undefined && !command.baseUrl.endsWith('/v1')) {
    process.stderr.write(`warning: the base URL does not end in /v1, as the spec's addresses do (§ 9)\n`);
  }
  const progress = createProgress(process.stderr, process.stderr.isTTY === true);
  let report;
  try {
    report = await runConformance(await libraryOptions(command, { progress }));
  } finally {
    progress.stop();
  }
  const paths = await writeReports(report, command.reportDir, command.reporters satisfies ReporterName[]);
  const summaryPath = await appendStepSummary(report, process.env);
  if (summaryPath !== undefined) paths.push(summaryPath);
  process.stdout.write(renderSummary(report, paths, styleFor(process.stdout, process.env)));
  const halted = haltLine(report);
  if (halted !== undefined) process.stderr.write(`petstore-conformance: ${halted}\n`);
  return exitCodeOf(report);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const code = typeof error === 'object' && error !== null && 'exitCode' in error && error.exitCode === 2 ? 'usage' : 'internal';
    process.stderr.write(`petstore-conformance: ${code === 'internal' ? 'internal error: ' : ''}${oneLine(error)}\n`);
    process.exit(2);
  },
);
