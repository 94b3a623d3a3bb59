/**
 * Prints the plain closing line CI reads ("N passed, N failed, N skipped"), alongside vitest's
 * own report, so a run that executed no test can never pass for a green one. It also owns the
 * run's temporary root (support/temp-guard.ts): opened before any worker starts, so every test
 * and child process inherits TMPDIR, and checked at the end, where a leftover fails the run.
 */
import type { Reporter, SerializedError, TestModule, TestRunEndReason } from 'vitest/node';
import { closingCounts, formatClosingLine } from './closing-line.js';
import { closeTemporaryRoot, openTemporaryRoot, type TemporaryRoot } from './temp-guard.js';

export default class ClosingLineReporter implements Reporter {
  private temporaryRoot: TemporaryRoot | undefined;

  onInit(): void {
    this.temporaryRoot = openTemporaryRoot();
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>, reason: TestRunEndReason): void {
    const extra: string[] = [];
    if (this.temporaryRoot !== undefined) {
      const { inRoot, outside } = closeTemporaryRoot(this.temporaryRoot);
      this.temporaryRoot = undefined;
      extra.push(...inRoot.map((path) => `left behind by a test: ${path}`));
      // Outside the root a pc- entry is surely ours only where nothing else runs our tests meanwhile (CI).
      if (['true', '1'].includes(process.env['CI'] ?? '')) extra.push(...outside.map((path) => `left behind outside TMPDIR: ${path}`));
      else if (outside.length > 0) process.stdout.write(`\nwarning: new pc- entries in the system temporary directory (another run on this machine?):\n  ${outside.join('\n  ')}\n`);
    }
    const counts = closingCounts(testModules, unhandledErrors, extra);
    // vitest ends "interrupted" on a bail or a signal: whatever did not run is not a pass.
    if (reason === 'interrupted') counts.details.push('the run was interrupted');
    if (counts.details.length > 0) process.stdout.write(`\n${counts.details.join('\n')}\n`);
    process.stdout.write(`\n${formatClosingLine(counts)}${reason === 'interrupted' ? ' (interrupted)' : ''}\n`);
    if (counts.failed > 0) process.exitCode = 1;
  }
}
