/**
 * Violations as a reader wants them: one line per distinct violation with how many responses
 * showed it ("10 responses: …"), instead of the same message once per response.
 */
import type { Finding } from '../checks/finding.js';

export interface FindingGroup {
  /** The first finding of the group: its exchange is the group's evidence, its detail the example. */
  first: Finding;
  /** Findings in the group. */
  count: number;
  /** Distinct exchanges the group's findings are about. */
  responses: number;
  /** Those exchanges' seqs, in order of first appearance. */
  exchanges: number[];
}

/** Groups by message, in order of first appearance. */
export function groupFindings(findings: readonly Finding[]): FindingGroup[] {
  const groups = new Map<string, { first: Finding; count: number; seqs: Set<number> }>();
  for (const f of findings) {
    const group = groups.get(f.message) ?? { first: f, count: 0, seqs: new Set<number>() };
    group.count += 1;
    if (f.exchange !== undefined) group.seqs.add(f.exchange);
    groups.set(f.message, group);
  }
  return [...groups.values()].map((g) => ({ first: g.first, count: g.count, responses: g.seqs.size, exchanges: [...g.seqs] }));
}

/** "10 responses: <message> (first: <detail>)"; a group of one reads as the finding itself. */
export function groupLine(group: FindingGroup): string {
  const { first, count, responses } = group;
  const prefix = responses > 1 ? `${responses} responses: ` : count > 1 ? `${count} times: ` : '';
  const detail = first.detail === undefined ? '' : count > 1 ? ` (first: ${first.detail})` : ` (${first.detail})`;
  return `${prefix}${first.message}${detail}`;
}
