// @ts-check
/**
 * StrykerJS 9 configuration of `npm run mutate` (mutation/main.ts runs Stryker with it; `npx stryker
 * run mutation/stryker.config.mjs` works too, without the triage). See docs/architecture.md,
 * "Mutation testing".
 */
import { fileURLToPath } from 'node:url';
import { MUTANTS_AT_ONCE } from '../dist/mutation/config.js';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  // mutation/runner.ts: one whole conformance run per test, judged by its report.json.
  testRunner: 'conformance',
  appendPlugins: [fileURLToPath(new URL('../dist/mutation/runner.js', import.meta.url))],
  // The TypeScript sources, so that every mutant names a real source line; Stryker compiles all
  // mutants into one instrumented copy, transpiled once per run over the sandbox's dist/.
  mutate: ['fixtures/reference-server/*.ts'],
  buildCommand: 'node dist/mutation/transpile.js',
  disableTypeChecks: false,
  // The runner reports which mutants each test reached: a mutant runs only with those tests.
  coverageAnalysis: 'perTest',
  // Committed: a clean clone's run retests only the mutants whose code or tests changed.
  incremental: true,
  incrementalFile: 'mutation/stryker-incremental.json',
  // More than the two cores: most variant runs wait on their windows (config.ts, MUTANTS_AT_ONCE).
  concurrency: MUTANTS_AT_ONCE,
  // The runner stops a run that outlives its --deadline by HANG_GRACE_SECONDS and reports the
  // timeout itself, with its reason; Stryker's own timeout lies well above that.
  timeoutMS: 600_000,
  timeoutFactor: 1,
  dryRunTimeoutMinutes: 20,
  reporters: ['json', 'progress', 'conformance-progress'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  // Nothing a run needs: kept out of the sandbox copy.
  ignorePatterns: ['/test', '/docs', '/bench', '/examples', '/conformance-report', '/test-output', '/.stryker-tmp'],
};
