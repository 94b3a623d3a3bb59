/**
 * Starts the test files that run whole conformance runs first. Those files spend most of their
 * time waiting on servers and child processes (rate-limit windows, Retry-After, timeouts), so
 * they overlap well with everything else; started last, the longest of them (the variants table)
 * would alone decide when `npm test` ends. Which files they are is read from the files
 * themselves, so a new one is placed by what it does, not by a list kept here.
 */
import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** A shard of the variants table (support/variant-table.ts): a run per variant, the longest files by far. */
const RUNS_THE_TABLE = /\bdescribeVariantShard\(/;
/** Whole CLI runs (support/cli.ts, support/variant-run.ts), the benchmarks, a browser, other child processes. */
const RUNS_PROCESSES = /support\/(cli|variant-run)\.js|\bbench\/|node:child_process|playwright-core/;

export function weightOf(source: string): number {
  if (RUNS_THE_TABLE.test(source)) return 2;
  return RUNS_PROCESSES.test(source) ? 1 : 0;
}

export default class HeavyFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // vitest's own order first (failed, then longest last time, then larger files): kept within each weight.
    const sorted = await super.sort(files);
    const weights = new Map(sorted.map((f) => [f, weightOf(readFileSync(f.moduleId, 'utf8'))]));
    return sorted.map((file, index) => ({ file, index })).sort((a, b) => (weights.get(b.file) ?? 0) - (weights.get(a.file) ?? 0) || a.index - b.index).map(({ file }) => file);
  }
}
