/**
 * How many whole CLI runs one test file drives at once. A run spends most of its wall time
 * waiting (the variant's rate-limit windows, Retry-After, the server's answers) and about a
 * second of CPU. The variants table is split over three files (support/variant-table.ts), so
 * about six runs are in flight, with the other test files alongside (vitest.config.ts:
 * maxWorkers): enough to keep two cores busy, few enough that a variant's 1-second windows are
 * not stretched by a starved server into different verdicts.
 */
export const MAX_PARALLEL_RUNS = 2;
