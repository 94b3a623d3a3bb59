/**
 * The kill criterion of `npm run mutate`: what one conformance run said about a mutated server.
 * The exit code alone undercounts (a failed `should` exits 0), so the report decides: any failure,
 * `should` included, or a verdict other than CONFORMS kills the mutant.
 */
import type { Report } from '../src/report/types.js';

/** How a run told the mutant from the reference, strongest first; `none`: it did not. */
export type Detection = 'must-failure' | 'should-failure' | 'not-verified' | 'none';

export interface Judgement {
  detection: Detection;
  /** One line: the verdict line, then the failing requirements with their first violation. */
  summary: string;
}

/** The run's judgement of its target, from its report.json. */
export function judgeReport(report: Pick<Report, 'verdict' | 'verdictLine' | 'requirements' | 'halted'>): Judgement {
  const failing = report.requirements.filter((r) => r.status === 'fail');
  const detection: Detection = failing.some((r) => r.level === 'must')
    ? 'must-failure'
    : failing.length > 0
      ? 'should-failure'
      : report.verdict !== 'conforms'
        ? 'not-verified'
        : 'none';
  const details = failing.map((r) => `${r.id} (${r.level}): ${r.evidence.find((e) => e.kind === 'violation')?.message ?? r.reason ?? 'failed'}`);
  if (detection === 'not-verified') {
    const inconclusive = report.requirements.filter((r) => r.status === 'inconclusive').map((r) => `${r.id}: ${r.reason ?? 'inconclusive'}`);
    details.push(...(report.halted === undefined ? [] : [`halted (${report.halted.reason}): ${report.halted.message}`]), ...inconclusive);
  }
  return { detection, summary: [report.verdictLine, ...details].join(' | ') };
}

export const isKill = (detection: Detection): boolean => detection !== 'none';
