/**
 * Same server, same verdict, wherever the run starts in the server's rate-limit window (issue 23):
 * runs started at several offsets into a window, placed by the server (it holds the run's first
 * request until then: ReferenceServerOptions.startAtPhaseMs). A Date built once per connection
 * failed RATE-003 when the run's waits made it seconds old. (A limit counted per operation, which
 * once passed or failed by where the window boundary fell, is in test/stability.test.ts, at 4
 * offsets x 2 seeds.) Each run goes through the CLI's command line in this process
 * (support/variant-run.ts), one after the other.
 */
import { describe, expect, test } from 'vitest';
import { VARIANTS, type Variant } from '../fixtures/variants/index.js';
import { renderHtml } from '../src/report/render/html.js';
import { describeFailures, runVariant, type VariantRun } from './support/variant-run.js';

const variant = (name: string): Variant => {
  const found = VARIANTS.find((v) => v.name === name);
  if (found === undefined) throw new Error(`no variant ${name}`);
  return found;
};

/** Offsets spread over the whole window. */
const offsetsOf = (v: Variant, count: number): number[] => {
  const windowMs = (v.server?.windowSeconds ?? 1) * 1000;
  return Array.from({ length: count }, (_, i) => Math.round((i * windowMs) / count));
};

/** A Date that stood still: a RATE-003 observation in report.json and report.html, and a note under the console's verdict. */
async function expectDateLagShown(run: VariantRun): Promise<void> {
  const lag = run.report?.observations.find((o) => o.requirement === 'RATE-003' && o.message.startsWith('The Date header lagged'));
  expect(lag?.notable).toBe(true);
  expect(lag?.message).toMatch(/stood still on \d+ responses over \d+\.\d s of the local clock/);
  expect(run.cli.stdout).toContain(`Note (RATE-003): ${lag?.message ?? ''}`);
  if (run.report !== undefined) expect(await renderHtml(run.report)).toContain('The Date header lagged the server&#39;s clock');
}

/** Runs under load from the other test files, one after the other. */
const TIMEOUT_MS = 400_000;

describe('the verdict does not depend on where the run starts in a rate-limit window', () => {
  for (const [name, count] of [['date-per-connection', 3]] as const) {
    const v = variant(name);
    test(`${name}: ${v.kind === 'mutant' ? `fails exactly ${v.breaks.join(', ')}` : 'conforms'} at ${count} offsets into its ${v.server?.windowSeconds ?? 1} s window`, { timeout: TIMEOUT_MS }, async () => {
      for (const offsetMs of offsetsOf(v, count)) {
        const run = await runVariant(v, {}, { inProcess: true, windowOffsetMs: offsetMs });
        expect(run.reportError, `started ${offsetMs} ms into a window`).toBeUndefined();
        // The server placed the run's first request in its window (the phase it reached is what it measured).
        expect(run.startPhaseMs).toBeDefined();
        expect(run.failing, `started ${offsetMs} ms into a window:\n${describeFailures(run, [...run.failing, ...v.breaks])}`).toEqual(v.breaks);
        if (name === 'date-per-connection') await expectDateLagShown(run);
      }
    });
  }
});
