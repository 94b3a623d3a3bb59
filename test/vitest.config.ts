import { defineConfig } from 'vitest/config';
import HeavyFirstSequencer from './support/heavy-first-sequencer.js';
import { MAX_PARALLEL_RUNS } from './support/parallel-runs.js';

// Our own tests (not the conformance suites, which the CLI runs with its own inline config).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/support/self-validation-reporter.ts', './test/support/closing-line-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // vitest's default on 2 cores is a single worker, so every file waited for the one before it.
    // Most of the long files wait on servers and child processes (rate-limit windows, Retry-After,
    // timeouts) rather than compute: several at once fill the cores those waits leave idle.
    maxWorkers: 5,
    // The files that run whole conformance runs start first (support/heavy-first-sequencer.ts).
    sequence: { sequencer: HeavyFirstSequencer },
    // describe.concurrent runs at most this many tests of a file at once; the CLI runs of the
    // variants table are bounded by their own limiter (support/variant-run.ts), not by this.
    maxConcurrency: MAX_PARALLEL_RUNS,
  },
});
