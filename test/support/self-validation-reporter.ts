/**
 * Prints the self-validation line once at the end of the run, from the outcomes every variant
 * test left in its task meta, whichever shard file and worker ran it (support/variant-table.ts).
 */
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { VARIANTS } from '../../fixtures/variants/index.js';
import { selfValidationLine, type SelfValidationOutcome } from './self-validation.js';
import './variant-sample.js';

export default class SelfValidationReporter implements Reporter {
  private sampled = false;

  onInit(vitest: Vitest): void {
    this.sampled = vitest.config.provide['variantSample'] !== undefined;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const outcomes: SelfValidationOutcome[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const outcome = test.meta().selfValidation;
        if (outcome !== undefined) outcomes.push(outcome);
      }
    }
    if (outcomes.length === 0) return;
    process.stdout.write(`\n${selfValidationLine(outcomes, this.sampled ? { of: VARIANTS.length } : undefined)}\n`);
  }
}
