/**
 * The test run's own temporary root: TMPDIR points into it for the whole run (the test workers,
 * the CLI runs and the browser inherit it), and whatever is still in it at the end was left
 * behind by a test. A root of its own makes the check exact even while other programs use the
 * system temporary directory; it is removed either way, so a failing run leaves nothing.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { TEMP_PREFIX } from './temp-dirs.js';

export interface TemporaryRoot {
  root: string;
  systemTmp: string;
  /** Entries of the system temporary directory when the run started. */
  before: ReadonlySet<string>;
  savedTmpdir: string | undefined;
}

export function openTemporaryRoot(): TemporaryRoot {
  const systemTmp = tmpdir();
  const before = new Set(readdirSync(systemTmp));
  const root = mkdtempSync(join(systemTmp, `${TEMP_PREFIX}test-run-`));
  const savedTmpdir = process.env['TMPDIR'];
  process.env['TMPDIR'] = root;
  return { root, systemTmp, before, savedTmpdir };
}

/** Entries with our prefix that were not there before, sorted. */
export function newEntries(before: ReadonlySet<string>, after: readonly string[], exclude: string): string[] {
  return after.filter((name) => name.startsWith(TEMP_PREFIX) && name !== exclude && !before.has(name)).sort();
}

export interface Leftovers {
  /** Left in the run's root: always a test's fault. */
  inRoot: string[];
  /** New `pc-` entries of the system temporary directory: ours unless another run of our tests shares the machine. */
  outside: string[];
}

/** Lists what was left behind, then removes the root and restores TMPDIR. */
export function closeTemporaryRoot(state: TemporaryRoot): Leftovers {
  if (state.savedTmpdir === undefined) delete process.env['TMPDIR'];
  else process.env['TMPDIR'] = state.savedTmpdir;
  const inRoot = readdirSync(state.root).sort().map((name) => join(state.root, name));
  rmSync(state.root, { recursive: true, force: true });
  const outside = newEntries(state.before, readdirSync(state.systemTmp), basename(state.root)).map((name) => join(state.systemTmp, name));
  return { inRoot, outside };
}
