/**
 * Reports of runs that stopped for a reason of the run, not of the target: unreachable, the
 * preflight's bad key or wrong base URL, the caller's abort or a signal. Every selected
 * requirement left undecided becomes inconclusive with that reason, and `halted` says why, so
 * exit code 2 follows (a signal's 128 + its number).
 */
import { verdictOf } from '../report/build.js';
import type { Report, RequirementResult } from '../report/types.js';
import { DESELECTED } from '../conformance/reasons.js';
import { restatus } from '../report/spec-coverage.js';
import { haltOfStop, type RunStop } from './stop.js';

export type RunHalt = Pick<NonNullable<Report['halted']>, 'reason' | 'message'>;

/** The user's mistakes: nothing the target answered under them says anything about conformance. */
const RUN_NOT_MADE: ReadonlySet<RunHalt['reason']> = new Set(['unreachable', 'bad-key', 'wrong-base-url']);

/** `selected`: the ids --only chose (empty: all), so a run that never started still says which were deselected. */
export function haltedReport(report: Report, halt: RunHalt, selected: readonly string[]): Report {
  const voided = RUN_NOT_MADE.has(halt.reason);
  const reason = `not judged: ${halt.message}`;
  return withHalt(report, halt, selected, voided, reason, (r) => {
    if (!voided && (r.status === 'pass' || r.status === 'fail')) return r;
    return { ...r, status: 'inconclusive', reason, evidence: voided ? [] : r.evidence };
  });
}

/**
 * The report of a run stopped from outside (src/api/stop.ts), with every verdict it reached: pass
 * and fail stand, a choice (not exercised) stands, and so does an inconclusive verdict a test
 * reached before the stop. The stop's reason goes to every requirement no test reached and to
 * those whose tests it cut short (src/api/run.ts gave them that reason already).
 */
export function stoppedReport(report: Report, stop: RunStop, selected: readonly string[]): Report {
  return withHalt(report, haltOfStop(stop), selected, false, stop.unjudged, (r) =>
    r.status === 'inconclusive' && r.tests.length === 0 ? { ...r, reason: stop.unjudged } : r,
  );
}

function withHalt(
  report: Report,
  halt: Omit<NonNullable<Report['halted']>, 'unjudged'>,
  selected: readonly string[],
  voided: boolean,
  /** The reason of the requirements the halt kept from being judged (`halted.unjudged`). */
  unjudgedReason: string,
  undecided: (r: RequirementResult) => RequirementResult,
): Report {
  const requirements = report.requirements.map((r): RequirementResult => {
    if (r.reason === DESELECTED) return r;
    if (selected.length > 0 && !selected.includes(r.id)) return { ...r, status: 'not-exercised', reason: DESELECTED, evidence: [] };
    return undecided(r);
  });
  const unjudged = requirements.filter((r) => r.status === 'inconclusive' && r.reason === unjudgedReason).map((r) => r.id);
  const halted = { ...halt, unjudged };
  return {
    ...report,
    requirements,
    // The halt goes in: a halted run is never "conforms", even when all it judged passed.
    ...verdictOf(requirements, report.runErrors, halted),
    ...(voided ? { observations: [] } : {}),
    ...(report.specCoverage === undefined ? {} : { specCoverage: restatus(report.specCoverage, requirements) }),
    halted,
  };
}
