import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Starts your server once for the whole test run and tells the tests where it is.
    globalSetup: ['./global-setup.ts'],
  },
});
