/**
 * The figures of `npm run mutate` as text: the console summary, the unexplained survivors ready to
 * triage, and README's block (between its mutation-score markers). Pure: main.ts gathers the data.
 */
import { figuresOf, scoreOf, type BlindSpotEntry, type Figures, type JudgedMutant, type Verdict } from './triage.js';
import type { MutantKey } from './keys.js';

export interface JudgedRun {
  commit: string;
  date: string;
  seed: number;
  deadlineSeconds: number;
  mutants: ReadonlyArray<{ mutant: JudgedMutant; verdict: Verdict }>;
  /** Wall time of the Stryker run, when measured. */
  wallSeconds?: number;
  /** Only the mutants a run still going (or stopped) had tested: its progress file, not its report. */
  partial?: boolean;
}

const percent = (x: number): string => `${(100 * x).toFixed(1)} %`;

export function perFile(run: JudgedRun): Array<{ file: string; figures: Figures }> {
  const files = [...new Set(run.mutants.map((m) => m.mutant.key.file))].sort();
  return files.map((file) => ({ file, figures: figuresOf(run.mutants.filter((m) => m.mutant.key.file === file).map((m) => m.verdict)) }));
}

/** How the killed mutants were told apart, from the runner's `[detection]` prefix. */
export function killedBy(run: JudgedRun): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { mutant, verdict } of run.mutants) {
    if (verdict.kind !== 'killed') continue;
    const how = /^\[([a-z-]+)\]/.exec(mutant.reason ?? '')?.[1] ?? 'unknown';
    counts[how] = (counts[how] ?? 0) + 1;
  }
  return counts;
}

const describeKey = (key: MutantKey): string => `${key.scope} ${key.mutator}: ${key.original} -> ${key.replacement}`;

/** A triage entry for the survivor, ready to paste into mutation/triage.yaml and complete. */
export function triageSnippet(key: MutantKey): string {
  const q = (s: string): string => JSON.stringify(s);
  return [
    `  - file: ${key.file}`,
    `    scope: ${q(key.scope)}`,
    `    mutator: ${key.mutator}`,
    `    original: ${q(key.original)}`,
    `    replacement: ${q(key.replacement)}`,
    `    class: equivalent # or room (with requirement:), opt-in (with optIn:), timeout; a blind spot: a check and a variant, then under blindSpots`,
    `    why: ""`,
  ].join('\n');
}

export function figuresLine(f: Figures): string {
  const judged = f.mutants - f.equivalent - f.room;
  return `mutation score ${percent(scoreOf(f))}: ${f.killed} killed of ${judged} (${f.mutants} mutants - ${f.equivalent} equivalent - ${f.room} inside the spec's room); not killed: ${f.timeout} timeouts explained, ${f.optIn} shown only by an opt-in input, ${f.unexplained} unexplained; ${f.ignored} left out by comment`;
}

export function consoleSummary(run: JudgedRun): string {
  const all = figuresOf(run.mutants.map((m) => m.verdict));
  const lines = [
    `Mutation testing of the reference server: commit ${run.commit}, ${run.date}, seed ${run.seed}, --deadline ${run.deadlineSeconds}${run.wallSeconds === undefined ? '' : `, ${(run.wallSeconds / 60).toFixed(1)} min`}${run.partial === true ? ' (PARTIAL: the mutants tested so far)' : ''}`,
    figuresLine(all),
    `killed by: ${Object.entries(killedBy(run)).map(([how, n]) => `${how} ${n}`).join(', ') || 'none'}`,
    'per file:',
    ...perFile(run).map(({ file, figures }) => `  ${file}: ${figuresLine(figures)}`),
  ];
  const spots = run.mutants.flatMap((m) => (m.verdict.kind === 'killed' && m.verdict.blindSpot !== undefined ? [{ m, spot: m.verdict.blindSpot }] : []));
  const open = run.mutants.filter((m) => m.verdict.kind === 'blind-spot-survives');
  if (spots.length > 0 || open.length > 0) {
    lines.push(`blind spots found: ${spots.length + open.length}, killed now: ${spots.length}`);
    for (const { m, spot } of spots) lines.push(`  killed  ${m.mutant.key.file}:${m.mutant.line} ${describeKey(m.mutant.key)}`, `          missed: ${spot.missed}`, `          check: ${spot.check}; variant: ${spot.variant}`);
    for (const m of open) lines.push(`  SURVIVES ${m.mutant.key.file}:${m.mutant.line} ${describeKey(m.mutant.key)} (${(m.verdict as { entry: BlindSpotEntry }).entry.missed})`);
  }
  const unclassified = run.mutants.filter((m) => m.verdict.kind === 'unclassified');
  if (unclassified.length > 0) {
    lines.push(`UNCLASSIFIED: ${unclassified.length} mutants not killed that mutation/triage.yaml does not explain:`);
    for (const { mutant } of unclassified) {
      lines.push(`  ${mutant.key.file}:${mutant.line} [${mutant.status}] ${describeKey(mutant.key)}${mutant.reason === undefined ? '' : ` (${mutant.reason})`}`);
    }
    lines.push('Triage entries to complete (mutation/triage.yaml, survivors:):', ...unclassified.map(({ mutant }) => triageSnippet(mutant.key)));
  }
  return lines.join('\n');
}

/** The page that shows the score (the README links to it): --readme writes its block. */
export const SCORE_PAGE = 'docs/self-accuracy.md';
export const README_BEGIN = '<!-- mutation-score:begin (written by npm run mutate -- --readme) -->';
export const README_END = '<!-- mutation-score:end -->';

/** README's block: the score, the class counts and the per-file table, with commit and date. */
export function readmeBlock(run: JudgedRun): string {
  const all = figuresOf(run.mutants.map((m) => m.verdict));
  const row = (name: string, f: Figures): string =>
    `| ${name} | ${f.mutants} | ${f.killed} | ${f.equivalent} | ${f.room} | ${f.optIn} | ${f.timeout} | ${f.unexplained} | ${percent(scoreOf(f))} |`;
  const killed = Object.entries(killedBy(run)).map(([how, n]) => `${n} by ${how.replace(/-/g, ' ')}`).join(', ');
  return [
    README_BEGIN,
    `${run.partial === true ? `**Partial**: ${all.mutants + all.ignored} mutants tested before the run was stopped. ` : ''}Measured on commit \`${run.commit}\`, ${run.date} (StrykerJS 9.6.1, seed ${run.seed}, \`--deadline ${run.deadlineSeconds}\`${run.wallSeconds === undefined ? '' : `, ${Math.round(run.wallSeconds / 60)} min`}): **mutation score ${percent(scoreOf(all))}**, ${all.killed} killed of ${all.mutants - all.equivalent - all.room} (${all.mutants} mutants, less ${all.equivalent} equivalent and ${all.room} inside the spec's room); killed ${killed}; ${all.ignored} left out by a comment that says why.`,
    '',
    '| file | mutants | killed | equivalent | inside the spec\'s room | opt-in input only | timeouts | unexplained | score |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...perFile(run).map(({ file, figures }) => row(file, figures)),
    row('all', all),
    README_END,
  ].join('\n');
}

/** README with its block replaced; undefined when the markers are missing. */
export function withReadmeBlock(readme: string, block: string): string | undefined {
  const begin = readme.indexOf(README_BEGIN);
  const end = readme.indexOf(README_END);
  if (begin < 0 || end < begin) return undefined;
  return readme.slice(0, begin) + block + readme.slice(end + README_END.length);
}
