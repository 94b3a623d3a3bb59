import type { Finding } from '../../src/checks/finding.js';

export const violations = (findings: readonly Finding[], requirement?: string): Finding[] =>
  findings.filter((f) => f.kind === 'violation' && (requirement === undefined || f.requirement === requirement));

export const observations = (findings: readonly Finding[], requirement?: string): Finding[] =>
  findings.filter((f) => f.kind === 'observation' && (requirement === undefined || f.requirement === requirement));
