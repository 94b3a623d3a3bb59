/**
 * The plain closing line CI reads ("N passed, N failed, N skipped"), counted from vitest's test
 * modules. A file that failed to load, an error in a hook and an unhandled error fail the run
 * without failing any test: each counts as a failure, so the line never says 0 failed when
 * vitest failed. Structural types, so the counting is testable without running vitest.
 */
export interface TestLike {
  readonly fullName: string;
  result(): { readonly state: string; readonly note?: string | undefined };
}

export interface ErrorsLike {
  errors(): ReadonlyArray<{ readonly message?: string | undefined }>;
}

export interface ModuleLike extends ErrorsLike {
  readonly relativeModuleId: string;
  readonly children: { allTests(): Iterable<TestLike>; allSuites(): Iterable<ErrorsLike> };
}

export interface ClosingCounts {
  passed: number;
  failed: number;
  skipped: number;
  /** One line per failure that is not a failed test, and per skipped test with its reason. */
  details: string[];
}

/** `extraFailures`: run-level failures found outside vitest (e.g. temporary entries left behind). */
export function closingCounts(
  modules: Iterable<ModuleLike>,
  unhandledErrors: ReadonlyArray<{ readonly message?: string | undefined }>,
  extraFailures: readonly string[] = [],
): ClosingCounts {
  const counts: ClosingCounts = { passed: 0, failed: 0, skipped: 0, details: [] };
  const error = (where: string, e: { readonly message?: string | undefined }): void => {
    counts.failed += 1;
    counts.details.push(`error in ${where}: ${(e.message ?? 'unknown error').split('\n')[0] ?? ''}`);
  };
  for (const module of modules) {
    for (const e of module.errors()) error(module.relativeModuleId, e);
    for (const suite of module.children.allSuites()) for (const e of suite.errors()) error(module.relativeModuleId, e);
    for (const test of module.children.allTests()) {
      const result = test.result();
      if (result.state === 'passed') counts.passed += 1;
      else if (result.state === 'failed') counts.failed += 1;
      else {
        counts.skipped += 1;
        counts.details.push(`skipped: ${module.relativeModuleId} > ${test.fullName}${result.note === undefined ? '' : ` (${result.note})`}`);
      }
    }
  }
  for (const e of unhandledErrors) error('the run (unhandled)', e);
  for (const failure of extraFailures) {
    counts.failed += 1;
    counts.details.push(failure);
  }
  return counts;
}

export function formatClosingLine(counts: ClosingCounts): string {
  return `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`;
}
