/**
 * LIST-004's maximum is proved only on a store of more than 100 pets. These runs check that the
 * suite creates them when the key allows it (and decides LIST-004 without costing CREATE-004 and
 * AUTH-004 their one-page store), and that it says inconclusive, never pass, when it does not.
 */
import { describe, expect, test } from 'vitest';
import { perKeyWindowLimiter } from '../fixtures/reference-server/limiters.js';
import { VARIANTS, type Variant } from '../fixtures/variants/index.js';
import { runVariant, type VariantRun } from './support/variant-run.js';
import { RUN_TIMEOUT_MS } from './support/hang-guard.js';

function variant(name: string): Variant {
  const found = VARIANTS.find((v) => v.name === name);
  if (found === undefined) throw new Error(`no variant ${name}`);
  return found;
}

const statusOf = (run: VariantRun, id: string): string | undefined => run.report?.requirements.find((r) => r.id === id)?.status;

describe('LIST-004 and the maximum of 100', () => {
  test('a server that ignores limit=101: pets are created after the refused-write checks, and all three are decided', { timeout: RUN_TIMEOUT_MS }, async () => {
    const run = await runVariant(variant('limit-out-of-range-default-page'));
    expect(run.cli.code).toBe(0);
    expect(['LIST-004', 'CREATE-004', 'AUTH-004'].map((id) => [id, statusOf(run, id)])).toEqual([
      ['LIST-004', 'pass'],
      ['CREATE-004', 'pass'],
      ['AUTH-004', 'pass'],
    ]);
  });

  test('a key with a real 60 s window cannot afford the pets: inconclusive with the reason, never pass', { timeout: RUN_TIMEOUT_MS }, async () => {
    const unbounded = variant('limit-without-maximum');
    // Windows that start at the key's first request: a wall-clock window would end a few seconds into
    // a run started late in a minute, and the fresh one after it does afford the pets (LIST-004 then fails, rightly).
    // The reference's store of 30: the pets to create cost more than the window holds.
    const server = { ...unbounded.server, pets: 30, windowSeconds: 60, limiter: perKeyWindowLimiter };
    const run = await runVariant({ ...unbounded, server, args: ['--only', 'LIST-004'] });
    const list004 = run.report?.requirements.find((r) => r.id === 'LIST-004');
    expect(list004?.status).toBe('inconclusive');
    expect(list004?.reason).toMatch(/maximum of 100 is unproved; creating \d+ pets does not fit/);
  });
});
