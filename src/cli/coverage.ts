/**
 * `petstore-conformance coverage`: which tests verify which requirement, collected from the
 * suites without running them (Inferno's requirements coverage), and which sentences of the spec
 * each requirement checks (schemas/spec-map.yaml). Exit 1 when a requirement of the catalog has no
 * test, a test names no requirement, a sentence of the spec is missing from the map or is neither
 * covered nor explained, the map names an unknown requirement, or a requirement covers no sentence.
 *
 * PETSTORE_CONFORMANCE_SPEC_MAP points it at another map file: our tests use it to prove a gap
 * fails the command.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { createVitest } from 'vitest/node';
import { loadCatalog, compareSections } from '../catalog.js';
import type { ConformanceMeta } from '../conformance/meta.js';
import { suiteOptions, VITE_OPTIONS } from '../api/suite-options.js';
import { packagePath } from '../interface/package-root.js';
import { gapLines, isCovered, specMapGaps, UNTESTABLE_KIND_LABELS, type SpecMap, type UntestableKind } from '../spec-map.js';
import { parseSpecMap } from '../spec-map-schema.js';
import { specUnits } from '../spec-text.js';

export interface Coverage {
  /** Requirement id → titles of the tests that verify it and ids of the sentences it checks, by section. */
  byRequirement: Array<{ id: string; section: string; level: string; tests: string[]; sentences: string[] }>;
  /** Tests whose meta names no requirement of the catalog. */
  orphans: string[];
  specMap: SpecMapCoverage;
}

export interface SpecMapCoverage {
  file: string;
  sentences: number;
  covered: number;
  untestable: Partial<Record<UntestableKind, number>>;
  /** What is wrong with the map, one line each; empty when it is complete. */
  problems: string[];
}

export const SPEC_MAP_ENV = 'PETSTORE_CONFORMANCE_SPEC_MAP';

/** The map checked against the catalog and the spec's own text (its copy named by `source`). */
export function checkSpecMap(file: string): { map?: SpecMap; coverage: SpecMapCoverage } {
  const empty = { file, sentences: 0, covered: 0, untestable: {} };
  let map: SpecMap;
  let units;
  try {
    map = parseSpecMap(readFileSync(file, 'utf8'), file);
    units = specUnits(readFileSync(packagePath(map.source), 'utf8'));
  } catch (error) {
    return { coverage: { ...empty, problems: [(error as Error).message.replace(/\n\s*/g, ' ')] } };
  }
  const untestable: Partial<Record<UntestableKind, number>> = {};
  for (const s of map.sentences) if (s.untestable !== undefined) untestable[s.untestable.kind] = (untestable[s.untestable.kind] ?? 0) + 1;
  const problems = gapLines(specMapGaps(map, loadCatalog(), units));
  return { map, coverage: { file, sentences: map.sentences.length, covered: map.sentences.filter(isCovered).length, untestable, problems } };
}

export async function collectCoverage(): Promise<Coverage> {
  const vitest = await createVitest('test', suiteOptions({ reporters: [] }), VITE_OPTIONS);
  const tests = new Map<string, string[]>();
  const orphans: string[] = [];
  const catalog = loadCatalog();
  const known = new Set(catalog.requirements.map((r) => r.id));
  const { map, coverage: specMap } = checkSpecMap(process.env[SPEC_MAP_ENV] ?? packagePath('schemas', 'spec-map.yaml'));
  const sentencesOf = (id: string): string[] => (map?.sentences ?? []).filter((s) => s.requirements?.includes(id) === true).map((s) => s.id);
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
    .map((r) => ({ id: r.id, section: r.section, level: r.level, tests: tests.get(r.id) ?? [], sentences: sentencesOf(r.id) }));
  return { byRequirement, orphans, specMap };
}

/** The default map by its path in the package; another by the path it was given. */
function shownPath(file: string): string {
  const inPackage = relative(packagePath(), file);
  return inPackage.startsWith('..') ? file : inPackage;
}

function specMapLines(m: SpecMapCoverage): string[] {
  const kinds = (Object.entries(m.untestable) as Array<[UntestableKind, number]>).map(([kind, n]) => `${n} ${UNTESTABLE_KIND_LABELS[kind]}`);
  const untestable = m.sentences - m.covered;
  return [
    '',
    `Specification map ${shownPath(m.file)}: ${m.sentences} sentences of sections 1 to 9; ${m.covered} covered by requirements, ${untestable} explained as untestable${kinds.length > 0 ? ` (${kinds.join(', ')})` : ''}; ${m.problems.length} problems.`,
    ...m.problems.map((p) => `- ${p}`),
  ];
}

export function renderCoverage(coverage: Coverage): string {
  const none = '**none**';
  const rows = coverage.byRequirement.map(
    (r) => `| ${r.id} | ${r.section} | ${r.level} | ${r.tests.length === 0 ? none : r.tests.join('<br>')} | ${r.sentences.length === 0 ? none : r.sentences.join(', ')} |`,
  );
  const lines = ['| Requirement | § | Level | Tests | Sentences |', '|---|---|---|---|---|', ...rows];
  const covered = coverage.byRequirement.filter((r) => r.tests.length > 0).length;
  lines.push('', `${covered} of ${coverage.byRequirement.length} requirements have a test; ${coverage.orphans.length} tests name no requirement.`);
  for (const o of coverage.orphans) lines.push(`- no requirement: ${o}`);
  lines.push(...specMapLines(coverage.specMap));
  return `${lines.join('\n')}\n`;
}

export async function coverageCommand(): Promise<number> {
  const coverage = await collectCoverage();
  process.stdout.write(renderCoverage(coverage));
  const complete = coverage.orphans.length === 0 && coverage.byRequirement.every((r) => r.tests.length > 0) && coverage.specMap.problems.length === 0;
  return complete ? 0 : 1;
}
