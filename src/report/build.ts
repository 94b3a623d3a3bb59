/**
 * From test outcomes to report.json. Pure: the reporter collects outcomes, this joins them with
 * the catalog. Several tests of one requirement combine to the worst verdict
 * (fail > inconclusive > pass > skipped); a requirement no test reached is inconclusive.
 */
import type { Catalog, Requirement } from '../catalog.js';
import { compareSections } from '../catalog.js';
import type { Evidence, Observation, PropertyFailure, Report, RequirementResult, RequirementStatus } from './types.js';

export interface TestOutcome {
  requirement: string;
  name: string;
  status: RequirementStatus;
  reason?: string;
  evidence: Evidence[];
  observations: Observation[];
  property?: PropertyFailure;
  requestsSoFar?: number;
  waitedMsSoFar?: number;
  createdIds?: string[];
  /** Set when the test broke for a reason of ours, not the target's. */
  internalError?: string;
}

export interface RunInfo {
  tool: { name: string; version: string };
  target: Report['target'];
  seed: number;
  runId: string;
  startedAt: Date;
  durationMs: number;
  options: Report['options'];
  runErrors: string[];
}

const SEVERITY: Record<RequirementStatus, number> = { skipped: 0, pass: 1, inconclusive: 2, fail: 3 };

function combine(requirement: Requirement, outcomes: readonly TestOutcome[]): RequirementResult {
  const worst = outcomes.reduce<TestOutcome | undefined>((a, b) => (a === undefined || SEVERITY[b.status] > SEVERITY[a.status] ? b : a), undefined);
  const status: RequirementStatus = worst?.status ?? 'inconclusive';
  const reason = worst === undefined ? 'no test exercised this requirement in this run' : worst.reason;
  const property = outcomes.find((o) => o.property !== undefined)?.property;
  return {
    id: requirement.id,
    section: requirement.section,
    title: requirement.title,
    level: requirement.level,
    status,
    ...(reason === undefined || status === 'pass' || status === 'fail' ? {} : { reason }),
    statement: requirement.statement,
    ...(requirement.interpretation === undefined ? {} : { interpretation: requirement.interpretation }),
    tests: outcomes.map((o) => o.name),
    evidence: outcomes.flatMap((o) => o.evidence),
    ...(property === undefined ? {} : { property }),
  };
}

export function buildReport(catalog: Catalog, outcomes: readonly TestOutcome[], info: RunInfo): Report {
  const byRequirement = new Map<string, TestOutcome[]>();
  for (const o of outcomes) byRequirement.set(o.requirement, [...(byRequirement.get(o.requirement) ?? []), o]);
  const requirements = [...catalog.requirements]
    .sort((a, b) => compareSections(a.section, b.section))
    .map((r) => combine(r, byRequirement.get(r.id) ?? []));
  const count = (s: RequirementStatus): number => requirements.filter((r) => r.status === s).length;
  const mustFailed = requirements.some((r) => r.level === 'must' && r.status === 'fail');
  const mustUndecided = requirements.some((r) => r.level === 'must' && r.status === 'inconclusive');
  const seen = new Set<string>();
  const observations = outcomes
    .flatMap((o) => o.observations)
    .filter((o) => {
      const key = `${o.requirement}\u0000${o.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  const requests = outcomes.reduce((max, o) => Math.max(max, o.requestsSoFar ?? 0), 0);
  const createdIds = outcomes.reduce<string[]>((longest, o) => ((o.createdIds?.length ?? 0) > longest.length ? (o.createdIds ?? []) : longest), []);
  return {
    schemaVersion: 1,
    tool: info.tool,
    spec: { title: catalog.specTitle, version: catalog.specVersion },
    target: info.target,
    seed: info.seed,
    runId: info.runId,
    startedAt: info.startedAt.toISOString(),
    durationMs: Math.round(info.durationMs),
    requests,
    rateLimitWaitMs: outcomes.reduce((max, o) => Math.max(max, o.waitedMsSoFar ?? 0), 0),
    options: info.options,
    verdict: mustFailed ? 'fail' : 'pass',
    complete: !mustFailed && !mustUndecided && info.runErrors.length === 0,
    summary: {
      pass: count('pass'),
      fail: count('fail'),
      inconclusive: count('inconclusive'),
      skipped: count('skipped'),
      warnings: requirements.filter((r) => r.level === 'should' && r.status === 'fail').length,
    },
    requirements,
    observations,
    notTested: [...catalog.notTested],
    createdPetIds: createdIds,
    runErrors: [...info.runErrors, ...outcomes.flatMap((o) => (o.internalError === undefined ? [] : [`${o.name}: ${o.internalError}`]))],
  };
}

/**
 * Exit code of a run: 1 when a must-requirement failed (should-failures are warnings); else 2 when
 * the run itself went wrong (a suite could not load, a test broke), since then nothing can be
 * vouched for; else 0.
 */
export function exitCodeOf(report: Report): 0 | 1 | 2 {
  if (report.verdict === 'fail') return 1;
  return report.runErrors.length > 0 ? 2 : 0;
}
