import { describe, expect, it } from 'vitest';
import { planFill, SHORT_WAIT_MS } from '../src/session/fill-plan.js';

describe('planFill (creating pets so LIST-004 can prove the maximum)', () => {
  const base = { cost: 72, budgetLeft: 250, reserve: 70 };

  it('allows a creation that fits the window, or the next one after a short wait', () => {
    expect(planFill({ ...base, windowRemaining: 80, windowLimit: 300 })).toEqual({ ok: true });
    expect(planFill({ ...base, windowRemaining: 20, windowLimit: 60, msToReset: 900 })).toEqual({ ok: true });
    expect(planFill(base)).toEqual({ ok: true });
  });

  it('refuses on a Free key with a real 60 s window: more than a short wait, or more than one window', () => {
    const long = planFill({ ...base, windowRemaining: 20, windowLimit: 60, msToReset: 45_000 });
    expect(long).toMatchObject({ ok: false });
    expect(long.ok ? '' : long.reason).toContain('resets in 45 s');
    expect(planFill({ ...base, windowRemaining: 5, windowLimit: 60, msToReset: SHORT_WAIT_MS })).toMatchObject({ ok: false });
    expect(planFill({ ...base, windowRemaining: 20, windowLimit: 60 })).toMatchObject({ ok: false });
  });

  it('judges by the wait alone, so where in its window the run stands does not decide (1 s windows)', () => {
    const endOfWindow = { ...base, cost: 62, windowRemaining: 1, windowLimit: 60, msToReset: 400 };
    expect(planFill({ ...endOfWindow, windowMs: 1_000 })).toEqual({ ok: true });
    expect(planFill({ ...endOfWindow, windowRemaining: 45, windowMs: 1_000 })).toEqual({ ok: true });
    // Three windows of a real minute, or of a length never seen: refused, whatever the first wait.
    const minute = planFill({ ...endOfWindow, windowMs: 60_000 });
    expect(minute.ok ? '' : minute.reason).toContain('3 windows and more than 5 s of waiting');
    expect(planFill(endOfWindow)).toMatchObject({ ok: false });
    expect(planFill({ ...endOfWindow, cost: 200, budgetLeft: 1_000, windowMs: 1_000 })).toEqual({ ok: true });
    expect(planFill({ ...endOfWindow, cost: 400, budgetLeft: 1_000, windowMs: 1_000 })).toMatchObject({ ok: false });
  });

  it('refuses what would leave the rest of the run less than its reserve of the budget', () => {
    const decision = planFill({ ...base, budgetLeft: 141, windowRemaining: 300 });
    expect(decision.ok ? '' : decision.reason).toContain('only 71 of the run');
    expect(planFill({ ...base, budgetLeft: 142, windowRemaining: 300 })).toEqual({ ok: true });
  });
});
