import type { Finding } from '../checks/finding.js';

/**
 * Every finding of the run, in order. Cross-cutting checks write here for every exchange;
 * requirement tests write their own findings here too, so one place answers both "what did
 * this test find" (since a mark) and "what was found about REQ anywhere in the run".
 */
export class Ledger {
  readonly #findings: Finding[] = [];

  add(findings: readonly Finding[]): void {
    this.#findings.push(...findings);
  }

  mark(): number {
    return this.#findings.length;
  }

  since(mark: number, requirement: string): Finding[] {
    return this.#findings.slice(mark).filter((f) => f.requirement === requirement);
  }

  all(requirement: string): Finding[] {
    return this.#findings.filter((f) => f.requirement === requirement);
  }
}
