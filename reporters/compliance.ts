/**
 * The vitest reporter that turns finished conformance tests into TestOutcomes. It runs in the
 * CLI's process; the tests ran in the worker and reached us through their meta. A test that
 * failed without recording a violation broke for a reason of ours (a bug, a timeout): it is
 * reported inconclusive with the error, never as a failure of the target.
 */
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import type { SerializedError, UserConsoleLog } from 'vitest';
import type { TestOutcome } from '../src/report/build.js';
import type { LoggedExchange, RunTimeline } from '../src/report/types.js';
import type { ConformanceMeta } from '../src/conformance/meta.js';
import { decodeProgress, type ProgressEvent } from '../src/conformance/progress.js';

export interface ProgressListener {
  onTestStart?(requirement: string, title: string): void;
  onTestEnd?(outcome: TestOutcome): void;
  onProgress?(event: ProgressEvent): void;
  /** Anything the suites printed that is not a progress event. */
  onOutput?(text: string): void;
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}

export class ComplianceReporter implements Reporter {
  readonly outcomes: TestOutcome[] = [];
  readonly errors: string[] = [];
  /** The run's exchange log, as the worker sent it (only when the run keeps one): in completion order. */
  readonly exchanges: LoggedExchange[] = [];
  /** The run's timeline, sent by the worker after its last test; undefined when the run ended before that. */
  timeline: RunTimeline | undefined;
  readonly #listener: ProgressListener;

  constructor(listener: ProgressListener = {}) {
    this.#listener = listener;
  }

  onTestCaseReady(testCase: TestCase): void {
    const meta: ConformanceMeta = testCase.meta();
    if (meta.requirement !== undefined) this.#listener.onTestStart?.(meta.requirement, testCase.name);
  }

  onUserConsoleLog(log: UserConsoleLog): void {
    const { events, output } = decodeProgress(log.content);
    for (const event of events) {
      if (event.kind === 'exchange') this.exchanges.push(event.exchange);
      else if (event.kind === 'timeline') this.timeline = event.timeline;
      else this.#listener.onProgress?.(event);
    }
    if (output !== '') this.#listener.onOutput?.(output);
  }

  onTestCaseResult(testCase: TestCase): void {
    const meta: ConformanceMeta = testCase.meta();
    if (meta.requirement === undefined) {
      this.errors.push(`test "${testCase.name}" names no requirement`);
      return;
    }
    const result = testCase.result();
    const hasViolation = (meta.evidence ?? []).some((e) => e.kind === 'violation');
    const base = {
      requirement: meta.requirement,
      name: testCase.name,
      evidence: meta.evidence ?? [],
      observations: meta.observations ?? [],
      ...(meta.property === undefined ? {} : { property: meta.property }),
      ...(meta.sequence === undefined ? {} : { sequence: meta.sequence }),
      ...(meta.requestsSoFar === undefined ? {} : { requestsSoFar: meta.requestsSoFar }),
      ...(meta.keyedRequestsSoFar === undefined ? {} : { keyedRequestsSoFar: meta.keyedRequestsSoFar }),
      ...(meta.waitedMsSoFar === undefined ? {} : { waitedMsSoFar: meta.waitedMsSoFar }),
      ...(meta.createdIds === undefined ? {} : { createdIds: meta.createdIds }),
      ...(meta.stoppedBy === undefined ? {} : { stoppedBy: meta.stoppedBy }),
      ...(meta.halt === undefined ? {} : { halt: meta.halt }),
      ...(meta.keyUse === undefined ? {} : { keyUse: meta.keyUse }),
      ...(meta.restsOn === undefined ? {} : { restsOn: meta.restsOn }),
    };
    let outcome: TestOutcome;
    if (result.state === 'passed') outcome = { ...base, status: 'pass' };
    else if (result.state === 'failed' && hasViolation) outcome = { ...base, status: 'fail' };
    else if (result.state === 'failed') {
      const error = firstLine(result.errors?.[0]?.message ?? 'unknown error');
      outcome = { ...base, status: 'inconclusive', reason: `the test could not complete: ${error}`, internalError: error };
    } else if (meta.verdict === undefined) {
      // Our tests skip only with a verdict: this one vitest skipped when the run was cancelled.
      const reason = (result.state === 'skipped' ? result.note : undefined) ?? 'the run was cancelled before this test ended';
      outcome = { ...base, status: 'inconclusive', reason, cancelled: true };
    } else {
      const reason = meta.reason ?? 'not exercised';
      outcome = { ...base, status: meta.verdict === 'inconclusive' ? 'inconclusive' : 'not-exercised', reason };
    }
    this.outcomes.push(outcome);
    this.#listener.onTestEnd?.(outcome);
    if (outcome.requestsSoFar !== undefined) this.#listener.onProgress?.({ kind: 'requests', requests: outcome.requestsSoFar });
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    for (const module of testModules) {
      for (const error of module.errors()) this.errors.push(`${module.moduleId}: ${firstLine(error.message)}`);
    }
    for (const error of unhandledErrors) this.errors.push(`unhandled: ${firstLine(error.message)}`);
  }
}
