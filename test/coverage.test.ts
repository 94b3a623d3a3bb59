/**
 * Requirement coverage (Inferno's check): every requirement of the catalog is verified by at least
 * one test of the suites, and every test names a requirement of the catalog. Collected from the
 * compiled suites without running them, exactly as `petstore-conformance coverage` does. And the
 * specification map: every sentence of the spec covered or explained, every requirement covering one.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { loadCatalog } from '../src/catalog.js';
import { packagePath } from '../src/interface/package-root.js';
import { SPEC_MAP_ENV } from '../src/cli/coverage.js';
import type { SpecMap } from '../src/spec-map.js';
import { runCli } from './support/cli.js';
import { tempDirs } from './support/temp-dirs.js';

const tempDir = tempDirs();

/** The shipped map, changed, written to a temporary file for `coverage` to read instead. */
async function alteredMap(change: (map: SpecMap & { sentences: SpecMap['sentences'][number][] }) => void): Promise<string> {
  const map = parse(readFileSync(packagePath('schemas', 'spec-map.yaml'), 'utf8')) as SpecMap & { sentences: SpecMap['sentences'][number][] };
  change(map);
  const file = join(await tempDir('spec-map'), 'spec-map.yaml');
  writeFileSync(file, stringify(map));
  return file;
}

describe('requirement coverage', () => {
  it('lists a test and a sentence for every requirement, no test without one, and a complete map', async () => {
    const result = await runCli(['coverage']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    for (const r of loadCatalog().requirements) {
      expect(result.stdout, `${r.id} has no test or no sentence`).toMatch(new RegExp(`^\\| ${r.id} \\| [^|]+ \\| [^|]+ \\| ${r.id} [^|]+ \\| S[0-9]`, 'm'));
    }
    expect(result.stdout).toMatch(/0 tests name no requirement/);
    expect(result.stdout).toMatch(/^Specification map schemas\/spec-map\.yaml: 89 sentences of sections 1 to 9; 62 covered by requirements, 27 explained as untestable \(.*\); 0 problems\.$/m);
  });

  it('exits 1 when a sentence of the spec is missing from the map, and names it', async () => {
    const file = await alteredMap((map) => void map.sentences.splice(map.sentences.findIndex((s) => s.id === 'S5-05'), 1));
    const result = await runCli(['coverage'], { [SPEC_MAP_ENV]: file });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`- § 5: the spec's sentence is not in the map: "A key that is used repeatedly after rate-limit rejections may be temporarily banned (see Limits)."`);
    expect(result.stdout).toMatch(/88 sentences .*; 1 problems\./);
  });

  it('exits 1 when a requirement covers no sentence, or a sentence is neither covered nor explained', async () => {
    const file = await alteredMap((map) => {
      for (const s of map.sentences) if (s.requirements !== undefined) s.requirements = s.requirements.filter((id) => id !== 'LIST-007');
      const unexplained = map.sentences.find((s) => s.id === 'S7-06');
      delete unexplained?.requirements;
    });
    const result = await runCli(['coverage'], { [SPEC_MAP_ENV]: file });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('- S7-06: neither covered by a requirement nor explained as untestable');
    expect(result.stdout).not.toContain('- ERR-002:');
    expect(result.stdout).toContain('- LIST-007: covers no sentence of the specification map');
    expect(result.stdout).toMatch(/^\| LIST-007 \| 4\.1 \| must \| LIST-007 [^|]+ \| \*\*none\*\* \|$/m);
  });

  it('exits 1 with the schema error when the map is not a valid map', async () => {
    const file = await alteredMap((map) => void (map.sentences[0]!.untestable = { kind: 'hard' as never, explanation: 'x' }));
    const result = await runCli(['coverage'], { [SPEC_MAP_ENV]: file });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/spec-map\.yaml is invalid: .*kind/);
  });
});
