import { defineConfig } from 'vitest/config';
import HeavyFirstSequencer from './support/heavy-first-sequencer.js';
import { TEST_TIMEOUT_MS } from './support/hang-guard.js';

// Our own tests (not the conformance suites, which the CLI runs with its own inline config).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/support/self-validation-reporter.ts', './test/support/closing-line-reporter.ts'],
    // Guards against a hang, not bounds on speed (support/hang-guard.ts): the tests must pass on a busy machine.
    testTimeout: TEST_TIMEOUT_MS,
    hookTimeout: TEST_TIMEOUT_MS,
    // vitest's default on 2 cores is a single worker, so every file waited for the one before it.
    // Most of the long files wait on servers and child processes (rate-limit windows, Retry-After,
    // timeouts) rather than compute: several at once fill the cores those waits leave idle.
    maxWorkers: 5,
    // The files that run whole conformance runs start first (support/heavy-first-sequencer.ts).
    sequence: { sequencer: HeavyFirstSequencer },
  },
});
