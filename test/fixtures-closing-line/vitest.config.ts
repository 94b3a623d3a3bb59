import { defineConfig } from 'vitest/config';

// A run of broken tests on purpose, for test/closing-line.test.ts: the same reporters as our own run.
export default defineConfig({
  test: {
    include: ['test/fixtures-closing-line/*.fixture.ts'],
    reporters: ['default', './test/support/closing-line-reporter.ts'],
  },
});
