/**
 * The one verdict line of a run, in the same words everywhere: the console, summary.md, the HTML
 * page, junit.xml (a testsuite property), EARL, and report.json itself (`verdictLine`).
 *
 *   CONFORMS: 31 of 33 requirements pass; not exercised: RATE-004 (no --plan given), RATE-007 (opt in with …)
 *   DOES NOT CONFORM: 3 of 33 requirements fail (2 must, 1 should); …
 *   NOT VERIFIED: 2 requirements inconclusive (CREATE-004, AUTH-004); 29 of 33 pass; …
 *
 * A replay's report (replayOf) gets a line of its own, on the requirements it replayed and nothing else:
 *
 *   REPLAY, STILL FAILING: 1 still failing (RATE-002) of 1 replayed; 52 exchanges re-sent; re-run beside them: 3 pass (GET-002, …); 31 not replayed
 *
 * The console's last word is the same line made to fit one line of CONSOLE_COLUMNS (verdictLineWithin):
 * each level of detail drops what the console shows elsewhere: the hint of a not-exercised requirement
 * (its row carries its whole reason), then the ids of lists (the counts line below has the numbers).
 */
import { NOT_REPLAYED } from '../conformance/reasons.js';
import { REPLAY_VERDICT_WORDS, REPLAY_WORDS, REPLAYED_STATUSES } from './replay-banner.js';
import type { ReplayOf, Report, RequirementResult, RequirementStatus } from './types.js';

export const VERDICT_WORDS: Readonly<Record<Report['verdict'], string>> = {
  conforms: 'CONFORMS',
  'does-not-conform': 'DOES NOT CONFORM',
  'not-verified': 'NOT VERIFIED',
};

/** Beyond this many ids a list is only counted, so the line stays a line (report.json lists them all). */
const MAX_IDS = 6;

type Facts = Pick<Report, 'verdict' | 'summary' | 'notExercised' | 'runErrors' | 'halted' | 'replayOf'> & { requirements: readonly RequirementResult[] };

/** The console's width, which its verdict line fits in. */
export const CONSOLE_COLUMNS = 100;

/**
 * How much the line says: 'full' everything; 'flags' names only the flag each not-exercised choice
 * turns on; 'ids' only the ids; 'counts' only how many; 'terse' the verdict's own parts, shortest words.
 */
type Detail = 'full' | 'flags' | 'ids' | 'counts' | 'terse';
const DETAILS: readonly Detail[] = ['full', 'flags', 'ids', 'counts', 'terse'];

function ids(list: readonly string[]): string {
  return list.length <= MAX_IDS ? list.join(', ') : `${list.length} requirements`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * The part of a not-exercised reason that says how to change the choice: the last clause naming
 * a flag ("opt in with --exhaust-daily-quota …"), else the whole reason.
 */
export function choiceOf(reason: string): string {
  const clauses = reason.split('; ');
  return [...clauses].reverse().find((c) => c.includes('--')) ?? reason;
}

/** The flag a not-exercised reason names (the one that would exercise the requirement), if any. */
function flagOf(reason: string): string | undefined {
  return /--[a-z][a-z-]*/.exec(choiceOf(reason))?.[0];
}

function notExercisedPart(notExercised: Facts['notExercised'], detail: Detail): string | undefined {
  if (notExercised.length === 0 || detail === 'terse') return undefined;
  if (detail === 'counts' || (detail === 'ids' && notExercised.length > MAX_IDS)) return `${plural(notExercised.length, 'requirement')} not exercised`;
  if (detail === 'ids') return `not exercised: ${ids(notExercised.map((n) => n.id))}`;
  // Requirements left out by the same choice are named together: --only can leave out thirty.
  const byChoice = new Map<string, string[]>();
  for (const n of notExercised) {
    const choice = detail === 'full' ? choiceOf(n.reason) : (flagOf(n.reason) ?? '');
    byChoice.set(choice, [...(byChoice.get(choice) ?? []), n.id]);
  }
  return `not exercised: ${[...byChoice].map(([choice, list]) => (choice === '' ? ids(list) : `${ids(list)} (${choice})`)).join(', ')}`;
}

/** "N of M requirements", or "N of M" in the tersest line. */
function ofTotal(n: number, total: number, detail: Detail): string {
  return detail === 'terse' ? `${n} of ${total}` : `${n} of ${plural(total, 'requirement')}`;
}

function failedPart(requirements: Facts['requirements'], detail: Detail): string {
  const failed = requirements.filter((r) => r.status === 'fail');
  const must = failed.filter((r) => r.level === 'must').length;
  return `${ofTotal(failed.length, requirements.length, detail)} fail (${must} must, ${failed.length - must} should)`;
}

function inconclusivePart(requirements: Facts['requirements'], detail: Detail): string | undefined {
  const list = requirements.filter((r) => r.status === 'inconclusive').map((r) => r.id);
  if (list.length === 0) return undefined;
  if (detail === 'terse') return `${list.length} inconclusive`;
  const named = list.length <= MAX_IDS && detail !== 'counts';
  return `${plural(list.length, 'requirement')} inconclusive${named ? ` (${ids(list)})` : ''}`;
}

function brokenPart(facts: Facts, detail: Detail): string | undefined {
  const parts: string[] = [];
  const halted = facts.halted;
  const terse = detail === 'terse';
  if (halted?.signal !== undefined) parts.push(terse ? `stopped by ${halted.signal}` : `the run was stopped by ${halted.signal}`);
  else if (halted !== undefined) parts.push(terse ? `halted (${halted.reason})` : `the run was halted (${halted.reason})`);
  if (facts.runErrors.length > 0) parts.push(terse ? plural(facts.runErrors.length, 'run error') : `the run reported ${plural(facts.runErrors.length, 'error')}`);
  return parts.length === 0 ? undefined : parts.join(', ');
}

/** The words of the verdict line: a replay's own, else the run's verdict. */
export function verdictWords(facts: Pick<Report, 'verdict' | 'replayOf'>): string {
  return (facts.replayOf === undefined ? VERDICT_WORDS : REPLAY_VERDICT_WORDS)[facts.verdict];
}

/**
 * A replay's line: what became of each requirement it replayed (named at every level: they are
 * what the replay is about), what it re-sent, and the requirements re-run only beside them (their
 * senders), apart, since the replay judges none of them.
 */
function replayLineAt(facts: Facts, of: ReplayOf, detail: Detail): string {
  const replayed = new Set(of.requirements);
  const idsWith = (status: RequirementStatus, among: (r: RequirementResult) => boolean): string[] => facts.requirements.filter((r) => among(r) && r.status === status).map((r) => r.id);
  const outcomes = REPLAYED_STATUSES.flatMap((status) => {
    const list = idsWith(status, (r) => replayed.has(r.id));
    return list.length === 0 ? [] : [`${list.length} ${REPLAY_WORDS[status]} (${ids(list)})`];
  });
  const beside = (['fail', 'inconclusive', 'pass'] as const).flatMap((status) => {
    const list = idsWith(status, (r) => !replayed.has(r.id));
    if (list.length === 0) return [];
    return [detail === 'full' || detail === 'flags' ? `${list.length} ${status} (${ids(list)})` : `${list.length} ${status}`];
  });
  const resent = of.exchangesResent;
  const notReplayed = facts.requirements.filter((r) => r.reason === NOT_REPLAYED).length;
  const wide = detail !== 'counts' && detail !== 'terse';
  const parts = [
    `${outcomes.join(', ')} of ${of.requirements.length} replayed`,
    resent === undefined || detail === 'terse' ? undefined : wide ? `${plural(resent, 'exchange')} re-sent` : `${resent} re-sent`,
    beside.length === 0 || !wide ? undefined : `re-run beside them: ${beside.join(', ')}`,
    brokenPart(facts, detail),
    notReplayed === 0 || detail === 'terse' ? undefined : `${notReplayed} not replayed`,
  ].filter((p): p is string => p !== undefined);
  return `${verdictWords(facts)}: ${parts.join('; ')}`;
}

function lineAt(facts: Facts, detail: Detail): string {
  if (facts.replayOf !== undefined) return replayLineAt(facts, facts.replayOf, detail);
  const s = facts.summary;
  const total = facts.requirements.length;
  const passing = `${ofTotal(s.pass, total, detail)} pass`;
  const warnings = s.warnings === 0 ? undefined : detail === 'terse' ? plural(s.warnings, 'warning') : `${plural(s.warnings, 'warning')} (should-requirements that fail)`;
  let head: Array<string | undefined>;
  switch (facts.verdict) {
    case 'conforms':
      head = [passing, warnings];
      break;
    case 'does-not-conform':
      head = [failedPart(facts.requirements, detail), inconclusivePart(facts.requirements, detail), brokenPart(facts, detail)];
      break;
    case 'not-verified':
      head = [inconclusivePart(facts.requirements, detail), brokenPart(facts, detail), passing, warnings];
      break;
  }
  const parts = [...head, notExercisedPart(facts.notExercised, detail)].filter((p): p is string => p !== undefined);
  return `${VERDICT_WORDS[facts.verdict]}: ${parts.join('; ')}`;
}

export function verdictLine(facts: Facts): string {
  return lineAt(facts, 'full');
}

/**
 * The verdict line with as much detail as fits in `columns`; a line that fits at no level (a run
 * with every kind of trouble at once) keeps its start, cut with an ellipsis.
 */
export function verdictLineWithin(facts: Facts, columns: number): string {
  for (const detail of DETAILS) {
    const line = lineAt(facts, detail);
    if (line.length <= columns) return line;
  }
  return `${lineAt(facts, 'terse').slice(0, columns - 1)}…`;
}
