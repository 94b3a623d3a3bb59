/**
 * Every way the docs run the suite through npx names `--no-install`. The package is not on the
 * npm registry and we do not own its name there: a plain `npx petstore-conformance …` run where it
 * is not installed (an auditor's archive directory, a fresh runner) would install and run whatever
 * package of that name the registry serves. With `--no-install` npx stops instead.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
/** What a user reads or runs: the README, docs/, examples/ and the Action's files. */
const DOCS = ['README.md', 'docs', 'examples', 'action.yml', 'scripts/action'];
const TEXT = /\.(md|ya?ml|sh|json|[cm]?[jt]s)$/;

/** An npx (or npm exec) command line that runs petstore-conformance: its options before the name. */
const RUNS_BY_NAME = /\b(?:npx|npm\s+(?:exec|x))((?:\s+-[^\s]+)*)\s+petstore-conformance\b/g;

/** The command lines of `text` that would fetch petstore-conformance from the registry by name. */
function fetchesByName(text: string): string[] {
  return text.split('\n').filter((line) => [...line.matchAll(RUNS_BY_NAME)].some((m) => !/(^|\s)--no-install(\s|$)/.test(m[1] ?? '')));
}

async function docFiles(path: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, path), { withFileTypes: true }).catch(() => undefined);
  if (entries === undefined) return [path];
  const nested = await Promise.all(
    entries.filter((e) => e.name !== 'node_modules' && (e.isDirectory() || TEXT.test(e.name))).map((e) => docFiles(join(path, e.name))),
  );
  return nested.flat();
}

describe('npx in the docs', () => {
  it('tells a command that fetches by name from one that does not', () => {
    expect(fetchesByName('npx petstore-conformance verify report.json')).toHaveLength(1);
    expect(fetchesByName('  run: npx -y petstore-conformance --base-url x')).toHaveLength(1);
    expect(fetchesByName('npm exec petstore-conformance -- --help')).toHaveLength(1);
    expect(fetchesByName('npx --no-install petstore-conformance --help')).toEqual([]);
    expect(fetchesByName('npx --yes --no-install petstore-conformance')).toEqual([]);
    expect(fetchesByName('./node_modules/.bin/petstore-conformance --help')).toEqual([]);
    expect(fetchesByName('npx vitest run')).toEqual([]);
  });

  it('every npx petstore-conformance in README.md, docs/, examples/ and the Action says --no-install', async () => {
    const files = (await Promise.all(DOCS.map(docFiles))).flat();
    expect(files).toContain('README.md');
    const offending: string[] = [];
    let runs = 0;
    for (const file of files) {
      const text = await readFile(join(ROOT, file), 'utf8');
      runs += [...text.matchAll(RUNS_BY_NAME)].length;
      for (const line of fetchesByName(text)) offending.push(`${file}: ${line.trim()}`);
    }
    // The docs do run it through npx, so the scan reads the files it means to.
    expect(runs).toBeGreaterThan(0);
    expect(offending).toEqual([]);
  });
});
