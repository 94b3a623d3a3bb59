/**
 * The requirement catalog (schemas/requirements.yaml): the single source of requirement ids,
 * titles, levels and interpretations. Loaded and validated once; an unknown id is a programming
 * error, so getRequirement throws rather than returning undefined.
 */
import { readYamlDocument } from './interface/documents.js';

export type Level = 'must' | 'should';

export interface Requirement {
  id: string;
  section: string;
  title: string;
  level: Level;
  /** Why the level: must only for what the spec states; hygiene the spec does not ask for is should. */
  levelReason?: string;
  statement: string;
  quote: string;
  test: string;
  interpretation?: string;
  crossCutting?: boolean;
  /** Stack defaults known to break it, recognised by a pattern on a violation's message, and how stacks fix them. */
  commonCauses?: CommonCause[];
  /** Requirements whose tests produce what this one inspects; selecting it selects them too. */
  needs?: string[];
}

export interface CommonCause {
  /** A regular expression a violation message matches. */
  match: string;
  cause: string;
  fix: string;
}

/** The common causes of a requirement's failure that its violation messages show, each once. */
export function commonCausesOf(id: string, messages: readonly string[]): CommonCause[] {
  const causes = byId().get(id)?.commonCauses ?? [];
  return causes.filter((c) => messages.some((m) => new RegExp(c.match).test(m)));
}

export interface NotTested {
  section: string;
  statement: string;
  reason: string;
}

export interface Catalog {
  specVersion: string;
  specTitle: string;
  requirements: readonly Requirement[];
  notTested: readonly NotTested[];
}

function duplicateIds(requirements: readonly Requirement[]): string[] {
  const seen = new Set<string>();
  return requirements.map((r) => r.id).filter((id) => seen.has(id) || !seen.add(id));
}

/**
 * The catalog from its parsed document. The full JSON Schema validation lives in catalog-schema.ts (it needs Ajv,
 * which the CLI's own process otherwise never loads); our tests run it on the shipped file.
 */
export function catalogFrom(document: unknown): Catalog {
  const data = document as Catalog;
  const duplicates = duplicateIds(data.requirements);
  if (duplicates.length > 0) throw new Error(`schemas/requirements.yaml repeats ids: ${duplicates.join(', ')}`);
  return data;
}

let cachedCatalog: Catalog | undefined;
let cachedById: ReadonlyMap<string, Requirement> | undefined;

export function loadCatalog(): Catalog {
  cachedCatalog ??= catalogFrom(readYamlDocument('requirements'));
  return cachedCatalog;
}

function byId(): ReadonlyMap<string, Requirement> {
  cachedById ??= new Map(loadCatalog().requirements.map((r) => [r.id, r]));
  return cachedById;
}

export function getRequirement(id: string): Requirement {
  const requirement = byId().get(id);
  if (requirement === undefined) throw new Error(`Unknown requirement id: ${id}`);
  return requirement;
}

/** Every requirement id, in catalog order. */
export function requirementIds(): string[] {
  return loadCatalog().requirements.map((r) => r.id);
}

/** Orders section numbers as the spec does: "2" < "4.1" < "4.2" < "8" < "10" (numerically, part by part). */
export function compareSections(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i];
    const y = pb[i];
    if (x === undefined || y === undefined) return x === undefined ? (y === undefined ? 0 : -1) : 1;
    if (x !== y) return x - y;
  }
  return 0;
}

const SECTION = /^[0-9]+(\.[0-9]+)*$/;
const AREA = /^[A-Z]+$/;

function matches(entry: string, r: Requirement): boolean {
  if (SECTION.test(entry)) return r.section === entry || r.section.startsWith(`${entry}.`);
  if (AREA.test(entry)) return r.id.startsWith(`${entry}-`);
  return r.id === entry;
}

/**
 * The ids a --only list selects. Each entry is an id (LIST-003), a section (4.1; 4 selects 4.1–4.4)
 * or an area (LIST), case-insensitive. An entry that selects nothing is almost always a typo, so it
 * throws with the entry named. An empty list selects every requirement.
 */
export function selectRequirements(only: readonly string[]): Set<string> {
  const { requirements } = loadCatalog();
  if (only.length === 0) return new Set(requirements.map((r) => r.id));
  const selected = new Set<string>();
  for (const raw of only) {
    const entry = raw.trim().toUpperCase();
    const hits = requirements.filter((r) => matches(entry, r));
    if (hits.length === 0) {
      throw new Error(`"${raw}" is not a requirement id, section or area of the catalog (e.g. LIST-003, 4.1, LIST)`);
    }
    hits.forEach((r) => selected.add(r.id));
  }
  return withNeeds(selected);
}

/** The selection plus, transitively, what its requirements need (a 429 to recover from, pets to fetch). */
function withNeeds(selected: Set<string>): Set<string> {
  const pending = [...selected];
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    for (const need of getRequirement(id).needs ?? []) {
      if (!selected.has(need)) {
        selected.add(need);
        pending.push(need);
      }
    }
  }
  return selected;
}
