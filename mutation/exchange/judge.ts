/**
 * The kill criterion of `npm run mutate:exchanges`: a mutant is killed only when every one of its
 * runs fails a requirement of one of its target's sections.
 */
import type { ExchangeMutant } from './mutants.js';
import type { LayerRun } from './run.js';

export type MutantStatus = 'killed' | 'unstable' | 'survived' | 'failed-elsewhere' | 'unreached';

/** Whether a run fails a requirement of the mutant's sections. */
const killedBy = (mutant: ExchangeMutant, run: LayerRun): boolean => run.failing.some((f) => mutant.sections.includes(f.section));

/**
 * unreached: no run's operator changed an exchange; unstable: some runs killed it, not all;
 * failed-elsewhere: runs failed, none on its sections; survived: no run failed.
 */
export function statusOf(mutant: ExchangeMutant, runs: readonly LayerRun[]): MutantStatus {
  if (runs.every((r) => r.applied === 0 && r.error === undefined)) return 'unreached';
  const kills = runs.filter((r) => killedBy(mutant, r)).length;
  if (kills === runs.length) return 'killed';
  if (kills > 0) return 'unstable';
  return runs.some((r) => r.failing.length > 0) ? 'failed-elsewhere' : 'survived';
}
