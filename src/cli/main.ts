#!/usr/bin/env -S node --max-semi-space-size=1 --optimize-for-size --no-sparkplug
/**
 * Entry point of `petstore-conformance`. Thin on purpose: parse, dispatch, map outcomes to exit
 * codes. 0: no must-requirement failed; 1: at least one failed; 2: could not run (bad usage,
 * unreachable target, internal error). Errors are one line, never a stack trace.
 *
 * The V8 flags on the first line keep the peak memory of a run (this process and the suite's
 * worker thread) about 20 MB lower: small young generations, a heap tuned for size and no baseline
 * compiler (less CPU too), at no measurable cost in time for a run that keeps little alive (see
 * bench/). v8-flags.ts sets them again for a start without that line (`node dist/src/cli/main.js`);
 * it must stay the first import.
 */
import './v8-flags.js';
import { parseCommandLine, USAGE, type ReporterName, type RunOptions } from './args.js';
import { costLine } from '../session/daily-quota.js';
import { dailyQuotaPlan } from '../api/options.js';
import { runConformance } from '../api/run.js';
import { keyModeOf } from '../api/options.js';
import { libraryOptions } from './library-options.js';
import { createProgress } from './progress.js';
import { haltLine, nothingJudged, nothingJudgedLine, renderSummary, styleFor } from './terminal.js';
import { toolInfo } from '../tool-info.js';
import { exitCodeOf } from '../report/build.js';
import { appendStepSummary, writeReports } from '../report/write.js';
import { renderContextOfFile } from '../report/digest.js';
import { RENDERERS } from '../report/renderers.js';
import { join, resolve } from 'node:path';

/** Before the first request: what the opt-in costs, so a user can still stop it. */
function dailyQuotaNotice(command: RunOptions): string {
  const plan = dailyQuotaPlan(command.plan, command.baseUrl);
  const budget = `request budget ${command.maxRequests}`;
  if (plan === undefined) return `RATE-007 (--exhaust-daily-quota): the daily quota is known once X-RateLimit-Limit names a plan; ${budget}`;
  return `${costLine(plan)}; ${budget}`;
}

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
  const target = command.baseUrl ?? 'the embedded reference server';
  const key = keyModeOf(command) === 'dedicated' ? 'dedicated key' : 'the key may be shared';
  process.stdout.write(`petstore-conformance ${toolInfo().version}: testing ${target} (seed ${command.seed}; ${key})\n`);
  if (command.exhaustDailyQuota) process.stderr.write(`${dailyQuotaNotice(command)}\n`);
  const progress = createProgress(process.stderr, process.stderr.isTTY === true);
  let report;
  try {
    report = await runConformance(await libraryOptions(command, { progress }));
  } finally {
    progress.stop();
  }
  const paths = await writeReports(report, command.reportDir, command.reporters satisfies ReporterName[]);
  const summaryPath = await appendStepSummary(report, process.env, await renderContextOfFile(join(resolve(command.reportDir), RENDERERS.json.fileName)));
  if (summaryPath !== undefined) paths.push(summaryPath);
  const style = styleFor(process.stdout, process.env);
  const halted = haltLine(report);
  if (nothingJudged(report)) {
    // At most three lines in all: what was tested, why nothing was judged and the fix, where the table is.
    process.stderr.write(`petstore-conformance: ${halted}\n`);
    process.stdout.write(nothingJudgedLine(report, paths, style));
    return exitCodeOf(report);
  }
  process.stdout.write(renderSummary(report, paths, style));
  if (command.baseUrl !== undefined && !command.baseUrl.endsWith('/v1')) {
    process.stderr.write(`warning: the base URL does not end in /v1, as the spec's addresses do (§ 9)\n`);
  }
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
