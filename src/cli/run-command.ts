/**
 * The CLI's main command, a conformance run, with the console and environment it is given rather
 * than the process's own: main.ts passes process.stdout/stderr/env, and the self-test runs the
 * variants table through it in one long-lived process (test/support/variant-run.ts), the same
 * parsing, library call, report files, console output and exit code without a process start each.
 */
import type { ReporterName, RunOptions } from './args.js';
import { costLine } from '../session/daily-quota.js';
import { dailyQuotaPlan, keyModeOf } from '../api/options.js';
import { runConformance } from '../api/run.js';
import { libraryOptions } from './library-options.js';
import { createProgress } from './progress.js';
import { haltLine, nothingJudged, nothingJudgedLine, renderSummary, styleFor } from './terminal.js';
import { toolInfo } from '../tool-info.js';
import { exitCodeOf } from '../report/build.js';
import { appendStepSummary, writeReports } from '../report/write.js';
import { renderContextOfFile } from '../report/digest.js';
import { RENDERERS } from '../report/renderers.js';
import { join, resolve } from 'node:path';
import { reachNote } from './reach-note.js';
import { prepareTimelineChart } from '../report/render/timeline-chart.js';
import type { ProgressListener } from '../../reporters/compliance.js';

/** Where the command writes: a terminal's streams, or anything that takes text. */
export interface CliIo {
  stdout: Pick<NodeJS.WriteStream, 'write' | 'isTTY'>;
  stderr: Pick<NodeJS.WriteStream, 'write' | 'isTTY' | 'columns'>;
  env: NodeJS.ProcessEnv;
  /** Stops the run, keeping what it found: main.ts aborts it with the signal's name (src/cli/signals.ts). */
  signal?: AbortSignal;
}

/** Before the first request: what the opt-in costs, so a user can still stop it. */
function dailyQuotaNotice(command: RunOptions): string {
  const plan = dailyQuotaPlan(command.plan, command.baseUrl);
  const budget = `request budget ${command.maxRequests}`;
  if (plan === undefined) return `RATE-007 (--exhaust-daily-quota): the daily quota is known once X-RateLimit-Limit names a plan; ${budget}`;
  return `${costLine(plan)}; ${budget}`;
}

/** A wait on the target's rate limit this long leaves time enough to load report.html's charting library in. */
const CHART_WAIT_MS = 500;
/**
 * The client's waits after a 429 (its Retry-After, the single retry's, the Reset after a second
 * 429) say so. Only they are idle time for this thread: a wait before the burst, or for the next
 * window, precedes requests that must go out fast, and the embedded reference server answers them
 * on this same thread.
 */
const AFTER_A_429 = /\b429\b/;

/**
 * `progress`, and when report.html is among the reports, the charting library of its timeline
 * prepared during the run's first long wait after a 429 (every run that tests the limit has one):
 * the run is idle then, so writing report.html afterwards only draws. A run without such a wait
 * loads it when report.html is written.
 */
export function preparingChart(progress: ProgressListener, reporters: readonly ReporterName[]): ProgressListener {
  if (!reporters.includes('html')) return progress;
  let started = false;
  return {
    ...progress,
    onProgress(event) {
      progress.onProgress?.(event);
      if (started || event.kind !== 'wait' || event.ms < CHART_WAIT_MS || !AFTER_A_429.test(event.reason)) return;
      started = true;
      // A library that fails to load fails again, with its error, when report.html is written.
      prepareTimelineChart().catch(() => undefined);
    },
  };
}

/** Runs the suite as `command` says, writes the reports and the console summary; resolves to the exit code. */
export async function runCommand(command: RunOptions, io: CliIo): Promise<number> {
  const target = command.baseUrl ?? 'the embedded reference server';
  // The embedded server's key is the run's own: no one could share it, so the mode says nothing there.
  const key = command.baseUrl === undefined ? '' : keyModeOf(command) === 'dedicated' ? '; dedicated key' : '; the key may be shared';
  // The opt-in's cost shares the first line, so a run that cannot start still prints at most three.
  const cost = command.exhaustDailyQuota ? `; ${dailyQuotaNotice(command)}` : '';
  const risk = command.riskBreakingStore ? '; risks breaking the store (--risk-breaking-store): names it may not survive are sent last, for CREATE-005' : '';
  const reach = reachNote(command, io.env);
  io.stdout.write(`petstore-conformance ${toolInfo().version}: testing ${target} (seed ${command.seed}${key}${reach.suffix})${cost}${risk}\n`);
  for (const warning of reach.warnings) io.stderr.write(`${warning}\n`);
  const progress = createProgress(io.stderr, io.stderr.isTTY === true);
  let report;
  try {
    report = await runConformance(await libraryOptions(command, { progress: preparingChart(progress, command.reporters), env: io.env, ...(io.signal === undefined ? {} : { signal: io.signal }) }));
  } finally {
    progress.stop();
  }
  const paths = await writeReports(report, command.reportDir, command.reporters satisfies ReporterName[]);
  const reportJson = join(resolve(command.reportDir), RENDERERS.json.fileName);
  const summaryPath = await appendStepSummary(report, io.env, await renderContextOfFile(reportJson));
  if (summaryPath !== undefined) paths.push(summaryPath);
  const style = styleFor(io.stdout, io.env);
  const halted = haltLine(report, reportJson, command.apiKeySource);
  if (nothingJudged(report)) {
    // At most three lines in all: what was tested, why nothing was judged and the fix, where the table is.
    io.stderr.write(`petstore-conformance: ${halted}\n`);
    io.stdout.write(nothingJudgedLine(report, paths, style));
    return exitCodeOf(report);
  }
  io.stdout.write(renderSummary(report, paths, style));
  if (command.baseUrl !== undefined && !command.baseUrl.endsWith('/v1')) {
    io.stderr.write(`warning: the base URL does not end in /v1, as the spec's addresses do (§ 9)\n`);
  }
  if (halted !== undefined) io.stderr.write(`petstore-conformance: ${halted}\n`);
  return exitCodeOf(report);
}

export { failureLine } from './failure.js';
