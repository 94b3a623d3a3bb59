/**
 * The specification map (schemas/spec-map.yaml) against the spec's own text: every sentence and
 * table row of sections 1 to 9, verbatim and in document order, each covered or explained; and
 * the pure gap finder `coverage` relies on, fed altered copies.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../src/catalog.js';
import { packagePath } from '../src/interface/package-root.js';
import { specVersion } from '../src/interface/openapi.js';
import { gapLines, isCovered, loadSpecMap, specMapGaps, type SpecMap, type SpecSentence } from '../src/spec-map.js';
import { parseSpecMap } from '../src/spec-map-schema.js';
import { specUnits } from '../src/spec-text.js';

const mapText = readFileSync(packagePath('schemas', 'spec-map.yaml'), 'utf8');
const specText = readFileSync(packagePath('spec', 'pet-store-service.md'), 'utf8');
const units = specUnits(specText);
/** The spec as the project's checkout sees it in CI: shared/ beside the clone. */
const sharedSpec = packagePath('..', 'shared', 'spec', 'pet-store-service.md');

function withSentences(change: (sentences: SpecSentence[]) => void): SpecMap {
  const sentences = structuredClone([...loadSpecMap().sentences]);
  change(sentences);
  return { ...loadSpecMap(), sentences };
}

describe('the spec text', () => {
  it.skipIf(!existsSync(sharedSpec))('the committed copy is the shared specification, byte for byte', () => {
    expect(specText).toBe(readFileSync(sharedSpec, 'utf8'));
  });

  it('splits paragraphs and list items into sentences, keeps table body rows, drops headings and bare labels', () => {
    const md = [
      'Preamble. Not part of any section.',
      '## 4. Endpoints',
      '### 4.2 Add an animal',
      '- Responses:',
      '  - 201: body is Pet (the created animal, with its assigned `id`).',
      '- Request body (required, `application/json`): NewPet. `name` and `categoryId` are required.',
      '',
      '| Field | Type |',
      '|---|---|',
      '| name | string |',
      '## 8. Limits',
      '### Page size',
      '1. A request over the limit receives 429. Unit: not shown; clients wait.',
    ].join('\n');
    expect(specUnits(md)).toEqual([
      { section: '4.2', text: '201: body is Pet (the created animal, with its assigned `id`).' },
      { section: '4.2', text: 'Request body (required, `application/json`): NewPet.' },
      { section: '4.2', text: '`name` and `categoryId` are required.' },
      { section: '4.2', text: 'name | string' },
      { section: '8', text: 'A request over the limit receives 429.' },
      { section: '8', text: 'Unit: not shown; clients wait.' },
    ]);
  });

  it('finds every section from 1 to 9', () => {
    expect([...new Set(units.map((u) => u.section.split('.')[0]))]).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(units.length).toBeGreaterThan(80);
  });
});

describe('the real map', () => {
  it('validates, loads once and matches the interface version', () => {
    const map = loadSpecMap();
    expect(parseSpecMap(mapText)).toEqual(map);
    expect(loadSpecMap()).toBe(map);
    expect(map.specVersion).toBe(specVersion());
    expect(map.specVersion).toBe(loadCatalog().specVersion);
    expect(existsSync(packagePath(map.source))).toBe(true);
  });

  it('lists every unit of the spec, verbatim, in document order, numbered within its section', () => {
    const map = loadSpecMap();
    expect(map.sentences.map((s) => ({ section: s.section, text: s.text }))).toEqual(units);
    const next = new Map<string, number>();
    for (const s of map.sentences) {
      const n = (next.get(s.section) ?? 0) + 1;
      next.set(s.section, n);
      expect(s.id).toBe(`S${s.section}-${String(n).padStart(2, '0')}`);
    }
  });

  it('has no gap: every sentence covered or explained, every requirement covering one', () => {
    expect(gapLines(specMapGaps(loadSpecMap(), loadCatalog(), units))).toEqual([]);
  });

  it('explains the clauses an auditor asks about first', () => {
    const byText = (fragment: string): SpecSentence | undefined => loadSpecMap().sentences.find((s) => s.text.includes(fragment));
    expect(byText('may be temporarily banned')?.untestable?.kind).toBe('permissive');
    expect(byText('may lead to a temporary ban')?.untestable?.kind).toBe('permissive');
    expect(byText('Higher limits come from a plan upgrade')?.untestable?.kind).toBe('not-observable');
    expect(byText('Enterprise | custom')?.untestable?.kind).toBe('not-shown');
    expect(byText('`x-stability` extension')?.untestable?.kind).toBe('described-elsewhere');
    expect(byText('Events: not shown.')?.untestable?.kind).toBe('not-shown');
    expect(byText('exponential backoff')?.untestable?.kind).toBe('client-duty');
    expect(byText('equals the HTTP status code')?.requirements).toEqual(['ERR-002']);
    expect(loadSpecMap().sentences.filter(isCovered).length).toBeGreaterThan(50);
  });
});

describe('specMapGaps', () => {
  const catalog = loadCatalog();

  it('names a sentence of the spec the map lacks, and a quote the spec does not have', () => {
    const gaps = specMapGaps(
      withSentences((s) => {
        s.splice(s.findIndex((x) => x.id === 'S8-13'), 1);
        s.find((x) => x.id === 'S8-10')!.text = 'A request over the limit receives 429.';
      }),
      catalog,
      units,
    );
    expect(gaps.missing.map((u) => u.text)).toEqual(['A request over the limit receives 429 `Too Many Requests`.', 'Clients should use exponential backoff.']);
    expect(gaps.notInSpec.map((s) => s.id)).toEqual(['S8-10']);
  });

  it('names a sentence neither covered nor explained, an unknown requirement and an unmapped one', () => {
    const gaps = specMapGaps(
      withSentences((s) => {
        const orders = s.find((x) => x.id === 'S4.4-01')!;
        orders.requirements = ['ORDERS-009'];
        s.find((x) => x.id === 'S2-11')!.requirements = [];
      }),
      catalog,
    );
    expect(gaps.unexplained.map((s) => s.id)).toEqual(['S2-11']);
    expect(gaps.unknownRequirements).toEqual([{ sentence: 'S4.4-01', requirement: 'ORDERS-009' }]);
    expect(gaps.unmapped).toEqual(['ORDERS-001']);
    expect(gapLines(gaps)).toEqual([
      'S2-11: neither covered by a requirement nor explained as untestable',
      'S4.4-01: names ORDERS-009, which is not in the catalog',
      'ORDERS-001: covers no sentence of the specification map',
    ]);
  });
});

describe('parseSpecMap rejects broken maps', () => {
  const variants: Array<[string, (s: SpecSentence[]) => void]> = [
    ['requirements and a reason on one sentence', (s) => void (s[0]!.requirements = ['MEDIA-001'])],
    ['an unknown reason kind', (s) => void (s[0]!.untestable = { kind: 'too-hard' as never, explanation: 'x' })],
    ['a reason without explanation', (s) => void (s[0]!.untestable = { kind: 'informative' } as never)],
    ['an empty requirement list', (s) => void (s[2]!.requirements = [])],
    ['a malformed sentence id', (s) => void (s[0]!.id = 'S1-1')],
  ];
  it.each(variants)('%s', (_name, change) => {
    expect(() => parseSpecMap(JSON.stringify(withSentences(change)))).toThrow(/spec-map\.yaml is invalid/);
  });

  it('repeated sentence ids', () => {
    expect(() => parseSpecMap(JSON.stringify(withSentences((s) => void (s[1]!.id = s[0]!.id))))).toThrow(/repeats sentence ids: S1-01/);
  });
});
