/**
 * The kill criterion of `npm run mutate:exchanges`: a mutant is killed only when every one of its
 * runs fails a requirement of one of its target's sections.
 */
/** What the judgement needs of a run: how many exchanges the operator changed, and the sections of what failed. */
export interface JudgedRun {
  applied: number;
  error?: string;
  failing: readonly { section: string }[];
}

export type MutantStatus = 'killed' | 'unstable' | 'survived' | 'failed-elsewhere' | 'unreached';

/** Whether a run fails a requirement of the mutant's sections. */
const killedBy = (sections: readonly string[], run: JudgedRun): boolean => run.failing.some((f) => sections.includes(f.section));

/**
 * unreached: no run's operator changed an exchange; unstable: some runs killed it, not all;
 * failed-elsewhere: runs failed, none on its sections; survived: no run failed.
 */
export function statusOf(mutant: { sections: readonly string[] }, runs: readonly JudgedRun[]): MutantStatus {
  if (runs.every((r) => r.applied === 0 && r.error === undefined)) return 'unreached';
  const kills = runs.filter((r) => killedBy(mutant.sections, r)).length;
  if (kills === runs.length) return 'killed';
  if (kills > 0) return 'unstable';
  return runs.some((r) => r.failing.length > 0) ? 'failed-elsewhere' : 'survived';
}
