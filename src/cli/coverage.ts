/**
 * `petstore-conformance coverage`: which tests verify which requirement, collected from the
 * suites without running them (Inferno's requirements coverage). Exit 1 when a requirement of the
 * catalog has no test or a test names no requirement.
 */
import { createVitest } from 'vitest/node';
import { loadCatalog, compareSections } from '../catalog.js';
import type { ConformanceMeta } from '../conformance/meta.js';
import { suiteOptions, VITE_OPTIONS } from '../api/suite-options.js';

export interface Coverage {
  /** Requirement id → titles of the tests that verify it, in catalog order. */
  byRequirement: Array<{ id: string; section: string; level: string; tests: string[] }>;
  /** Tests whose meta names no requirement of the catalog. */
  orphans: string[];
}

export async function collectCoverage(): Promise<Coverage> {
  const vitest = await createVitest('test', suiteOptions({ reporters: [] }), VITE_OPTIONS);
  const tests = new Map<string, string[]>();
  const orphans: string[] = [];
  const catalog = loadCatalog();
  const known = new Set(catalog.requirements.map((r) => r.id));
  try {
    const { testModules } = await vitest.collect();
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const meta: ConformanceMeta = test.meta();
        if (meta.requirement === undefined || !known.has(meta.requirement)) orphans.push(test.fullName);
        else tests.set(meta.requirement, [...(tests.get(meta.requirement) ?? []), test.name]);
      }
    }
  } finally {
    await vitest.close();
  }
  const byRequirement = [...catalog.requirements]
    .sort((a, b) => compareSections(a.section, b.section))
    .map((r) => ({ id: r.id, section: r.section, level: r.level, tests: tests.get(r.id) ?? [] }));
  return { byRequirement, orphans };
}

export function renderCoverage(coverage: Coverage): string {
  const rows = coverage.byRequirement.map((r) => `| ${r.id} | ${r.section} | ${r.level} | ${r.tests.length === 0 ? '**none**' : r.tests.join('<br>')} |`);
  const lines = ['| Requirement | § | Level | Tests |', '|---|---|---|---|', ...rows];
  const covered = coverage.byRequirement.filter((r) => r.tests.length > 0).length;
  lines.push('', `${covered} of ${coverage.byRequirement.length} requirements have a test; ${coverage.orphans.length} tests name no requirement.`);
  for (const o of coverage.orphans) lines.push(`- no requirement: ${o}`);
  return `${lines.join('\n')}\n`;
}

export async function coverageCommand(): Promise<number> {
  const coverage = await collectCoverage();
  process.stdout.write(renderCoverage(coverage));
  return coverage.orphans.length === 0 && coverage.byRequirement.every((r) => r.tests.length > 0) ? 0 : 1;
}
