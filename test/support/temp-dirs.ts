/**
 * Temporary directories for one test file. Each is removed when the file's tests end, pass or
 * fail, so no run leaves its reports, certificates or browser profiles behind.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** Every temporary entry a test makes starts with this, so a leftover names its maker. */
export const TEMP_PREFIX = 'pc-';

/** Call at the top level of a test file; the function it returns makes `pc-<name>-XXXXXX`. */
export function tempDirs(): (name: string) => Promise<string> {
  const made: string[] = [];
  afterAll(async () => {
    await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async (name) => {
    const dir = await mkdtemp(join(tmpdir(), `${TEMP_PREFIX}${name}-`));
    made.push(dir);
    return dir;
  };
}
