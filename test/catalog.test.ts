import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  compareSections,
  getRequirement,
  loadCatalog,
  requirementIds,
  selectRequirements,
  type Catalog,
} from '../src/catalog.js';
import { packagePath } from '../src/interface/package-root.js';
import { parseCatalog } from '../src/catalog-schema.js';
import { specVersion } from '../src/interface/openapi.js';

type Mutable = { requirements: Array<Record<string, unknown>> } & Record<string, unknown>;

const realText = readFileSync(packagePath('schemas', 'requirements.yaml'), 'utf8');

function catalogWith(change: (c: Mutable) => void): string {
  const copy = structuredClone(loadCatalog()) as unknown as Mutable;
  change(copy);
  return stringify(copy);
}

describe('the real catalog', () => {
  it('loads, validates and matches the interface version', () => {
    const catalog: Catalog = loadCatalog();
    expect(catalog.specVersion).toBe(specVersion());
    expect(catalog.specTitle).toBe('Pet Store Service Interface Specification');
    expect(catalog.requirements.length).toBeGreaterThan(20);
    expect(catalog.notTested.length).toBeGreaterThan(0);
    expect(loadCatalog()).toBe(catalog);
    expect(parseCatalog(realText)).toEqual(catalog);
  });

  it('is listed in spec order', () => {
    const sections = loadCatalog().requirements.map((r) => r.section);
    expect([...sections].sort(compareSections)).toEqual(sections);
  });

  it('gives requirements by id and throws on unknown ids', () => {
    expect(getRequirement('LIST-003')).toMatchObject({ section: '4.1', level: 'must' });
    expect(getRequirement('GET-005').level).toBe('should');
    expect(getRequirement('MEDIA-001').crossCutting).toBe(true);
    expect(() => getRequirement('LIST-999')).toThrow(/LIST-999/);
    expect(requirementIds()).toContain('RATE-007');
    expect(new Set(requirementIds()).size).toBe(requirementIds().length);
  });
});

describe('levels follow the spec\'s words', () => {
  const reviewed = loadCatalog().requirements;

  it('gives every reviewed requirement the reason for its level', () => {
    expect(reviewed.filter((r) => r.levelReason === undefined).map((r) => r.id)).toEqual([]);
  });

  it('keeps HTTP hygiene the spec does not ask for at should level', () => {
    expect(getRequirement('GET-004').level).toBe('should');
    expect(getRequirement('GET-005').level).toBe('should');
    expect(reviewed.filter((r) => r.level === 'should').every((r) => /does not ask/.test(r.levelReason ?? ''))).toBe(true);
  });
});

describe('parseCatalog rejects broken catalogs', () => {
  it.each([
    ['a malformed id', (c: Mutable) => void (c.requirements[0]!['id'] = 'list-1')],
    ['an unknown level', (c: Mutable) => void (c.requirements[0]!['level'] = 'may')],
    ['a numeric section', (c: Mutable) => void (c.requirements[0]!['section'] = 4.1)],
    ['a missing title', (c: Mutable) => void delete c.requirements[0]!['title']],
    ['an unknown field', (c: Mutable) => void (c.requirements[0]!['note'] = 'x')],
  ])('%s', (_name, change) => {
    expect(() => parseCatalog(catalogWith(change))).toThrow(/requirements\.yaml is invalid/);
  });

  it('duplicate ids', () => {
    const text = catalogWith((c) => void (c.requirements[1]!['id'] = c.requirements[0]!['id']));
    expect(() => parseCatalog(text)).toThrow(/repeats ids: MEDIA-001/);
  });
});

describe('compareSections', () => {
  it('orders sections numerically, part by part', () => {
    const shuffled = ['9', '4.2', '10', '1', '4', '8', '4.10', '2', '4.1', '4.4'];
    expect(shuffled.sort(compareSections)).toEqual(['1', '2', '4', '4.1', '4.2', '4.4', '4.10', '8', '9', '10']);
    expect(compareSections('4.1', '4.1')).toBe(0);
  });
});

describe('selectRequirements', () => {
  it('selects by id, section, parent section and area', () => {
    expect([...selectRequirements(['LIST-003'])]).toEqual(['LIST-003']);
    expect([...selectRequirements(['4.3'])]).toEqual(['GET-001', 'GET-002', 'GET-003', 'GET-004', 'GET-005']);
    expect([...selectRequirements(['AUTH'])]).toEqual(['AUTH-001', 'AUTH-002', 'AUTH-003', 'AUTH-004']);
    const four = selectRequirements(['4']);
    expect(four.has('LIST-001') && four.has('CREATE-004') && four.has('GET-005') && four.has('ORDERS-001')).toBe(true);
    expect(four.has('AUTH-001')).toBe(false);
    expect([...selectRequirements(['8'])].every((id) => id.startsWith('RATE-'))).toBe(true);
  });

  it('combines entries and accepts lower case', () => {
    expect([...selectRequirements(['list-001', 'orders', '2'])]).toEqual(['LIST-001', 'ORDERS-001', 'PET-001', 'PET-002']);
  });

  it('selects everything for an empty list', () => {
    expect(selectRequirements([]).size).toBe(requirementIds().length);
  });

  it.each(['LIST-999', 'NOPE', '4.9', '3', 'LIST-', ''])('names the bad entry %j', (entry) => {
    expect(() => selectRequirements(['LIST', entry])).toThrow(`"${entry}"`);
  });
});
