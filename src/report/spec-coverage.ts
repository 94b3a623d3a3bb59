/**
 * The report's specification coverage: each sentence of the map with this run's status of the
 * requirements that check it. Statuses are copied from the requirement results, so whatever
 * changes a status after the build (a halt) recomputes this with restatus().
 */
import type { SpecSentence } from '../spec-map.js';
import type { RequirementResult, SentenceCoverage } from './types.js';

export function specCoverageOf(sentences: readonly SpecSentence[], requirements: readonly RequirementResult[]): SentenceCoverage[] {
  const status = new Map(requirements.map((r) => [r.id, r.status]));
  return sentences.map(({ requirements: ids, ...rest }) => ({
    ...rest,
    ...(ids === undefined || ids.length === 0
      ? {}
      : {
          requirements: ids.map((id) => {
            const found = status.get(id);
            if (found === undefined) throw new Error(`the specification map names ${id}, which the report does not have`);
            return { id, status: found };
          }),
        }),
  }));
}

/** The same sentences with the statuses `requirements` now have. */
export function restatus(coverage: readonly SentenceCoverage[], requirements: readonly RequirementResult[]): SentenceCoverage[] {
  return specCoverageOf(
    coverage.map(({ requirements: checked, ...rest }) => ({ ...rest, ...(checked === undefined ? {} : { requirements: checked.map((c) => c.id) }) })),
    requirements,
  );
}
