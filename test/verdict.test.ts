/**
 * The verdict vocabulary: conforms / does not conform / not verified, completeness, the
 * not-exercised list, the one verdict line, and the exit code derived from them.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { exitCodeOf, verdictOf } from '../src/report/build.js';
import { choiceOf, CONSOLE_COLUMNS, verdictLineWithin } from '../src/report/verdict-line.js';
import type { Report, RequirementResult } from '../src/report/types.js';
import { finish, passingReport, requirement } from './support/report-factory.js';
import { stoppedReport } from '../src/api/halt.js';
import { stopOf } from '../src/api/stop.js';

const DAILY = 'not exercised by choice: exhausting the daily quota takes the key out of service for a day; opt in with --exhaust-daily-quota on a key made for the test';
const NO_PLAN = "no --plan given, so the advertised X-RateLimit-Limit (100) is only recorded; name the key's plan with --plan to check it";

function req(id: string, status: RequirementResult['status'], extra: Partial<RequirementResult> = {}): RequirementResult {
  return requirement({ id, section: '8', status, ...extra });
}

function report(requirements: RequirementResult[], runErrors: string[] = [], halted?: Report['halted']): Report {
  const { summary: _s, verdict: _v, verdictLine: _l, complete: _c, notExercised: _n, ...rest } = passingReport();
  return finish({ ...rest, requirements, runErrors, ...(halted === undefined ? {} : { halted }) });
}

describe('verdictOf', () => {
  it('conforms and is complete when everything meant to run passed; not exercised is listed with its reason', () => {
    const r = verdictOf([req('RATE-001', 'pass'), req('RATE-004', 'not-exercised', { reason: NO_PLAN }), req('RATE-007', 'not-exercised', { reason: DAILY })], []);
    expect(r.verdict).toBe('conforms');
    expect(r.complete).toBe(true);
    expect(r.summary).toEqual({ pass: 1, fail: 0, inconclusive: 0, notExercised: 2, warnings: 0 });
    expect(r.notExercised).toEqual([
      { id: 'RATE-004', reason: NO_PLAN },
      { id: 'RATE-007', reason: DAILY },
    ]);
    expect(r.verdictLine).toBe("CONFORMS: 1 of 3 requirements pass; not exercised: RATE-004 (name the key's plan with --plan to check it), RATE-007 (opt in with --exhaust-daily-quota on a key made for the test)");
  });

  it('a should-failure is a warning: still conforms, and the line counts it', () => {
    const r = verdictOf([req('RATE-001', 'pass'), req('RATE-006', 'fail', { level: 'should' })], []);
    expect(r.verdict).toBe('conforms');
    expect(r.verdictLine).toBe('CONFORMS: 1 of 2 requirements pass; 1 warning (should-requirements that fail)');
  });

  it('does not conform when a must failed, whatever else is inconclusive', () => {
    const r = verdictOf([req('RATE-001', 'fail'), req('RATE-002', 'fail'), req('RATE-006', 'fail', { level: 'should' }), req('RATE-003', 'inconclusive', { reason: 'x' })], []);
    expect(r.verdict).toBe('does-not-conform');
    expect(r.complete).toBe(false);
    expect(r.verdictLine).toBe('DOES NOT CONFORM: 3 of 4 requirements fail (2 must, 1 should); 1 requirement inconclusive (RATE-003)');
  });

  it('is not verified when something meant to run is inconclusive, even at should level', () => {
    const r = verdictOf([req('RATE-001', 'pass'), req('RATE-006', 'inconclusive', { level: 'should', reason: 'no 429' })], []);
    expect(r.verdict).toBe('not-verified');
    expect(r.complete).toBe(false);
    expect(r.verdictLine).toBe('NOT VERIFIED: 1 requirement inconclusive (RATE-006); 1 of 2 requirements pass');
  });

  it('is not verified when the run broke or halted, though every requirement got a verdict', () => {
    expect(verdictOf([req('RATE-001', 'pass')], ['a suite could not load']).verdictLine).toBe('NOT VERIFIED: the run reported 1 error; 1 of 1 requirement pass');
    const halted = verdictOf([req('RATE-001', 'pass')], [], { reason: 'deadline', message: 'deadline passed', unjudged: [] });
    expect(halted.verdict).toBe('not-verified');
    expect(halted.verdictLine).toBe('NOT VERIFIED: the run was halted (deadline); 1 of 1 requirement pass');
  });

  it('counts long lists of inconclusive requirements without naming them', () => {
    const many = ['1', '2', '3', '4', '5', '6', '7'].map((n) => req(`LIST-00${n}`, 'inconclusive', { reason: 'halted' }));
    expect(verdictOf(many, ['halted']).verdictLine).toBe('NOT VERIFIED: 7 requirements inconclusive; the run reported 1 error; 0 of 7 requirements pass');
  });

  it('names requirements left out by one choice together, and counts long lists', () => {
    const deselected = ['A', 'B', 'C', 'D', 'E', 'F', 'G'].map((x) => req(`LIST-00${x.charCodeAt(0) - 64}`, 'not-exercised', { reason: 'deselected by --only' }));
    expect(verdictOf([req('RATE-001', 'pass'), ...deselected.slice(0, 2)], []).verdictLine).toBe('CONFORMS: 1 of 3 requirements pass; not exercised: LIST-001, LIST-002 (deselected by --only)');
    expect(verdictOf([req('RATE-001', 'pass'), ...deselected], []).verdictLine).toBe('CONFORMS: 1 of 8 requirements pass; not exercised: 7 requirements (deselected by --only)');
  });
});

const RISK = 'names a store may not survive were not sent; opt in with --risk-breaking-store on a store nobody else uses';

/** What verdictLineWithin reads: the verdict's facts and the requirements they came from. */
function facts(requirements: RequirementResult[], runErrors: string[] = [], halted?: Report['halted']): ReturnType<typeof verdictOf> & Parameters<typeof verdictLineWithin>[0] {
  return { ...verdictOf(requirements, runErrors, halted), requirements, runErrors, ...(halted === undefined ? {} : { halted }) };
}

describe('verdictLineWithin: the console\'s verdict line, on one line of 100 columns', () => {
  const passes = (n: number): RequirementResult[] => Array.from({ length: n }, (_, i) => req(`LIST-${String(i + 100)}`, 'pass'));

  it('is the whole verdict line when it fits', () => {
    const f = facts([req('RATE-001', 'pass'), req('RATE-006', 'fail', { level: 'should' })]);
    expect(verdictLineWithin(f, CONSOLE_COLUMNS)).toBe(f.verdictLine);
  });

  it('names only the flag of an opt-in when the hint does not fit: its row above carries the hint', () => {
    const f = facts([...passes(34), req('RATE-007', 'not-exercised', { reason: DAILY })]);
    expect(f.verdictLine.length).toBeGreaterThan(CONSOLE_COLUMNS);
    expect(verdictLineWithin(f, CONSOLE_COLUMNS)).toBe('CONFORMS: 34 of 35 requirements pass; not exercised: RATE-007 (--exhaust-daily-quota)');
  });

  it("a default run's three choices (plan, daily quota, store-breaking names): the ids, and no hint repeated", () => {
    const f = facts([...passes(34), req('CREATE-005', 'not-exercised', { reason: RISK }), req('RATE-004', 'not-exercised', { reason: NO_PLAN }), req('RATE-007', 'not-exercised', { reason: DAILY })]);
    expect(verdictLineWithin(f, CONSOLE_COLUMNS)).toBe('CONFORMS: 34 of 37 requirements pass; not exercised: CREATE-005, RATE-004, RATE-007');
  });

  it('counts what it cannot name, and says the verdict first whatever else went wrong', () => {
    const many = ['1', '2', '3', '4', '5', '6', '7'].map((n) => req(`AUTH-00${n}`, 'inconclusive', { reason: 'x' }));
    const halted = { reason: 'wait-too-long' as const, message: 'a long wait', unjudged: [] };
    const f = facts([...many, ...passes(20), req('RATE-006', 'fail', { level: 'should' }), req('RATE-004', 'not-exercised', { reason: NO_PLAN })], ['e1', 'e2'], halted);
    expect(verdictLineWithin(f, CONSOLE_COLUMNS)).toBe('NOT VERIFIED: 7 inconclusive; halted (wait-too-long), 2 run errors; 20 of 29 pass; 1 warning');
    expect(verdictLineWithin(f, 40)).toBe('NOT VERIFIED: 7 inconclusive; halted (w…');
  });

  it('never goes past the width, and always starts with the verdict', () => {
    const status = fc.constantFrom<RequirementResult['status']>('pass', 'fail', 'inconclusive', 'not-exercised');
    const reason = fc.constantFrom(DAILY, NO_PLAN, RISK, 'deselected by --only', 'writes are disabled (--read-only)', 'x');
    const one = fc.record({ status, reason, should: fc.boolean() });
    const halt = fc.option(fc.constantFrom<NonNullable<Report['halted']>>({ reason: 'deadline', message: 'm', unjudged: [] }, { reason: 'interrupted', signal: 'SIGINT', message: 'm', unjudged: [] }), { nil: undefined });
    fc.assert(
      fc.property(fc.array(one, { maxLength: 60 }), fc.nat({ max: 3 }), halt, fc.integer({ min: 20, max: 140 }), (rows, errors, halted, columns) => {
        const requirements = rows.map((r, i) => req(`REQ-${String(i).padStart(3, '0')}`, r.status, { level: r.should ? 'should' : 'must', ...(r.status === 'pass' || r.status === 'fail' ? {} : { reason: r.reason }) }));
        const f = facts(requirements, Array.from({ length: errors }, (_, i) => `error ${i}`), halted);
        const line = verdictLineWithin(f, columns);
        expect(line.length).toBeLessThanOrEqual(columns);
        expect(f.verdictLine.startsWith(line.replace(/…$/, '').split(':')[0] ?? '')).toBe(true);
      }),
    );
  });
});

describe('choiceOf', () => {
  it('keeps the clause that names the flag', () => {
    expect(choiceOf(DAILY)).toBe('opt in with --exhaust-daily-quota on a key made for the test');
    expect(choiceOf('writes are disabled (--read-only)')).toBe('writes are disabled (--read-only)');
    expect(choiceOf('no --plan given; name the plan with --plan to check it')).toBe('name the plan with --plan to check it');
    expect(choiceOf('no flag here; at all')).toBe('no flag here; at all');
  });
});

describe('exitCodeOf', () => {
  it('0 when it conforms or only warnings or inconclusive without a halt; 1 when a must failed; 2 when the run broke or a halt left a must unjudged', () => {
    expect(exitCodeOf(report([req('RATE-001', 'pass'), req('RATE-007', 'not-exercised', { reason: DAILY })]))).toBe(0);
    expect(exitCodeOf(report([req('RATE-001', 'pass'), req('RATE-003', 'inconclusive', { reason: 'x' })]))).toBe(0);
    expect(exitCodeOf(report([req('RATE-001', 'fail')], ['broken']))).toBe(1);
    expect(exitCodeOf(report([req('RATE-001', 'pass')], ['broken']))).toBe(2);
    expect(exitCodeOf(report([req('RATE-001', 'inconclusive', { reason: 'x' })], [], { reason: 'transport', message: 'gone', unjudged: ['RATE-001'] }))).toBe(2);
  });
});

describe('a run stopped by a signal (stoppedReport)', () => {
  const STOPPED = 'the run was stopped (SIGTERM) before this was judged';
  const signal = (reason: unknown): AbortSignal => AbortSignal.abort(reason);
  /** A report of these requirements alone (the sample's specification coverage names others). */
  const of = (requirements: RequirementResult[]): Report => {
    const { specCoverage: _coverage, ...rest } = report(requirements);
    return rest;
  };

  it('keeps pass, fail, a choice and an inconclusive verdict reached before it; only what it cut short is unjudged; exit 143', () => {
    const before = of([
      req('RATE-001', 'pass'),
      req('RATE-002', 'fail'),
      req('RATE-003', 'inconclusive', { reason: 'the target never told its limit' }),
      req('RATE-004', 'not-exercised', { reason: NO_PLAN }),
      req('RATE-005', 'inconclusive', { reason: STOPPED }),
      // No test reached it at all.
      req('RATE-006', 'inconclusive', { reason: 'no test exercised this requirement in this run', tests: [] }),
    ]);
    const stopped = stoppedReport(before, stopOf(signal('SIGTERM'), new Date('2030-01-01T00:00:00Z')), []);
    expect(stopped.requirements.map((r) => [r.id, r.status, r.reason])).toEqual([
      ['RATE-001', 'pass', undefined],
      ['RATE-002', 'fail', undefined],
      ['RATE-003', 'inconclusive', 'the target never told its limit'],
      ['RATE-004', 'not-exercised', NO_PLAN],
      ['RATE-005', 'inconclusive', STOPPED],
      ['RATE-006', 'inconclusive', STOPPED],
    ]);
    expect(stopped.halted).toEqual({ reason: 'interrupted', signal: 'SIGTERM', at: '2030-01-01T00:00:00.000Z', message: 'the run was stopped (SIGTERM); nothing more was sent', unjudged: ['RATE-005', 'RATE-006'] });
    expect(stopped.verdict).toBe('does-not-conform');
    expect(exitCodeOf(stopped)).toBe(143);
  });

  it('is never "conforms", even when everything it judged passed; exit 130 for SIGINT, 129 for SIGHUP', () => {
    const allPass = of([req('RATE-001', 'pass'), req('RATE-007', 'not-exercised', { reason: DAILY })]);
    for (const [name, code] of [['SIGINT', 130], ['SIGHUP', 129]] as const) {
      const stopped = stoppedReport(allPass, stopOf(signal(name)), []);
      expect(stopped.verdict).toBe('not-verified');
      expect(stopped.verdictLine).toBe(`NOT VERIFIED: the run was stopped by ${name}; 1 of 2 requirements pass; not exercised: RATE-007 (opt in with --exhaust-daily-quota on a key made for the test)`);
      expect(exitCodeOf(stopped)).toBe(code);
    }
  });

  it('an abort for any other reason is "aborted": no signal, exit code 2 when a must was left unjudged', () => {
    const stopped = stoppedReport(of([req('RATE-001', 'pass'), req('RATE-002', 'inconclusive', { reason: 'x', tests: [] })]), stopOf(signal(new Error('timeout'))), []);
    expect(stopped.halted).toMatchObject({ reason: 'aborted', message: 'the run was aborted by its caller; nothing more was sent', unjudged: ['RATE-002'] });
    expect(stopped.halted?.signal).toBeUndefined();
    expect(stopped.requirements[1]?.reason).toBe('the run was aborted by its caller before this was judged');
    expect(exitCodeOf(stopped)).toBe(2);
  });
});
