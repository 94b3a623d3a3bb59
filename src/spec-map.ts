/**
 * The specification map (schemas/spec-map.yaml): every normative sentence of the spec, sections 1
 * to 9, with the requirements that check it or the reason no client-side test can. It answers the
 * auditor's "which clauses did you test, and why not the others?"; the catalog answers the reverse.
 * Loaded once; a requirement id the catalog does not have is a programming error, so loadSpecMap
 * throws. The full JSON Schema validation lives in spec-map-schema.ts (Ajv, which a run never loads).
 */
import { loadCatalog, type Catalog } from './catalog.js';
import { readYamlDocument } from './interface/documents.js';
import type { SpecUnit } from './spec-text.js';

export type UntestableKind = 'not-observable' | 'permissive' | 'described-elsewhere' | 'not-shown' | 'client-duty' | 'informative';

/** How each kind of reason reads in the reports. */
export const UNTESTABLE_KIND_LABELS: Readonly<Record<UntestableKind, string>> = {
  'not-observable': 'not observable by a client',
  permissive: 'permissive ("may")',
  'described-elsewhere': 'stated in the interface description',
  'not-shown': 'not shown by the specification',
  'client-duty': "client's duty (not the server's)",
  informative: 'informative',
};

export interface Untestable {
  kind: UntestableKind;
  explanation: string;
}

export interface SpecSentence {
  /** S<section>-NN, stable. */
  id: string;
  section: string;
  /** The sentence or table row, verbatim. */
  text: string;
  /** The requirements whose tests check it; present and non-empty when it is covered. */
  requirements?: string[];
  /** What of a covered sentence its requirements leave out, or how they read it. */
  note?: string;
  untestable?: Untestable;
}

export interface SpecMap {
  specVersion: string;
  specTitle: string;
  /** The spec copy the sentences quote, relative to the package root. */
  source: string;
  sentences: readonly SpecSentence[];
}

function repeated(values: readonly string[]): string[] {
  const seen = new Set<string>();
  return values.filter((v) => seen.has(v) || !seen.add(v));
}

/** The map from its parsed document; sentence ids must be unique. */
export function specMapFrom(document: unknown): SpecMap {
  const data = document as SpecMap;
  const duplicates = repeated(data.sentences.map((s) => s.id));
  if (duplicates.length > 0) throw new Error(`schemas/spec-map.yaml repeats sentence ids: ${duplicates.join(', ')}`);
  return data;
}

export function isCovered(sentence: SpecSentence): boolean {
  return (sentence.requirements?.length ?? 0) > 0;
}

export interface SpecMapGaps {
  /** Units of the spec the map does not quote verbatim (in that section), in document order. */
  missing: SpecUnit[];
  /** Sentences whose text is not a unit of the spec's section (misquoted, or the spec changed). */
  notInSpec: SpecSentence[];
  /** Sentences with neither requirements nor a reason. */
  unexplained: SpecSentence[];
  /** Requirement ids the catalog does not have. */
  unknownRequirements: Array<{ sentence: string; requirement: string }>;
  /** Requirements of the catalog that no sentence names. */
  unmapped: string[];
}

const unitKey = (u: { section: string; text: string }): string => `${u.section}\u0000${u.text}`;

/** Units on one side that the other lacks, counted (the same row can appear twice in a section). */
function unmatched<T extends { section: string; text: string }>(items: readonly T[], against: readonly { section: string; text: string }[]): T[] {
  const available = new Map<string, number>();
  for (const a of against) available.set(unitKey(a), (available.get(unitKey(a)) ?? 0) + 1);
  return items.filter((item) => {
    const left = available.get(unitKey(item)) ?? 0;
    available.set(unitKey(item), left - 1);
    return left <= 0;
  });
}

/**
 * What keeps the map from being complete, against the catalog and, when given, the units of the
 * spec's text (src/spec-text.ts). Pure: `coverage` and the tests feed it altered copies.
 */
export function specMapGaps(map: SpecMap, catalog: Pick<Catalog, 'requirements'>, units?: readonly SpecUnit[]): SpecMapGaps {
  const known = new Set(catalog.requirements.map((r) => r.id));
  const named = new Set(map.sentences.flatMap((s) => s.requirements ?? []));
  return {
    missing: units === undefined ? [] : unmatched(units, map.sentences),
    notInSpec: units === undefined ? [] : unmatched(map.sentences, units),
    unexplained: map.sentences.filter((s) => !isCovered(s) && s.untestable === undefined),
    unknownRequirements: map.sentences.flatMap((s) => (s.requirements ?? []).filter((id) => !known.has(id)).map((requirement) => ({ sentence: s.id, requirement }))),
    unmapped: catalog.requirements.map((r) => r.id).filter((id) => !named.has(id)),
  };
}

/** One line per gap; empty when the map is complete. */
export function gapLines(gaps: SpecMapGaps): string[] {
  return [
    ...gaps.missing.map((u) => `§ ${u.section}: the spec's sentence is not in the map: "${u.text}"`),
    ...gaps.notInSpec.map((s) => `${s.id}: its text is not a sentence of § ${s.section} of the spec: "${s.text}"`),
    ...gaps.unexplained.map((s) => `${s.id}: neither covered by a requirement nor explained as untestable`),
    ...gaps.unknownRequirements.map((u) => `${u.sentence}: names ${u.requirement}, which is not in the catalog`),
    ...gaps.unmapped.map((id) => `${id}: covers no sentence of the specification map`),
  ];
}

let cachedMap: SpecMap | undefined;

export function loadSpecMap(): SpecMap {
  if (cachedMap === undefined) {
    const map = specMapFrom(readYamlDocument('spec-map'));
    const unknown = specMapGaps(map, loadCatalog()).unknownRequirements;
    if (unknown.length > 0) throw new Error(`schemas/spec-map.yaml names unknown requirements: ${unknown.map((u) => `${u.sentence} ${u.requirement}`).join(', ')}`);
    cachedMap = map;
  }
  return cachedMap;
}
