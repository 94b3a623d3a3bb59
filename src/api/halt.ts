/**
 * Reports of runs that stopped for a reason of the run, not of the target: unreachable, the
 * caller's abort, the preflight's bad key or wrong base URL. Every selected requirement left
 * undecided becomes inconclusive with that reason, and `halted` says why, so exit code 2 follows.
 */
import { verdictOf } from '../report/build.js';
import type { Report, RequirementResult } from '../report/types.js';
import { DESELECTED } from '../conformance/reasons.js';
import { restatus } from '../report/spec-coverage.js';

export type RunHalt = Pick<NonNullable<Report['halted']>, 'reason' | 'message'>;

/** The user's mistakes: nothing the target answered under them says anything about conformance. */
const RUN_NOT_MADE: ReadonlySet<RunHalt['reason']> = new Set(['unreachable', 'bad-key', 'wrong-base-url']);

/** `selected`: the ids --only chose (empty: all), so a run that never started still says which were deselected. */
export function haltedReport(report: Report, halt: RunHalt, selected: readonly string[]): Report {
  const voided = RUN_NOT_MADE.has(halt.reason);
  const requirements = report.requirements.map((r): RequirementResult => {
    if (r.reason === DESELECTED) return r;
    if (selected.length > 0 && !selected.includes(r.id)) return { ...r, status: 'not-exercised', reason: DESELECTED, evidence: [] };
    if (!voided && (r.status === 'pass' || r.status === 'fail')) return r;
    return { ...r, status: 'inconclusive', reason: `not judged: ${halt.message}`, evidence: voided ? [] : r.evidence };
  });
  const unjudged = requirements.filter((r) => r.status === 'inconclusive').map((r) => r.id);
  return {
    ...report,
    requirements,
    ...verdictOf(requirements, report.runErrors),
    ...(voided ? { observations: [] } : {}),
    ...(report.specCoverage === undefined ? {} : { specCoverage: restatus(report.specCoverage, requirements) }),
    halted: { ...halt, unjudged },
  };
}
