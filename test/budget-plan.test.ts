import { describe, expect, it } from 'vitest';
import { CREATED_NOTHING_REQUESTS, DETERMINISTIC_REQUESTS, planPropertyRuns, SEQUENCE_COMMANDS, SEQUENCE_CREATES, type RunPlan } from '../src/session/budget-plan.js';
import { newPetExamples } from '../src/arbitraries/newPet.js';
import { invalidNewPetExamples } from '../src/arbitraries/invalidNewPet.js';

/** The fixed examples every writing run sends, counted from the arbitraries themselves. */
const EXAMPLES = newPetExamples(1n).length + invalidNewPetExamples().length;
/** Keyed requests the run sends before the burst, for a plan. */
const planned = (plan: RunPlan, examples = EXAMPLES, createdNothing = 0): number =>
  DETERMINISTIC_REQUESTS + createdNothing + examples + Math.ceil(plan.validCreate * 1.5) + plan.invalidCreate + plan.limits + plan.sequences * SEQUENCE_COMMANDS;

describe('planPropertyRuns', () => {
  it('never drops a fixed case: on a Free key the fixed requests exceed the 59 left after the census, so no random run is added', () => {
    const plan = planPropertyRuns({ budgetLeft: 399, windowRemaining: 59, writes: true, exampleRequests: EXAMPLES });
    expect(DETERMINISTIC_REQUESTS + EXAMPLES).toBeGreaterThan(59);
    expect(plan).toEqual({ validCreate: 0, invalidCreate: 0, limits: 0, sequences: 0 });
    // One wait for the window's reset, never two: everything before the burst fits two Free windows.
    expect(planned(plan)).toBeLessThanOrEqual(2 * 59);
  });

  it('counts every fixed example of both properties', () => {
    expect(EXAMPLES).toBe(6 + 35);
  });

  it('grows with a larger window, up to each property’s cap, and fits it', () => {
    const free = planPropertyRuns({ budgetLeft: 399, windowRemaining: 59, writes: true, exampleRequests: EXAMPLES });
    const pro = planPropertyRuns({ budgetLeft: 799, windowRemaining: 299, writes: true, exampleRequests: EXAMPLES });
    expect(pro.validCreate).toBeGreaterThan(free.validCreate);
    expect(pro.invalidCreate).toBeGreaterThan(free.invalidCreate);
    expect(pro.limits).toBeGreaterThan(free.limits);
    expect(pro.sequences).toBeGreaterThan(free.sequences);
    expect(Math.max(pro.validCreate, pro.invalidCreate, pro.limits)).toBeLessThanOrEqual(25);
    expect(planned(pro)).toBeLessThanOrEqual(299);
  });

  it('keeps room for the created-nothing checks when one listing cannot show the store', () => {
    const small = planPropertyRuns({ budgetLeft: 799, windowRemaining: 150, writes: true, exampleRequests: EXAMPLES, wholeStore: true });
    const large = planPropertyRuns({ budgetLeft: 799, windowRemaining: 150, writes: true, exampleRequests: EXAMPLES, wholeStore: false });
    expect(planned(large, EXAMPLES, CREATED_NOTHING_REQUESTS)).toBeLessThanOrEqual(150);
    expect(large.validCreate + large.invalidCreate + large.limits + large.sequences).toBeLessThan(small.validCreate + small.invalidCreate + small.limits + small.sequences);
  });

  it('is bounded by the run budget when that is the smaller', () => {
    const plan = planPropertyRuns({ budgetLeft: 120, windowRemaining: 999, writes: true, exampleRequests: EXAMPLES });
    expect(planned(plan)).toBeLessThanOrEqual(120);
  });

  it('plans no writes in read-only mode', () => {
    const plan = planPropertyRuns({ budgetLeft: 399, windowRemaining: 59, writes: false, exampleRequests: 0, wholeStore: false });
    expect(plan.validCreate).toBe(0);
    expect(plan.invalidCreate).toBe(0);
    expect(plan.sequences).toBe(0);
    expect(plan.limits).toBeGreaterThan(0);
  });

  it('gives the embedded server\'s window of 100 room for the fixed sequence only, and a Pro window for every sequence', () => {
    // The embedded run plans on the Remaining its census leaves (99); sequences are whole ones of up to SEQUENCE_COMMANDS requests.
    const embedded = planPropertyRuns({ budgetLeft: 399, windowRemaining: 99, writes: true, exampleRequests: EXAMPLES, wholeStore: true });
    expect(embedded.sequences).toBe(1);
    expect(planned(embedded)).toBeLessThanOrEqual(99);
    const pro = planPropertyRuns({ budgetLeft: 799, windowRemaining: 299, writes: true, exampleRequests: EXAMPLES, wholeStore: true });
    expect(pro.sequences).toBe(6);
  });

  it('keeps the pets the sequences may create within the room the store is planned to have beside CREATE-001\'s', () => {
    const most = planPropertyRuns({ budgetLeft: 100_000, windowRemaining: 100_000, writes: true, exampleRequests: EXAMPLES });
    // STORE_GROWTH (50) less CREATE-001's fixed examples and most random runs (10 + 25).
    expect(most.sequences * SEQUENCE_CREATES).toBeLessThanOrEqual(50 - 10 - 25);
  });
});
