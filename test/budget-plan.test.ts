import { describe, expect, it } from 'vitest';
import { DETERMINISTIC_REQUESTS, planPropertyRuns, type RunPlan } from '../src/session/budget-plan.js';

const EXAMPLES = 15;
/** Keyed requests the run sends before the burst, for a plan. */
const planned = (plan: RunPlan, examples = EXAMPLES): number =>
  DETERMINISTIC_REQUESTS + examples + Math.ceil(plan.validCreate * 1.5) + plan.invalidCreate + plan.limits;

describe('planPropertyRuns', () => {
  it('fits a Free key: everything before the burst stays inside the 59 requests left after the census', () => {
    const plan = planPropertyRuns({ budgetLeft: 399, windowRemaining: 59, writes: true, exampleRequests: EXAMPLES });
    expect(planned(plan)).toBeLessThanOrEqual(59);
    expect(plan.validCreate).toBeGreaterThanOrEqual(3);
    expect(plan.limits).toBeGreaterThanOrEqual(2);
  });

  it('grows with a larger window, up to each property’s cap', () => {
    const free = planPropertyRuns({ budgetLeft: 399, windowRemaining: 59, writes: true, exampleRequests: EXAMPLES });
    const pro = planPropertyRuns({ budgetLeft: 799, windowRemaining: 299, writes: true, exampleRequests: EXAMPLES });
    expect(pro.validCreate).toBeGreaterThan(free.validCreate);
    expect(pro.limits).toBeGreaterThan(free.limits);
    expect(Math.max(pro.validCreate, pro.invalidCreate, pro.limits)).toBeLessThanOrEqual(25);
  });

  it('is bounded by the run budget when that is the smaller', () => {
    const plan = planPropertyRuns({ budgetLeft: 60, windowRemaining: 999, writes: true, exampleRequests: EXAMPLES });
    expect(planned(plan)).toBeLessThanOrEqual(60);
  });

  it('plans no writes in read-only mode', () => {
    const plan = planPropertyRuns({ budgetLeft: 399, windowRemaining: 59, writes: false, exampleRequests: 0 });
    expect(plan.validCreate).toBe(0);
    expect(plan.invalidCreate).toBe(0);
    expect(plan.limits).toBeGreaterThan(0);
  });
});
