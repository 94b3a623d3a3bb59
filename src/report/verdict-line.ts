/**
 * The one verdict line of a run, in the same words everywhere: the console, summary.md, the HTML
 * page, junit.xml (a testsuite property), EARL, and report.json itself (`verdictLine`).
 *
 *   CONFORMS: 31 of 33 requirements pass; not exercised: RATE-004 (no --plan given), RATE-007 (opt in with …)
 *   DOES NOT CONFORM: 3 of 33 requirements fail (2 must, 1 should); …
 *   NOT VERIFIED: 2 requirements inconclusive (CREATE-004, AUTH-004); 29 of 33 pass; …
 */
import type { Report, RequirementResult } from './types.js';

export const VERDICT_WORDS: Readonly<Record<Report['verdict'], string>> = {
  conforms: 'CONFORMS',
  'does-not-conform': 'DOES NOT CONFORM',
  'not-verified': 'NOT VERIFIED',
};

/** Beyond this many ids a list is only counted, so the line stays a line (report.json lists them all). */
const MAX_IDS = 6;

type Facts = Pick<Report, 'verdict' | 'summary' | 'notExercised' | 'runErrors' | 'halted'> & { requirements: readonly RequirementResult[] };

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

function notExercisedPart(notExercised: Facts['notExercised']): string | undefined {
  if (notExercised.length === 0) return undefined;
  // Requirements left out by the same choice are named together: --only can leave out thirty.
  const byChoice = new Map<string, string[]>();
  for (const n of notExercised) {
    const choice = choiceOf(n.reason);
    byChoice.set(choice, [...(byChoice.get(choice) ?? []), n.id]);
  }
  return `not exercised: ${[...byChoice].map(([choice, list]) => `${ids(list)} (${choice})`).join(', ')}`;
}

function failedPart(requirements: Facts['requirements']): string {
  const failed = requirements.filter((r) => r.status === 'fail');
  const must = failed.filter((r) => r.level === 'must').length;
  return `${failed.length} of ${plural(requirements.length, 'requirement')} fail (${must} must, ${failed.length - must} should)`;
}

function inconclusivePart(requirements: Facts['requirements']): string | undefined {
  const list = requirements.filter((r) => r.status === 'inconclusive').map((r) => r.id);
  if (list.length === 0) return undefined;
  return `${plural(list.length, 'requirement')} inconclusive${list.length <= MAX_IDS ? ` (${ids(list)})` : ''}`;
}

function brokenPart(facts: Facts): string | undefined {
  const parts: string[] = [];
  const halted = facts.halted;
  if (halted?.signal !== undefined) parts.push(`the run was stopped by ${halted.signal}`);
  else if (halted !== undefined) parts.push(`the run was halted (${halted.reason})`);
  if (facts.runErrors.length > 0) parts.push(`the run reported ${plural(facts.runErrors.length, 'error')}`);
  return parts.length === 0 ? undefined : parts.join(', ');
}

export function verdictLine(facts: Facts): string {
  const s = facts.summary;
  const total = facts.requirements.length;
  const passing = `${s.pass} of ${plural(total, 'requirement')} pass`;
  const warnings = s.warnings > 0 ? `${plural(s.warnings, 'warning')} (should-requirements that fail)` : undefined;
  let head: Array<string | undefined>;
  switch (facts.verdict) {
    case 'conforms':
      head = [passing, warnings];
      break;
    case 'does-not-conform':
      head = [failedPart(facts.requirements), inconclusivePart(facts.requirements), brokenPart(facts)];
      break;
    case 'not-verified':
      head = [inconclusivePart(facts.requirements), brokenPart(facts), passing, warnings];
      break;
  }
  const parts = [...head, notExercisedPart(facts.notExercised)].filter((p): p is string => p !== undefined);
  return `${VERDICT_WORDS[facts.verdict]}: ${parts.join('; ')}`;
}
