import { describe, expect, it } from 'vitest';
import { testVerdict } from '../src/vitest/outcome.js';
import { exchange, requirement } from './support/report-factory.js';

const violation = { kind: 'violation' as const, message: 'Received 10 items / Expected exactly 20', exchange: exchange() };

describe('a requirement result as a test of the implementer project', () => {
  it('a must failure fails, with the violation and the curl line to reproduce it', () => {
    const verdict = testVerdict(requirement({ id: 'LIST-002', section: '4.1', level: 'must', status: 'fail', evidence: [violation] }));
    expect(verdict.kind).toBe('fail');
    expect(verdict.kind === 'fail' ? verdict.message : '').toMatch(/^LIST-002 \(must, § 4\.1\)[^\n]*\n- Received 10 items[\s\S]*reproduce: curl /);
  });

  it('a should failure is a warning, not a failure', () => {
    const verdict = testVerdict(requirement({ id: 'ERR-001', section: '7', level: 'should', status: 'fail', evidence: [violation] }));
    expect(verdict.kind).toBe('warn');
  });

  it.each(['inconclusive', 'not-exercised'] as const)('%s is skipped with its reason, never a pass', (status) => {
    const verdict = testVerdict(requirement({ id: 'RATE-007', section: '8', status, reason: 'opt in with --x' }));
    expect(verdict).toEqual({ kind: 'skip', reason: `${status}: opt in with --x` });
  });

  it('a requirement missing from the report is skipped, not passed', () => {
    expect(testVerdict(undefined).kind).toBe('skip');
  });
});
