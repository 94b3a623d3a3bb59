/**
 * How long a test may take before it is taken for hung. Generous (minutes), because our tests must
 * pass on a busy machine too: they assert what they mean to prove (requests sent, bytes read,
 * memory, the order of events), never how long anything took; speed is measured by `npm run bench`
 * (bench/run.mjs), which prints figures and asserts nothing.
 */

/** Any test: the default of test/vitest.config.ts. */
export const TEST_TIMEOUT_MS = 5 * 60_000;
/** A test that makes whole conformance runs (a CLI process or an in-process run), and a CLI process's own guard. */
export const RUN_TIMEOUT_MS = 10 * 60_000;
