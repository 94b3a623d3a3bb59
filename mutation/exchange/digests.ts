/**
 * What `--incremental` compares: one digest per section of the built code its requirements'
 * verdicts can depend on, so a changed check retests only the mutants of the sections it judges.
 *
 * The mapping is derived, never listed: a module under src/checks/ or suites/ belongs to the
 * sections whose requirement ids it quotes as string literals ('LIST-003', the form every
 * requirementTest, violation and record call uses; comments are not read as a claim), together
 * with the checks and suites it imports, transitively. The rest is shared and in every section's digest:
 * every module outside those two folders (the session, the client, the CLI, the reporters), and
 * a check or suite that quotes no id (a helper such as suites/support.ts). Two more rules keep it
 * honest where the run itself couples sections:
 * - a section with a cross-cutting requirement (judged on every exchange, whoever sent it)
 *   depends on every suite, since any of them may send the exchange that kills;
 * - every section depends on the suites that write (quote 'POST'), since the store they leave is
 *   what the other sections' requests read.
 * A time-dependent mutant's verdict rests on the whole run's timing, which any module can move:
 * it takes the whole tree's digest (`whole`).
 */
import { createHash } from 'node:crypto';
import { dirname, join, normalize } from 'node:path';

export const sha = (parts: readonly string[]): string => {
  const hash = createHash('sha256');
  for (const p of parts) hash.update(p).update('\0');
  return hash.digest('hex').slice(0, 16);
};

export interface CatalogEntry {
  id: string;
  section: string;
  crossCutting?: boolean | undefined;
}

export interface SectionDigests {
  /** Every module's digest. */
  whole: string;
  /** The digest of what the section's verdicts depend on (the shared modules for a section nothing quotes). */
  of(section: string): string;
  /** The modules behind a section's digest, relative paths in order: for tests and for --list. */
  filesOf(section: string): string[];
}

const SCOPED = ['src/checks/', 'suites/'];
const QUOTED_ID = /['"`]([A-Z]+-\d{3})\b/g;
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

const isScoped = (path: string): boolean => SCOPED.some((prefix) => path.startsWith(prefix));

/** Relative paths of the modules `path` imports, as keys of `files`. */
function importsOf(path: string, text: string, files: ReadonlyMap<string, string>): string[] {
  return [...text.matchAll(RELATIVE_IMPORT)].map((m) => normalize(join(dirname(path), m[1] ?? ''))).filter((p) => files.has(p));
}

/** `files`: relative path (under the built tree: src/..., suites/..., reporters/...) to its text. */
export function sectionDigests(files: ReadonlyMap<string, string>, catalog: readonly CatalogEntry[]): SectionDigests {
  // Source maps and declarations change with comments and types alone, and no run reads them.
  const paths = [...files.keys()].filter((p) => !p.endsWith('.map') && !p.endsWith('.d.ts')).sort();
  const sectionOfId = new Map(catalog.map((r) => [r.id, r.section]));
  const crossCutting = new Set(catalog.filter((r) => r.crossCutting === true).map((r) => r.section));
  const sectionsQuoted = new Map<string, Set<string>>();
  for (const path of paths.filter(isScoped)) {
    const ids = [...(files.get(path) ?? '').matchAll(QUOTED_ID)].map((m) => m[1] ?? '');
    const sections = new Set(ids.flatMap((id) => (sectionOfId.has(id) ? [sectionOfId.get(id) ?? ''] : [])));
    if (sections.size > 0) sectionsQuoted.set(path, sections);
  }
  const shared = paths.filter((p) => !sectionsQuoted.has(p));
  const suites = paths.filter((p) => p.startsWith('suites/'));
  const writing = suites.filter((p) => (files.get(p) ?? '').includes("'POST'"));

  // Followed from checks and suites only: a shared module is in every digest already, and what it
  // imports of the checks (the run's list of them) records only those checks' own sections.
  const closure = (roots: readonly string[]): Set<string> => {
    const seen = new Set<string>();
    const stack = [...roots];
    for (let path = stack.pop(); path !== undefined; path = stack.pop()) {
      if (seen.has(path)) continue;
      seen.add(path);
      if (isScoped(path)) stack.push(...importsOf(path, files.get(path) ?? '', files));
    }
    return seen;
  };
  const cache = new Map<string, string[]>();
  const filesOf = (section: string): string[] => {
    const known = cache.get(section);
    if (known !== undefined) return known;
    const own = [...sectionsQuoted].filter(([, sections]) => sections.has(section)).map(([path]) => path);
    const result = [...new Set([...shared, ...closure([...own, ...writing, ...(crossCutting.has(section) ? suites : [])])])].sort();
    cache.set(section, result);
    return result;
  };
  const digestOfFiles = (list: readonly string[]): string => sha(list.flatMap((p) => [p, files.get(p) ?? '']));
  return {
    whole: digestOfFiles(paths),
    of: (section) => digestOfFiles(filesOf(section)),
    filesOf,
  };
}
