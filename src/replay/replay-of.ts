/**
 * What makes a replay's report a replay: the record of the report it replays (replayOf), each
 * replayed requirement's status set by its replay verdict, the requirements it did not replay
 * named so, and the replay's own verdict. The re-run selects the failing requirements the way
 * --only would, but the user chose nothing: "deselected by --only" would be false there. Pure.
 *
 * The re-run's status of a replayed requirement is only half of its replay (verdict.ts): a re-sent
 * sequence that shows the violation again is a failure although the re-run, sending less than the
 * whole run, passed. The report records the verdict, so that the console, report.json, HTML and
 * JUnit say the same.
 */
import { DESELECTED, NOT_REPLAYED } from '../conformance/reasons.js';
import { verdictOf } from '../report/build.js';
import { replayVerdictOf } from '../report/replay-banner.js';
import { restatus } from '../report/spec-coverage.js';
import type { ReplayOf, Report, RequirementResult } from '../report/types.js';
import { verdictLine } from '../report/verdict-line.js';
import { hasJudge } from './judge.js';
import { statusOfReplay, type RequirementReplay } from './verdict.js';

export interface ReplayInput {
  digest: string;
  path: string;
  results: readonly RequirementReplay[];
  /** Re-sent exchanges per requirement (resendFailures' judgements), and those left out. */
  resent: ReadonlyMap<string, readonly unknown[]>;
  leftOut: ReadonlyMap<string, number>;
  /** Every exchange the replay re-sent. */
  exchangesResent: number;
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
    exchangesResent: input.exchangesResent,
  };
}

/** A replayed requirement as its replay judged it. */
function judged(r: RequirementResult, replay: RequirementReplay): RequirementResult {
  const status = statusOfReplay(replay.verdict);
  if (status === r.status) return r;
  if (status === 'fail') {
    // The re-run passed, or could not tell: what failed again is the re-sent exchanges' (verdict.ts puts them first).
    const { reason: _notNow, ...rest } = r;
    return { ...rest, status, evidence: [...replay.details.map((message) => ({ kind: 'violation' as const, message: `replay: ${message}` })), ...r.evidence] };
  }
  return { ...r, status, reason: `replay could not tell: ${replay.details.join('; ')}` };
}

/** The re-run's report as a replay's: marked with replayOf, its replayed requirements as replay judged them, the others "not replayed". */
export function asReplayReport(report: Report, replayOf: ReplayOf, results: readonly RequirementReplay[]): Report {
  const byId = new Map(results.map((r) => [r.id, r]));
  const requirements = report.requirements.map((r) => {
    const replay = byId.get(r.id);
    if (replay !== undefined) return judged(r, replay);
    return r.reason === DESELECTED ? { ...r, reason: NOT_REPLAYED } : r;
  });
  const derived = verdictOf(requirements, report.runErrors, report.halted);
  const verdict = replayVerdictOf(requirements.filter((r) => byId.has(r.id)));
  const facts = { ...derived, verdict, requirements, runErrors: report.runErrors, ...(report.halted === undefined ? {} : { halted: report.halted }), replayOf };
  return {
    ...report,
    ...derived,
    verdict,
    requirements,
    replayOf,
    // Worded again from the replay's verdicts and the new reasons.
    verdictLine: verdictLine(facts),
    ...(report.specCoverage === undefined ? {} : { specCoverage: restatus(report.specCoverage, requirements) }),
  };
}
