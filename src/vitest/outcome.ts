/**
 * What one requirement's result means as a test of the implementer's project: a must failure
 * fails it, a should failure passes with a warning, and anything undecided or not exercised is
 * skipped with its reason, so "could not tell" never shows as a pass.
 */
import type { RequirementResult } from '../report/types.js';
import { sequenceText } from '../report/render/common.js';

export type TestVerdict =
  | { kind: 'pass' }
  | { kind: 'fail'; message: string }
  | { kind: 'warn'; message: string }
  | { kind: 'skip'; reason: string };

const MAX_VIOLATIONS = 5;

/** The violations with the request that showed each, as the implementer needs to reproduce it. */
export function violationText(result: RequirementResult): string {
  const violations = result.evidence.filter((e) => e.kind === 'violation');
  const lines = violations.slice(0, MAX_VIOLATIONS).flatMap((e) => {
    const ex = e.exchange;
    if (ex === undefined) return [`- ${e.message}`];
    const received = ex.response === undefined ? (ex.error?.code ?? 'no response') : `${ex.response.status} ${ex.response.body.slice(0, 200)}`;
    return [`- ${e.message}`, `    sent:      ${ex.request.method} ${ex.request.url}`, `    received:  ${received}`, `    reproduce: ${ex.curl}`];
  });
  if (violations.length > MAX_VIOLATIONS) lines.push(`- and ${violations.length - MAX_VIOLATIONS} more (see the report)`);
  if (result.property !== undefined) lines.push(`smallest failing input: ${result.property.counterexample}`);
  if (result.sequence !== undefined) lines.push(...sequenceText(result.sequence));
  return `${result.id} (${result.level}, § ${result.section}) ${result.title}\n${lines.join('\n')}`;
}

export function testVerdict(result: RequirementResult | undefined): TestVerdict {
  if (result === undefined) return { kind: 'skip', reason: 'not in the report of this run' };
  if (result.status === 'pass') return { kind: 'pass' };
  if (result.status === 'fail') return result.level === 'must' ? { kind: 'fail', message: violationText(result) } : { kind: 'warn', message: violationText(result) };
  return { kind: 'skip', reason: `${result.status}: ${result.reason ?? 'no reason given'}` };
}
