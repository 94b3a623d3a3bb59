/**
 * The triage of `npm run mutate` (mutation/triage.yaml) and the figures it yields. Every mutant the
 * runs did not kill must match a triage entry: equivalent (no behaviour a client can see
 * changes), inside the spec's room (the mutated server still conforms; the entry names the
 * requirement whose catalog interpretation allows it), a timeout explained, or not killed because
 * only an input the run sends on request shows it (`opt-in`: counted against the score). Blind
 * spots found are listed apart, each with the check and the variant that now kill it, and must
 * stay killed.
 */
import type { MutantKey } from './keys.js';

export type SurvivorClass = 'equivalent' | 'room' | 'timeout' | 'opt-in';

/** A triage entry matches mutants by key; a field left out matches any value. */
export interface KeyPattern {
  file: string;
  scope: string;
  mutator: string;
  original?: string;
  replacement?: string;
}

export interface SurvivorEntry extends KeyPattern {
  class: SurvivorClass;
  why: string;
  /** For `room`: the requirement whose interpretation (schemas/requirements.yaml) allows it. */
  requirement?: string;
  /** For `opt-in`: the input that would show it, and the flag (existing or planned) that sends it. */
  optIn?: string;
}

export interface BlindSpotEntry extends KeyPattern {
  /** What the suite missed. */
  missed: string;
  /** The check (requirement and what it now looks at) that kills it. */
  check: string;
  /** The variant of fixtures/variants/ that reproduces it. */
  variant: string;
}

export interface Triage {
  survivors: SurvivorEntry[];
  blindSpots: BlindSpotEntry[];
}

/** Stryker's statuses, as its results carry them. */
export type StrykerStatus = 'Killed' | 'Survived' | 'NoCoverage' | 'Timeout' | 'RuntimeError' | 'CompileError' | 'Ignored' | 'Pending';

export interface JudgedMutant {
  key: MutantKey;
  line: number;
  status: StrykerStatus;
  /** Stryker's reason: the killing run's summary, a timeout's, an ignore comment's. */
  reason?: string;
}

export type Verdict =
  | { kind: 'killed'; blindSpot?: BlindSpotEntry }
  | { kind: 'ignored' }
  | { kind: 'classified'; entry: SurvivorEntry }
  | { kind: 'blind-spot-survives'; entry: BlindSpotEntry }
  | { kind: 'unclassified' };

/** A long text is known by the digest of the whole (keys.ts compactText): its head may be cut anywhere. */
const digestOf = (text: string): string | undefined => / … #([0-9a-f]{8})$/.exec(text)?.[1];
const sameText = (pattern: string | undefined, text: string): boolean =>
  pattern === undefined || pattern === text || (digestOf(pattern) !== undefined && digestOf(pattern) === digestOf(text));

export const matches = (pattern: KeyPattern, key: MutantKey): boolean =>
  pattern.file === key.file &&
  pattern.scope === key.scope &&
  pattern.mutator === key.mutator &&
  sameText(pattern.original, key.original) &&
  sameText(pattern.replacement, key.replacement);

export function verdictOf(mutant: JudgedMutant, triage: Triage): Verdict {
  const blindSpot = triage.blindSpots.find((b) => matches(b, mutant.key));
  if (mutant.status === 'Killed') return blindSpot === undefined ? { kind: 'killed' } : { kind: 'killed', blindSpot };
  if (mutant.status === 'Ignored') return { kind: 'ignored' };
  if (blindSpot !== undefined) return { kind: 'blind-spot-survives', entry: blindSpot };
  const entry = triage.survivors.find((s) => matches(s, mutant.key) && (s.class === 'timeout') === (mutant.status === 'Timeout'));
  return entry === undefined ? { kind: 'unclassified' } : { kind: 'classified', entry };
}

export interface Figures {
  mutants: number;
  killed: number;
  equivalent: number;
  room: number;
  timeout: number;
  /** Shown only by an input the run sends on request: not killed, counted against the score. */
  optIn: number;
  /** Not killed and not explained: blind spots still open, and survivors the triage does not know. */
  unexplained: number;
  /** Left out by a `Stryker disable` comment, with its reason: not counted in `mutants`. */
  ignored: number;
}

/** Mutation score: killed / (mutants - equivalent - inside the spec's room). */
export const scoreOf = (f: Figures): number => {
  const judged = f.mutants - f.equivalent - f.room;
  return judged === 0 ? 1 : f.killed / judged;
};

export function figuresOf(verdicts: readonly Verdict[]): Figures {
  const f: Figures = { mutants: 0, killed: 0, equivalent: 0, room: 0, timeout: 0, optIn: 0, unexplained: 0, ignored: 0 };
  for (const v of verdicts) {
    if (v.kind === 'ignored') {
      f.ignored += 1;
      continue;
    }
    f.mutants += 1;
    if (v.kind === 'killed') f.killed += 1;
    else if (v.kind === 'classified') f[v.entry.class === 'opt-in' ? 'optIn' : v.entry.class] += 1;
    else f.unexplained += 1;
  }
  return f;
}

/** Triage entries that matched no mutant of this run: stale after a change, to be removed. */
export function unusedEntries(triage: Triage, keys: readonly MutantKey[]): Array<SurvivorEntry | BlindSpotEntry> {
  return [...triage.survivors, ...triage.blindSpots].filter((entry) => !keys.some((key) => matches(entry, key)));
}

/** Problems with the triage file itself: a `room` entry without a known requirement, an entry without its reason. */
export function triageProblems(triage: Triage, requirementIds: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  for (const s of triage.survivors) {
    const where = `${s.file} ${s.scope} ${s.mutator} ${s.original ?? '*'}`;
    if (!['equivalent', 'room', 'timeout', 'opt-in'].includes(s.class)) problems.push(`${where}: class must be equivalent, room, timeout or opt-in, not ${String(s.class)}`);
    if (s.class === 'opt-in' && !s.optIn) problems.push(`${where}: opt-in names the input and the flag that sends it (optIn)`);
    if (typeof s.why !== 'string' || s.why.trim() === '') problems.push(`${where}: no why`);
    if (s.class === 'room' && (s.requirement === undefined || !requirementIds.has(s.requirement))) {
      problems.push(`${where}: inside the spec's room needs the requirement whose interpretation allows it (got ${s.requirement ?? 'none'})`);
    }
  }
  for (const b of triage.blindSpots) {
    const where = `${b.file} ${b.scope} ${b.mutator} ${b.original ?? '*'}`;
    if (!b.check || !b.variant || !b.missed) problems.push(`${where}: a blind spot names what was missed, the check and the variant`);
  }
  return problems;
}
