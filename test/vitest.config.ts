import { defineConfig } from 'vitest/config';

// Our own tests (not the conformance suites, which the CLI runs with its own inline config).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/support/closing-line-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
