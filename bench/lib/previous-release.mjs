// The previous release, measured beside the current tree: a tag or a commit of this repository,
// cloned from it (git clone of the local repository), installed with `npm ci` from the npm cache
// and built, in the system's temporary directory. The clone is kept there, keyed by commit, so the
// next bench call starts at once; BENCH_FRESH=1 makes it again.
//
// Which release: BENCH_PREVIOUS (a tag or a commit), else the newest tag, else the commit that
// bench/config.json names.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, openSync, closeSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const READY = '.bench-ready';

function git(cwd, args) {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** The release to compare with, and why that one. */
export function previousRelease(root) {
  const given = process.env.BENCH_PREVIOUS;
  if (given !== undefined && given !== '') return { ref: given, why: 'BENCH_PREVIOUS' };
  const newestTag = git(root, ['tag', '--sort=-creatordate']).split('\n')[0];
  if (newestTag !== undefined && newestTag !== '') return { ref: newestTag, why: 'the newest tag' };
  const config = JSON.parse(readFileSync(join(root, 'bench', 'config.json'), 'utf8'));
  return { ref: config.previousRelease, why: 'bench/config.json (the repository has no tag)' };
}

/** Runs a preparation step with its output in `log`; throws with the log's name when it fails. */
function step(command, args, cwd, log) {
  const fd = openSync(log, 'a');
  try {
    const done = spawnSync(command, args, { cwd, stdio: ['ignore', fd, fd] });
    if (done.status !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${cwd} (exit ${done.status}); see ${log}`);
  } finally {
    closeSync(fd);
  }
}

/** The release checked out and built: its commit, its directory, and how it was obtained. */
export async function preparePrevious(root, ref, say) {
  const sha = git(root, ['rev-parse', '--verify', `${ref}^{commit}`]);
  const dir = join(tmpdir(), 'petstore-conformance-bench', sha);
  if (existsSync(join(dir, READY)) && process.env.BENCH_FRESH !== '1') return { sha, dir, reused: true };
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const log = `${dir}.log`;
  writeFileSync(log, '');
  say(`preparing ${ref} (${sha.slice(0, 7)}) in ${dir}: git clone, npm ci, build (log: ${log})`);
  step('git', ['clone', '--quiet', '--no-checkout', root, dir], root, log);
  step('git', ['checkout', '--quiet', '--detach', sha], dir, log);
  // npm ci runs the package's prepare script, which builds dist/; built again only if it did not.
  step('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], dir, log);
  if (!existsSync(join(dir, 'dist', 'src', 'cli', 'main.js'))) step('npm', ['run', 'build'], dir, log);
  writeFileSync(join(dir, READY), `${new Date().toISOString()}\n`);
  return { sha, dir, reused: false };
}

/** The current tree's commit, and whether it has changes not committed. */
export function currentTree(root) {
  const sha = git(root, ['rev-parse', 'HEAD']);
  const dirty = git(root, ['status', '--porcelain', '--untracked-files=no']) !== '';
  return { sha, dirty };
}
