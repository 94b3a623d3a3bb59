/**
 * A server whose process stands still every few requests, as a test worker starved of CPU does on
 * a busy machine (the stalls that once made a CI run say NOT VERIFIED of the reference and miss a
 * Remaining that stood still): the same verdicts as on a quiet machine. Every 7th request blocks
 * the server's event loop for 300 ms; the fixture's paced windows then stretch by the time the
 * process stood still (fixtures/reference-server/stall-meter.ts), so a burst still fills one.
 */
import { describe, expect, test } from 'vitest';
import type { Behaviour } from '../fixtures/reference-server/index.js';
import { StallMeter } from '../fixtures/reference-server/stall-meter.js';
import { RUN_TIMEOUT_MS } from './support/hang-guard.js';
import { describeNotPassed, runVariant, variantNamed } from './support/variant-run.js';

const STALL_EVERY = 7;
const STALL_MS = 300;

/** Blocks the server's process (busy-waits, as a starved process stands still) on every STALL_EVERY-th request. */
function stallingEvery(every: number, ms: number): Partial<Behaviour> {
  let requests = 0;
  return {
    delayMs: () => {
      requests += 1;
      if (requests % every === 0) {
        const until = Date.now() + ms;
        while (Date.now() < until) {
          // standing still
        }
      }
      return 0;
    },
  };
}

describe('a server whose process stalls every few requests', () => {
  test('the meter sees a process that stood still', () => {
    const meter = new StallMeter();
    try {
      const until = Date.now() + STALL_MS;
      while (Date.now() < until) {
        // standing still
      }
      expect(meter.fraction).toBeGreaterThan(0);
    } finally {
      meter.close();
    }
  });

  test('the reference still conforms, on a dedicated key', { timeout: RUN_TIMEOUT_MS }, async () => {
    const run = await runVariant({ name: 'reference-stalling', kind: 'conforming', breaks: [], why: 'a correct server whose process stalls', args: ['--dedicated-key'] }, stallingEvery(STALL_EVERY, STALL_MS));
    expect(run.reportError).toBeUndefined();
    expect(run.report?.verdict, describeNotPassed(run)).toBe('conforms');
  });

  test('a Remaining that stands still is still caught on RATE-002, and only there', { timeout: RUN_TIMEOUT_MS }, async () => {
    const run = await runVariant(variantNamed('remaining-frozen'), stallingEvery(STALL_EVERY, STALL_MS));
    expect(run.reportError).toBeUndefined();
    expect(run.failing, describeNotPassed(run)).toEqual(['RATE-002']);
    expect(run.report?.verdict, describeNotPassed(run)).toBe('does-not-conform');
  });
});
