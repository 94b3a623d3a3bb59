/**
 * Slots shared by Stryker's worker processes (each runs its own runner.ts): at most `count` holders
 * at once across them. The embedded run keeps most of a core busy for its few seconds, while the
 * variants' runs mostly wait for their windows to end; the slots let Stryker run more mutants at
 * once for the waiting kind without crowding the cores with the busy kind (config.ts,
 * CPU_HEAVY_RUNS_AT_ONCE).
 *
 * A slot is a file created exclusively, holding its owner's pid. A slot whose owner died (a worker
 * Stryker killed) is taken over. Two workers taking over the same dead slot at the same moment
 * can both hold it: at worst one run more at once, never a deadlock.
 */
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** How often a worker looks again for a free slot. */
const POLL_MS = 50;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function tryTake(path: string): Promise<boolean> {
  try {
    const file = await open(path, 'wx');
    await file.writeFile(String(process.pid));
    await file.close();
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const owner = Number(await readFile(path, 'utf8').catch(() => ''));
    // An owner still writing its pid (empty file) is alive; only a pid proven gone frees the slot.
    if (Number.isInteger(owner) && owner > 0 && !alive(owner)) await rm(path, { force: true });
    return false;
  }
}

/**
 * Waits for one of `count` slots in `dir` and returns its release; undefined when `signal` aborts
 * first. Releasing twice releases once: a slot released early (runner.ts) may be another's by the
 * time its run ends.
 */
export async function takeSlot(dir: string, count: number, signal?: AbortSignal): Promise<(() => Promise<void>) | undefined> {
  await mkdir(dir, { recursive: true });
  for (;;) {
    for (let i = 0; i < count; i++) {
      if (signal?.aborted === true) return undefined;
      const path = join(dir, `slot-${i}`);
      if (await tryTake(path)) {
        let held = true;
        return async () => {
          if (!held) return;
          held = false;
          await rm(path, { force: true });
        };
      }
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
