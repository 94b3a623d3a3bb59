import { defineConfig } from 'vitest/config';
import HeavyFirstSequencer from './support/heavy-first-sequencer.js';

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
  },
});
