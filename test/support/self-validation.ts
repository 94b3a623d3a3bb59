/**
 * The self-validation line: how the suite fared against the variants table (support/variant-table.ts).
 * Each variant's test leaves its outcome in its task meta; the reporter (self-validation-reporter.ts)
 * gathers them from every shard, so the line covers the whole table whichever worker ran what.
 */
export interface SelfValidationOutcome {
  name: string;
  kind: 'conforming' | 'mutant';
  knownMiss?: string;
  caught: boolean;
  rightRequirement: boolean;
  falseFailure: boolean;
}

declare module 'vitest' {
  interface TaskMeta {
    selfValidation?: SelfValidationOutcome;
  }
}

export function selfValidationLine(outcomes: readonly SelfValidationOutcome[], sample?: { of: number }): string {
  const mutants = outcomes.filter((o) => o.kind === 'mutant');
  const conforming = outcomes.filter((o) => o.kind === 'conforming');
  const misses = mutants.filter((o) => !o.rightRequirement).map((o) => `${o.name}${o.knownMiss === undefined ? '' : ` (known miss: ${o.knownMiss})`}`);
  return (
    `self-validation${sample === undefined ? '' : ` (quick sample of ${outcomes.length} of ${sample.of} variants)`}: ` +
    `mutants caught ${mutants.filter((o) => o.caught).length}/${mutants.length}, ` +
    `caught on the right requirement ${mutants.filter((o) => o.rightRequirement).length}/${mutants.length}, ` +
    `false failures on conforming variants ${conforming.filter((o) => o.falseFailure).length}/${conforming.length}` +
    (misses.length > 0 ? `; not caught on the right requirement: ${misses.join(', ')}` : '')
  );
}
