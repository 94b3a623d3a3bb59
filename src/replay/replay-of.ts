/**
 * What makes a replay's report a replay: the record of the report it replays (replayOf), and the
 * requirements it did not replay named so. The re-run selects the failing requirements the way
 * --only would, but the user chose nothing: "deselected by --only" would be false there. Pure.
 */
import { DESELECTED, NOT_REPLAYED } from '../conformance/reasons.js';
import type { ReplayOf, Report } from '../report/types.js';
import { verdictLine } from '../report/verdict-line.js';
import { hasJudge } from './judge.js';
import type { RequirementReplay } from './verdict.js';

export interface ReplayInput {
  digest: string;
  path: string;
  results: readonly RequirementReplay[];
  /** Re-sent exchanges per requirement (resendFailures' judgements), and those left out. */
  resent: ReadonlyMap<string, readonly unknown[]>;
  leftOut: ReadonlyMap<string, number>;
}

export function replayOfRecord(input: ReplayInput): ReplayOf {
  const cannotDecide = input.results.flatMap((r) => {
    if (r.verdict === 'could not tell') return [{ requirement: r.id, reason: r.details.join('; ') }];
    return hasJudge(r.id) ? [] : [{ requirement: r.id, reason: 'no single re-sent exchange decides it: judged by the re-run alone' }];
  });
  return {
    digest: input.digest,
    path: input.path,
    requirements: input.results.map((r) => r.id),
    findingsResent: input.results.map((r) => ({ requirement: r.id, exchanges: input.resent.get(r.id)?.length ?? 0, leftOut: input.leftOut.get(r.id) ?? 0 })),
    cannotDecide,
  };
}

/** The re-run's report as a replay's: marked with replayOf, its unselected requirements "not replayed". */
export function asReplayReport(report: Report, replayOf: ReplayOf): Report {
  const relabel = <T extends { reason?: string }>(r: T): T => (r.reason === DESELECTED ? { ...r, reason: NOT_REPLAYED } : r);
  const relabelled = { ...report, requirements: report.requirements.map(relabel), notExercised: report.notExercised.map(relabel), replayOf };
  // The verdict line names why requirements were not exercised: it is worded again from the new reasons.
  return { ...relabelled, verdictLine: verdictLine(relabelled) };
}
