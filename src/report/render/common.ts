/**
 * Helpers shared by the report renderers. Everything here reads only the Report, so a saved
 * report.json renders the same way years later.
 */
import type { Evidence, ExchangeEvidence, RequirementResult, RequirementStatus, RestsOn, SentenceCoverage, SequenceFailure } from '../types.js';
import { compareSections } from '../../catalog.js';
import { UNTESTABLE_KIND_LABELS, type UntestableKind } from '../../spec-map.js';

/**
 * Headings of the spec's sections (interface description 1.0.0). The report carries section
 * numbers only; a number missing here still renders, just without a heading.
 */
const SECTION_TITLES: Readonly<Record<string, string>> = {
  '1': 'What the service does',
  '2': 'Resources and their fields',
  '3': 'States and transitions',
  '4': 'Endpoints',
  '4.1': 'List animals',
  '4.2': 'Add an animal',
  '4.3': 'Get an animal (deprecated)',
  '4.4': 'Orders listing',
  '5': 'Authentication',
  '6': 'Events',
  '7': 'Errors',
  '8': 'Limits',
  '9': 'Versioning',
};

export function sectionHeading(section: string): string {
  const title = SECTION_TITLES[section];
  return title === undefined ? `§ ${section}` : `§ ${section} ${title}`;
}

export interface SectionGroup {
  section: string;
  requirements: RequirementResult[];
}

/** Requirements by section, in spec order, whatever order the report lists them in. */
export function groupBySection(requirements: readonly RequirementResult[]): SectionGroup[] {
  const groups = new Map<string, RequirementResult[]>();
  for (const r of requirements) groups.set(r.section, [...(groups.get(r.section) ?? []), r]);
  return [...groups.entries()]
    .sort(([a], [b]) => compareSections(a, b))
    .map(([section, reqs]) => ({ section, requirements: reqs }));
}

/** A should-requirement that failed is a warning: the run still passes. */
export function isWarning(r: RequirementResult): boolean {
  return r.level === 'should' && r.status === 'fail';
}

export const STATUS_WORD: Readonly<Record<RequirementStatus, string>> = {
  pass: 'PASS',
  fail: 'FAIL',
  inconclusive: 'INCONCLUSIVE',
  'not-exercised': 'NOT EXERCISED',
};

/** "not exercised: <why>", without saying it twice when the reason already does. */
export function notExercisedText(reason: string | undefined): string {
  if (reason === undefined) return 'not exercised';
  return /^not exercised/i.test(reason) ? reason : `not exercised: ${reason}`;
}

/** The verdict word of one requirement; should-failures say WARNING so nobody reads them as fatal. */
export function verdictWord(r: RequirementResult): string {
  return isWarning(r) ? 'WARNING' : STATUS_WORD[r.status];
}

export function violations(r: RequirementResult): Evidence[] {
  return r.evidence.filter((e) => e.kind === 'violation');
}

/** The one line that says why a requirement got its verdict. */
export function shortReason(r: RequirementResult): string {
  if (r.status === 'fail') {
    const v = violations(r);
    const first = v[0]?.message ?? r.reason ?? (r.property === undefined ? 'failed' : 'property failed');
    return v.length > 1 ? `${first} (+${v.length - 1} more)` : first;
  }
  if (r.status === 'pass' && r.restsOn !== undefined) return restsOnLine(r.restsOn);
  return r.reason ?? '';
}

/** What a pass rests on, in a few words: "rests on 12 exchanges (3 fixed examples and 20 random runs)". */
export function restsOnLine(restsOn: RestsOn): string {
  const cases = restsOn.cases === undefined || restsOn.detail === undefined ? '' : ` (${restsOn.detail})`;
  return `rests on ${restsOn.exchanges} exchange${restsOn.exchanges === 1 ? '' : 's'}${cases}`;
}

export function requestLine(ex: ExchangeEvidence): string {
  return `${ex.request.method} ${ex.request.url}`;
}

/** The response status, or why there was none (timeout, connection reset). */
export function responseLine(ex: ExchangeEvidence): string {
  if (ex.response !== undefined) return String(ex.response.status);
  if (ex.error !== undefined) return `no response (${ex.error.code}: ${ex.error.message})`;
  return 'no response';
}

/** Evidence items that carry an exchange, in report order. */
export function exchangesOf(evidence: readonly Evidence[]): Array<Evidence & { exchange: ExchangeEvidence }> {
  return evidence.filter((e): e is Evidence & { exchange: ExchangeEvidence } => e.exchange !== undefined);
}

/** The exchanges behind some evidence, each once: several violations often share one response. */
export function distinctExchanges(evidence: readonly Evidence[]): ExchangeEvidence[] {
  const seen = new Set<number>();
  return exchangesOf(evidence)
    .map((e) => e.exchange)
    .filter((ex) => {
      if (seen.has(ex.seq)) return false;
      seen.add(ex.seq);
      return true;
    });
}

/**
 * Control characters (except tab, newline, carriage return), lone surrogates and the two
 * noncharacters U+FFFE/U+FFFF: illegal in XML 1.0, parse errors in HTML and invisible in Markdown.
 * Hostile servers can put any of them in a body.
 */
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Replaces unprintable characters by a visible \uXXXX, so evidence stays readable and valid. */
export function visible(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}

/** Cuts long text, saying how much was left out (report.json keeps the rest). */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  // Never cut a surrogate pair in half: the half would become an unprintable lone surrogate.
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}… (${text.length - end} more characters in report.json)`;
}

export function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/** Durations for people: "850 ms", "12.4 s", "3 min 05 s". */
export function humanDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const totalSeconds = Math.round(ms / 1000);
  return `${Math.floor(totalSeconds / 60)} min ${String(totalSeconds % 60).padStart(2, '0')} s`;
}

/** Why a sentence is not testable, as the reports say it: "<kind label>: <explanation>". */
export function untestableText(sentence: SentenceCoverage): string {
  const u = sentence.untestable;
  return u === undefined ? '' : `${UNTESTABLE_KIND_LABELS[u.kind]}: ${u.explanation}`;
}

/**
 * The appendix's opening lines: how many sentences the map lists, how many requirements check, why
 * the others cannot be, and how this run's verdicts fall on the checked ones.
 */
export function specCoverageSummary(coverage: readonly SentenceCoverage[]): string[] {
  const checked = coverage.filter((s) => s.requirements !== undefined);
  const kinds = new Map<UntestableKind, number>();
  for (const s of coverage) if (s.untestable !== undefined) kinds.set(s.untestable.kind, (kinds.get(s.untestable.kind) ?? 0) + 1);
  const why = [...kinds.entries()].sort(([, a], [, b]) => b - a).map(([kind, n]) => `${n} ${UNTESTABLE_KIND_LABELS[kind]}`);
  const statuses = (s: SentenceCoverage): RequirementStatus[] => (s.requirements ?? []).map((r) => r.status);
  const failed = checked.filter((s) => statuses(s).includes('fail')).length;
  const passed = checked.filter((s) => statuses(s).every((st) => st === 'pass')).length;
  const untested = coverage.length - checked.length;
  return [
    `${coverage.length} sentences of the specification's sections 1 to 9: ${checked.length} checked by requirements, ${untested} not testable by a client${why.length > 0 ? ` (${why.join(', ')})` : ''}.`,
    `In this run, of the ${checked.length} checked: ${passed} with every requirement passed, ${failed} with a failed requirement (a should-requirement's failure is a warning), ${checked.length - passed - failed} with a requirement inconclusive or not exercised and none failed.`,
  ];
}

/** Which sequence failed and how to send it again: "fixed sequence read-after-write (shrunk), 4 steps (seed …); replay sends it again". */
export function sequenceDescription(s: SequenceFailure): string {
  const path = s.path === '' ? '' : `, path ${s.path}`;
  return `${s.label}, ${s.steps.length} step${s.steps.length === 1 ? '' : 's'} (seed ${s.seed}${path}; ${s.sequencesRun} sequence${s.sequencesRun === 1 ? '' : 's'} run); replay sends it again`;
}

/** The line that introduces a failing sequence's steps in the text formats. */
export function sequenceHeadline(s: SequenceFailure): string {
  return `Failing sequence: ${sequenceDescription(s)}`;
}

/**
 * A failing sequence as plain numbered steps, each with what was sent, what came back, what the
 * model expected, the violations of the step that broke it and a curl line per request: the
 * console and junit.xml show these lines as they are.
 */
export function sequenceText(s: SequenceFailure): string[] {
  const lines = [sequenceHeadline(s)];
  for (const step of s.steps) {
    const pad = ' '.repeat(String(step.n).length + 2);
    lines.push(`${step.n}. ${step.operation}: ${step.sent}`, `${pad}received: ${step.received}`, `${pad}expected: ${step.expected}`);
    for (const v of step.violations ?? []) lines.push(`${pad}VIOLATION: ${v}`);
    for (const curl of step.curl) lines.push(`${pad}reproduce: ${curl}`);
  }
  return lines;
}
