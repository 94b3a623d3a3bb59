/**
 * Comparison of two reports (`petstore-conformance diff old new`): what regressed, what was
 * fixed, what changed level or evidence, and which facts of the runs differ (target, tool,
 * spec), since a difference there can explain every other line.
 *
 * Statuses are compared as plain strings: the vocabulary of report.json may grow ('skipped'
 * became 'not-exercised'), and only 'pass', 'fail' and 'inconclusive' carry a meaning here.
 */
import type { Level, Report, RequirementResult } from './types.js';

export interface StatusChange {
  id: string;
  title: string;
  section: string;
  /** Level in the new report (the old one when the requirement is gone). */
  level: Level;
  /** undefined: the requirement is absent from that report. */
  before: string | undefined;
  after: string | undefined;
  /** Why the new status: its first violation when failing, else its reason; '' when none. */
  detail: string;
}

export interface EvidenceChange {
  id: string;
  level: Level;
  /** Violation messages only in the old report, and only in the new one. */
  gone: string[];
  added: string[];
}

export interface ContextChange {
  field: string;
  before: string;
  after: string;
}

export interface ReportDiff {
  /** pass → fail. Should-requirements among them are warnings, not regressions of the gate. */
  regressed: StatusChange[];
  /** pass → inconclusive: no longer shown to conform, without being shown not to. */
  lost: StatusChange[];
  /** fail → pass. */
  fixed: StatusChange[];
  /** Every other change of status, requirements added or removed included. */
  otherStatus: StatusChange[];
  levelChanged: Array<{ id: string; before: Level; after: Level }>;
  /** Requirements failing in both reports whose violations read differently. */
  evidenceChanged: EvidenceChange[];
  context: ContextChange[];
}

function violationMessages(r: RequirementResult): string[] {
  return [...new Set(r.evidence.filter((e) => e.kind === 'violation').map((e) => e.message))];
}

function contextOf(report: Report): Record<string, string> {
  return {
    'target.baseUrl': report.target.embedded ? 'the embedded reference server' : report.target.baseUrl,
    'target.plan': report.target.plan ?? '(none)',
    'target.keyFingerprint': report.target.keyFingerprint ?? '(none)',
    tool: `${report.tool.name} ${report.tool.version}`,
    spec: `${report.spec.title} ${report.spec.version}`,
    // A dedicated key fails a server for consumption a shared key only records: a mode change explains a RATE-002 change.
    'keyUse.mode': report.keyUse?.mode ?? 'shared',
    'options.readOnly': String(report.options.readOnly),
    'options.only': report.options.only.length === 0 ? '(all)' : report.options.only.join(','),
  };
}

export function diffReports(before: Report, after: Report): ReportDiff {
  const diff: ReportDiff = { regressed: [], lost: [], fixed: [], otherStatus: [], levelChanged: [], evidenceChanged: [], context: [] };
  const old = new Map(before.requirements.map((r) => [r.id, r]));
  const now = new Map(after.requirements.map((r) => [r.id, r]));
  const ids = [...new Set([...old.keys(), ...now.keys()])];
  for (const id of ids) {
    const a = old.get(id);
    const b = now.get(id);
    const known = (b ?? a) as RequirementResult;
    const detail = b === undefined ? '' : (violationMessages(b)[0] ?? b.reason ?? '');
    const change: StatusChange = { id, title: known.title, section: known.section, level: known.level, before: a?.status, after: b?.status, detail };
    if (a !== undefined && b !== undefined && a.level !== b.level) diff.levelChanged.push({ id, before: a.level, after: b.level });
    if (change.before === change.after) {
      if (a !== undefined && b !== undefined && b.status === 'fail') {
        const was = violationMessages(a);
        const is = violationMessages(b);
        const gone = was.filter((m) => !is.includes(m));
        const added = is.filter((m) => !was.includes(m));
        if (gone.length > 0 || added.length > 0) diff.evidenceChanged.push({ id, level: b.level, gone, added });
      }
      continue;
    }
    if (change.before === 'pass' && change.after === 'fail') diff.regressed.push(change);
    else if (change.before === 'pass' && change.after === 'inconclusive') diff.lost.push(change);
    else if (change.before === 'fail' && change.after === 'pass') diff.fixed.push(change);
    else diff.otherStatus.push(change);
  }
  const was = contextOf(before);
  const is = contextOf(after);
  for (const field of Object.keys(is)) {
    const x = was[field] ?? '';
    const y = is[field] ?? '';
    if (x !== y) diff.context.push({ field, before: x, after: y });
  }
  return diff;
}

/**
 * Why two reports cannot be compared, or undefined when they can. A replay re-runs only the
 * failing requirements of a report: set against a run, every requirement it did not replay would
 * read as a change, and "fixed" would be a replay's claim taken for a run's.
 */
export function incomparable(before: Report, after: Report): string | undefined {
  const kind = (r: Report): string => (r.replayOf === undefined ? 'a run' : `a replay (of report ${r.replayOf.digest.slice(0, 12)})`);
  if ((before.replayOf === undefined) === (after.replayOf === undefined)) return undefined;
  return `cannot compare ${kind(before)} with ${kind(after)}: diff two runs, or two replays`;
}

/** A must-requirement went from pass to fail: what a regression gate fails on (should ones are warnings). */
export function hasRegression(diff: ReportDiff): boolean {
  return diff.regressed.some((c) => c.level === 'must');
}

/** Exit code of `diff`: 1 on a must regression, else 0. */
export function diffExitCode(diff: ReportDiff): 0 | 1 {
  return hasRegression(diff) ? 1 : 0;
}
