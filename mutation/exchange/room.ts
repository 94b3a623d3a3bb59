/**
 * The equivalence and room file (mutation/exchange/room.yaml): which surviving exchange mutants
 * are explained, and by which interpretation of the catalog. An entry names mutants by a pattern
 * (`*` any run of characters), says whether they are equivalent (the mutation changes nothing a
 * client can tell on this server) or inside the spec's room (the server stays conforming), and
 * names the requirement whose catalog interpretation allows them.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { loadCatalog } from '../../src/catalog.js';
import { packagePath } from '../../src/interface/package-root.js';

export interface RoomEntry {
  mutants: string;
  kind: 'equivalent' | 'room';
  /** A requirement id whose catalog entry has the interpretation (or statement) that allows it. */
  interpretation: string;
  why: string;
}

/** The committed file (mutation/exchange/room.yaml), whether this module runs from dist/ or from source. */
export const ROOM_FILE = packagePath('mutation', 'exchange', 'room.yaml');

const patternOf = (glob: string): RegExp => new RegExp(`^${glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);

/** The file's entries, each checked: a known kind, a requirement of the catalog that has an interpretation. */
export function loadRoom(text: string = readFileSync(ROOM_FILE, 'utf8')): RoomEntry[] {
  const document: unknown = parse(text);
  const entries = typeof document === 'object' && document !== null && 'entries' in document ? (document as { entries: unknown }).entries : undefined;
  if (!Array.isArray(entries)) throw new Error('room.yaml: no entries list');
  const catalog = new Map(loadCatalog().requirements.map((r) => [r.id, r]));
  return entries.map((raw: unknown, i) => {
    const e = raw as Partial<RoomEntry>;
    const where = `room.yaml entry ${i + 1}`;
    if (typeof e.mutants !== 'string' || typeof e.why !== 'string' || typeof e.interpretation !== 'string') throw new Error(`${where}: mutants, interpretation and why are required`);
    if (e.kind !== 'equivalent' && e.kind !== 'room') throw new Error(`${where}: kind must be equivalent or room`);
    const requirement = catalog.get(e.interpretation);
    if (requirement === undefined) throw new Error(`${where}: ${e.interpretation} is no requirement of the catalog`);
    if (e.kind === 'room' && requirement.interpretation === undefined) throw new Error(`${where}: ${e.interpretation} has no interpretation to make room`);
    return { mutants: e.mutants, kind: e.kind, interpretation: e.interpretation, why: e.why };
  });
}

/** The first entry that explains a mutant, by name. */
export function explanationOf(name: string, room: readonly RoomEntry[]): RoomEntry | undefined {
  return room.find((entry) => patternOf(entry.mutants).test(name));
}
