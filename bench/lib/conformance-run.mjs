// One conformance run of a tree's built CLI (this one's, or the previous release's in its clone),
// timed from outside, start-up included, under scripts/resource-usage.mjs of this tree, which
// records the process's peak resident memory and CPU time as it exits (worker threads included).
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { timed } from './process.mjs';

const RESOURCE_USAGE = fileURLToPath(new URL('../../scripts/resource-usage.mjs', import.meta.url));

/** A tree's CLI, started as its bin is: with the node flags of its `#!/usr/bin/env -S node ...` line. */
export function cliOf(root) {
  const path = join(root, 'dist', 'src', 'cli', 'main.js');
  const flags = readFileSync(path, 'utf8').split('\n', 1)[0].split(/\s+/).filter((word) => word.startsWith('--'));
  return { path, flags };
}

/**
 * One run of `cli` with `args` (plus a temporary --report-dir and `reporters`, by default the
 * json reporter alone): exit code, wall ms, CPU ms, peak MiB and report.json (undefined when none
 * was written).
 */
export async function conformanceRun(cli, args, env = {}, reporters = 'json') {
  const dir = await mkdtemp(join(tmpdir(), 'pc-bench-'));
  try {
    const usageFile = join(dir, 'usage.json');
    const ran = await timed(process.execPath, [...cli.flags, RESOURCE_USAGE, usageFile, cli.path, '--report-dir', dir, '--reporter', reporters, ...args], {
      env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
    });
    const usage = JSON.parse(await readFile(usageFile, 'utf8').catch(() => 'null'));
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8').catch(() => 'null')) ?? undefined;
    return {
      code: ran.code,
      wallMs: ran.wallMs,
      cpuMs: usage === null ? ran.cpuMs : usage.userMs + usage.systemMs,
      peakMiB: usage === null ? NaN : usage.maxRssKiB / 1024,
      report,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
