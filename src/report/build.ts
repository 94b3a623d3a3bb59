/**
 * From test outcomes to report.json. Pure: the reporter collects outcomes, this joins them with
 * the catalog. Several tests of one requirement combine to the worst verdict
 * (fail > inconclusive > pass > not-exercised); a requirement no test reached is inconclusive.
 */
import type { Catalog, Requirement } from '../catalog.js';
import { compareSections } from '../catalog.js';
import type { ConformanceMeta } from '../conformance/meta.js';
import type { Evidence, KeyUse, Observation, RestsOn, Report, RequirementResult, RequirementStatus, StopSignal } from './types.js';
import { verdictLine } from './verdict-line.js';
import { loadSpecMap, type SpecMap } from '../spec-map.js';
import { specCoverageOf } from './spec-coverage.js';

/**
 * One finished test as the reporter saw it: what its meta carried (see ConformanceMeta), with
 * the verdict the reporter derived from its vitest result.
 */
export type TestOutcome = Pick<ConformanceMeta, 'property' | 'sequence' | 'requestsSoFar' | 'keyedRequestsSoFar' | 'waitedMsSoFar' | 'createdIds' | 'stoppedBy' | 'halt' | 'keyUse' | 'restsOn'> & {
  requirement: string;
  name: string;
  status: RequirementStatus;
  reason?: string;
  evidence: Evidence[];
  observations: Observation[];
  /** Set when the test broke for a reason of ours, not the target's. */
  internalError?: string;
  /** Set when vitest skipped the test before it reached a verdict: its run was cancelled. */
  cancelled?: true;
};

export interface RunInfo {
  tool: { name: string; version: string };
  target: Report['target'];
  seed: number;
  runId: string;
  startedAt: Date;
  durationMs: number;
  options: Report['options'];
  keyMode: KeyUse['mode'];
  runErrors: string[];
}

const SEVERITY: Record<RequirementStatus, number> = { 'not-exercised': 0, pass: 1, inconclusive: 2, fail: 3 };

function combine(requirement: Requirement, outcomes: readonly TestOutcome[]): RequirementResult {
  const worst = outcomes.reduce<TestOutcome | undefined>((a, b) => (a === undefined || SEVERITY[b.status] > SEVERITY[a.status] ? b : a), undefined);
  const status: RequirementStatus = worst?.status ?? 'inconclusive';
  const reason = worst === undefined ? 'no test exercised this requirement in this run' : worst.reason;
  const property = outcomes.find((o) => o.property !== undefined)?.property;
  const sequence = outcomes.find((o) => o.sequence !== undefined)?.sequence;
  const restsOn = restsOnOf(outcomes);
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
    ...(sequence === undefined ? {} : { sequence }),
    ...(restsOn === undefined ? {} : { restsOn }),
  };
}

function restsOnOf(outcomes: readonly TestOutcome[]): RestsOn | undefined {
  const own = outcomes.flatMap((o) => (o.restsOn === undefined ? [] : [o.restsOn]));
  if (own.length === 0) return undefined;
  const cases = own.filter((r) => r.cases !== undefined);
  const details = own.flatMap((r) => (r.detail === undefined ? [] : [r.detail]));
  return {
    exchanges: own.reduce((sum, r) => sum + r.exchanges, 0),
    ...(cases.length === 0 ? {} : { cases: cases.reduce((sum, r) => sum + (r.cases ?? 0), 0) }),
    ...(details.length === 0 ? {} : { detail: details.join('; ') }),
  };
}

/**
 * Verdict, completeness, counts and the verdict line of a set of requirement results. A
 * should-failure is a warning; not exercised (the user's choice) never blocks "conforms", while
 * anything inconclusive, a halt or a run error leaves the run "not verified" unless a must failed.
 */
export function verdictOf(
  requirements: readonly RequirementResult[],
  runErrors: readonly string[],
  halted?: Report['halted'],
): Pick<Report, 'verdict' | 'verdictLine' | 'complete' | 'summary' | 'notExercised'> {
  const count = (s: RequirementStatus): number => requirements.filter((r) => r.status === s).length;
  const mustFailed = requirements.some((r) => r.level === 'must' && r.status === 'fail');
  const summary = {
    pass: count('pass'),
    fail: count('fail'),
    inconclusive: count('inconclusive'),
    notExercised: count('not-exercised'),
    warnings: requirements.filter((r) => r.level === 'should' && r.status === 'fail').length,
  };
  const broken = runErrors.length > 0 || halted !== undefined;
  const verdict: Report['verdict'] = mustFailed ? 'does-not-conform' : summary.inconclusive > 0 || broken ? 'not-verified' : 'conforms';
  const notExercised = requirements.filter((r) => r.status === 'not-exercised').map((r) => ({ id: r.id, reason: r.reason ?? 'not exercised' }));
  return {
    verdict,
    verdictLine: verdictLine({ verdict, summary, notExercised, runErrors: [...runErrors], ...(halted === undefined ? {} : { halted }), requirements }),
    complete: summary.inconclusive === 0,
    summary,
    notExercised,
  };
}

/** `specMap`: the sentences the report's specification coverage lists (schemas/spec-map.yaml unless given). */
export function buildReport(catalog: Catalog, outcomes: readonly TestOutcome[], info: RunInfo, specMap: Pick<SpecMap, 'sentences'> = loadSpecMap()): Report {
  const byRequirement = new Map<string, TestOutcome[]>();
  for (const o of outcomes) byRequirement.set(o.requirement, [...(byRequirement.get(o.requirement) ?? []), o]);
  const requirements = [...catalog.requirements]
    .sort((a, b) => compareSections(a.section, b.section))
    .map((r) => combine(r, byRequirement.get(r.id) ?? []));
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
  const withKey = outcomes.reduce((max, o) => Math.max(max, o.keyedRequestsSoFar ?? 0), 0);
  const createdIds = outcomes.reduce<string[]>((longest, o) => ((o.createdIds?.length ?? 0) > longest.length ? (o.createdIds ?? []) : longest), []);
  const halt = outcomes.find((o) => o.halt !== undefined)?.halt;
  const otherConsumption = outcomes.find((o) => o.keyUse?.otherConsumption !== undefined)?.keyUse?.otherConsumption;
  // Requirements the target's silence (or the halt) kept from being judged, as opposed to those
  // left inconclusive by the budget or by what the target allowed.
  const unjudged = requirements
    .filter((r) => r.status === 'inconclusive' && (byRequirement.get(r.id) ?? []).some((o) => o.stoppedBy === 'PC_TRANSPORT' || o.stoppedBy === 'PC_HALTED'))
    .map((r) => r.id);
  const halted = halt === undefined ? undefined : { ...halt, unjudged };
  const runErrors = [...info.runErrors, ...outcomes.flatMap((o) => (o.internalError === undefined ? [] : [`${o.name}: ${o.internalError}`]))];
  return {
    schemaVersion: 2,
    tool: info.tool,
    spec: { title: catalog.specTitle, version: catalog.specVersion },
    target: info.target,
    seed: info.seed,
    runId: info.runId,
    startedAt: info.startedAt.toISOString(),
    durationMs: Math.round(info.durationMs),
    requests,
    requestsByKey: { withKey, withoutKey: requests - withKey },
    rateLimitWaitMs: outcomes.reduce((max, o) => Math.max(max, o.waitedMsSoFar ?? 0), 0),
    options: info.options,
    keyUse: { mode: info.keyMode, ...(otherConsumption === undefined ? {} : { otherConsumption }) },
    ...verdictOf(requirements, runErrors, halted),
    requirements,
    observations,
    notTested: [...catalog.notTested],
    specCoverage: specCoverageOf(specMap.sentences, requirements),
    createdPetIds: createdIds,
    ...(halted === undefined ? {} : { halted }),
    runErrors,
  };
}

const SIGNAL_NUMBERS: Readonly<Record<StopSignal, 1 | 2 | 15>> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/** A shell's exit code for a process a signal ended: 128 + its number (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP). */
export function signalExitCode(signal: StopSignal): 129 | 130 | 143 {
  return (128 + SIGNAL_NUMBERS[signal]) as 129 | 130 | 143;
}

/**
 * Exit code of a run: 1 when a must-requirement failed (should-failures are warnings); else 2 when
 * the run itself went wrong (a suite could not load, a test broke), since then nothing can be
 * vouched for, or when it was halted (the target stopped answering, kept answering 429, the
 * deadline passed) before every must-requirement could be judged, since CI must not read "could
 * not tell" as a pass; else 0. A failure wins: it is a definite answer whatever else happened.
 * A run a signal stopped exits as a process that signal ended does (130 for SIGINT, 143 for
 * SIGTERM), whatever it found: the job was cancelled, and its report says what was judged.
 */
export function exitCodeOf(report: Report): 0 | 1 | 2 | 129 | 130 | 143 {
  const signal = report.halted?.reason === 'interrupted' ? report.halted.signal : undefined;
  if (signal !== undefined) return signalExitCode(signal);
  if (report.verdict === 'does-not-conform') return 1;
  if (report.runErrors.length > 0) return 2;
  const must = new Set(report.requirements.filter((r) => r.level === 'must').map((r) => r.id));
  return report.halted?.unjudged.some((id) => must.has(id)) === true ? 2 : 0;
}
