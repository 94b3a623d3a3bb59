/**
 * Self-validation: the whole suite, run by the CLI, against every variant of
 * fixtures/variants. A conforming variant must pass (no failure, not even a should-level one); a
 * mutant must fail exactly the requirements it breaks, with exit code 1 only when one of them is
 * must-level. The summary line (support/self-validation-reporter.ts) says how the suite fared,
 * known misses included, over every shard.
 *
 * The table is split over VARIANT_SHARDS test files (test/variants*.test.ts), each taking every
 * VARIANT_SHARDS-th variant and running them one after the other: vitest runs the files in
 * separate workers, so VARIANT_SHARDS runs are in flight (as many as when the table ran in one
 * file), each variant's server in a process of its own. More at once would only share two cores
 * more ways. A variant's windows are paced by its key (fixtures/variants/server-options.ts), so
 * a busy CPU lengthens them rather than ending them before RATE-005's burst fills one.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, test } from 'vitest';
import { referenceBehaviour } from '../../fixtures/reference-server/index.js';
import { VARIANTS, type Variant } from '../../fixtures/variants/index.js';
import { loadCatalog } from '../../src/catalog.js';
import { describeFailures, describeNotPassed, runVariant, type VariantRun } from './variant-run.js';
import type { SelfValidationOutcome } from './self-validation.js';
import './variant-sample.js';
import { RUN_TIMEOUT_MS } from './hang-guard.js';

/** Test files the table is split over: test/variants.test.ts and test/variants-<n>.test.ts up to this. */
export const VARIANT_SHARDS = 3;

const TEST_DIR = fileURLToPath(new URL('..', import.meta.url));

/**
 * The table's runs go through the CLI's command line and run command in the shard's own process
 * (support/variant-run.ts): a third less CPU per run than a process each; the other test files
 * run the built CLI as a process.
 */
const IN_PROCESS = { inProcess: true } as const;

/** Requirements the suite can only exercise by writing; --read-only leaves them not exercised, by the user's choice. */
const WRITE_DEPENDENT = ['CREATE-001', 'CREATE-002', 'CREATE-003', 'CREATE-004', 'AUTH-004'];

const levels = new Map(loadCatalog().requirements.map((r) => [r.id, r.level]));

const sameSet = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && [...a].sort().every((id, i) => id === [...b].sort()[i]);

function outcomeOf(variant: Variant, run: VariantRun): SelfValidationOutcome {
  const failedRun = run.report === undefined || run.cli.code !== 0 || run.failing.length > 0;
  return {
    name: variant.name,
    kind: variant.kind,
    ...(variant.knownMiss === undefined ? {} : { knownMiss: variant.knownMiss }),
    caught: run.failing.length > 0,
    rightRequirement: sameSet(run.failing, variant.breaks),
    falseFailure: variant.kind === 'conforming' && failedRun,
  };
}

/** The other client's use of a shared key: in keyUse and as a RATE-002 observation, never a violation. */
function expectOtherUseObserved(run: VariantRun): void {
  expect(run.report?.keyUse?.mode).toBe('shared');
  expect(run.report?.keyUse?.otherConsumption).toMatch(/^another client used at least \d+ of this window's 60 requests/);
  const observed = run.report?.observations.filter((o) => o.requirement === 'RATE-002').map((o) => o.message);
  expect(observed).toContainEqual(expect.stringMatching(/^The key may be shared: another client used at least/));
  const notes = run.report?.requirements.find((r) => r.id === 'RATE-002')?.evidence.filter((e) => e.kind === 'note').map((e) => e.message);
  expect(notes).toContainEqual(expect.stringMatching(/^Key may be shared .*; observed: another client used at least/));
}

function expectReadableReport(run: VariantRun): void {
  expect(run.reportError).toBeUndefined();
  expect(run.schemaErrors).toEqual([]);
  expect(run.report?.runErrors).toEqual([]);
}

/**
 * Roughly how long a variant's run takes, in seconds: its waits follow its window (a token bucket
 * over 60 s waits most of a minute), a slow server and a whole day's quota add their own.
 */
function expectedSeconds(variant: Variant): number {
  const window = variant.server?.windowSeconds ?? 1;
  const slow = variant.server?.behaviour?.delayMs === undefined ? 0 : 5;
  const day = variant.args?.includes('--exhaust-daily-quota') === true ? 12 : 0;
  return 3 + window + slow + day;
}

const utcDayOf = (ms: number): number => Math.floor(ms / 86_400_000);

/** The runs shard 1 makes besides its variants, each against the reference: the three tests after the table. */
const SHARD_ONE_EXTRA_RUNS = 3;
const REFERENCE: Variant = { name: 'reference', kind: 'conforming', breaks: [], why: 'the reference server' };

/**
 * The variants of shard `shard` (1-based). The longest runs are dealt first, each to the shard
 * with the least expected time so far, so the shards end together whatever the table holds.
 */
function variantsOf(shard: number): { chosen: Variant[]; sample: readonly string[] | undefined } {
  // `npm run test:quick` runs a deliberate sample of the table (test/vitest.quick.config.ts); `npm test` all of it.
  const sample = inject('variantSample');
  const all = sample === undefined ? VARIANTS : VARIANTS.filter((v) => sample.includes(v.name));
  // Shard 1 also makes the three reference runs at the end of describeVariantShard (not in a sample).
  const totals: number[] = Array.from({ length: VARIANT_SHARDS }, (_, i) => (i === 0 && sample === undefined ? SHARD_ONE_EXTRA_RUNS * expectedSeconds(REFERENCE) : 0));
  const shardOf = new Map<Variant, number>();
  for (const variant of [...all].sort((a, b) => expectedSeconds(b) - expectedSeconds(a))) {
    const least = totals.indexOf(Math.min(...totals));
    totals[least] = (totals[least] ?? 0) + expectedSeconds(variant);
    shardOf.set(variant, least + 1);
  }
  // In table order within the shard, as before the split.
  return { chosen: all.filter((v) => shardOf.get(v) === shard), sample };
}

export function describeVariantShard(shard: number): void {
  const { chosen, sample } = variantsOf(shard);
  describe(`the suite against every variant of the reference server (shard ${shard} of ${VARIANT_SHARDS})`, () => {
    if (shard === 1) {
      test('every shard of the table has its test file', () => {
        const files = readdirSync(TEST_DIR).filter((name) => /^variants(-\d+)?\.test\.ts$/.test(name));
        expect(files.sort()).toEqual(['variants.test.ts', ...Array.from({ length: VARIANT_SHARDS - 1 }, (_, i) => `variants-${i + 2}.test.ts`)].sort());
      });
    }
    if (shard === 1 && sample !== undefined) {
      test('the quick sample names variants of the table', () => {
        expect(sample.filter((name) => !VARIANTS.some((v) => v.name === name))).toEqual([]);
      });
    }

    for (const variant of chosen) {
      test(`${variant.kind} ${variant.name}${variant.breaks.length > 0 ? ` breaks ${variant.breaks.join(', ')}` : ''}`, { timeout: RUN_TIMEOUT_MS }, async ({ task, skip }) => {
        const startedMs = Date.now();
        const run = await runVariant(variant, {}, IN_PROCESS);
        if (variant.utcDay === true && utcDayOf(startedMs) !== utcDayOf(Date.now())) skip('the run spanned a UTC midnight: its day started again under way, so RATE-007 could not be judged');
        task.meta.selfValidation = outcomeOf(variant, run);
        expectReadableReport(run);
        const inconclusive = (run.report?.requirements ?? []).filter((r) => r.status === 'inconclusive').map((r) => `${r.id} inconclusive: ${r.reason ?? ''}`);
        // A mutant that got through: what its requirements said instead, so a rare miss can be read from the log alone.
        const missed = variant.breaks.filter((id) => !run.failing.includes(id)).map((id) => {
          const r = run.report?.requirements.find((q) => q.id === id);
          return `${id} ${r?.status ?? 'absent'}: ${[r?.reason, ...(r?.evidence ?? []).map((e) => e.message)].filter(Boolean).slice(0, 4).join(' | ')}`;
        });
        const context = [`${variant.name}: ${variant.why}`, describeFailures(run, run.failing), ...inconclusive, ...missed].join('\n');
        if (variant.kind === 'conforming') {
          expect(run.failing, context).toEqual([]);
          expect(run.cli.code, context).toBe(0);
          expect({ verdict: run.report?.verdict, complete: run.report?.complete, line: run.report?.verdictLine }, context).toMatchObject({ verdict: 'conforms', complete: true });
          if (variant.othersSpendKey === true) expectOtherUseObserved(run);
          return;
        }
        if (variant.knownMiss !== undefined) {
          // Stays red-flagged the other way: once the suite catches it, the marker must go.
          expect(run.failing, `${variant.name} is marked knownMiss but is now caught`).not.toEqual([...variant.breaks].sort());
          return;
        }
        expect(run.failing, context).toEqual([...variant.breaks].sort());
        if (variant.complete === true) expect(run.report?.requirements.filter((r) => r.status === 'inconclusive').map((r) => `${r.id}: ${r.reason}`), context).toEqual([]);
        const mustLevel = variant.breaks.some((id) => levels.get(id) === 'must');
        expect(run.cli.code, context).toBe(mustLevel ? 1 : 0);
      });
    }

    if (shard !== 1) return;
    test.skipIf(sample !== undefined)('a server that counts every request twice is, on a key that may be shared, a busy key: no failure, and the report says what was seen', { timeout: RUN_TIMEOUT_MS }, async () => {
      const twice = VARIANTS.find((v) => v.name === 'rate-limit-counts-twice');
      if (twice === undefined) throw new Error('variant rate-limit-counts-twice is missing');
      expect(twice.args).toEqual(['--dedicated-key']);
      const run = await runVariant({ ...twice, args: [] }, {}, IN_PROCESS);
      expectReadableReport(run);
      expect(run.failing, describeFailures(run, run.failing)).toEqual([]);
      expect(run.cli.code).toBe(0);
      expectOtherUseObserved(run);
      // The console says so too: in the header, and with the figure under the verdict.
      expect(run.cli.stdout).toMatch(/^petstore-conformance .*: testing .* \(seed \d+; the key may be shared\)$/m);
      expect(run.cli.stdout).toMatch(/^Key may be shared .*; observed: another client used at least \d+/m);
    });

    test.skipIf(sample !== undefined)('the reference passes with --dedicated-key: every unit its headers count is the run\'s own', { timeout: RUN_TIMEOUT_MS }, async () => {
      const run = await runVariant({ name: 'reference-dedicated-key', kind: 'conforming', breaks: [], why: 'a correct server on a key nobody else uses', args: ['--dedicated-key'] }, {}, IN_PROCESS);
      expectReadableReport(run);
      expect(run.failing, describeFailures(run, run.failing)).toEqual([]);
      expect(run.report?.keyUse).toEqual({ mode: 'dedicated' });
      expect(run.cli.stdout).toMatch(/\(seed \d+; dedicated key\)$/m);
      expect(run.report?.verdict, describeNotPassed(run)).toBe('conforms');
    });

    test.skipIf(sample !== undefined)('the reference passes with --read-only and receives no POST', { timeout: RUN_TIMEOUT_MS }, async () => {
      let posts = 0;
      const run = await runVariant(
        { name: 'reference-read-only', kind: 'conforming', breaks: [], why: '--read-only sends no POST', args: ['--read-only'] },
        {
          finalize: (response, ctx) => {
            if (ctx.method === 'POST') posts += 1;
            return referenceBehaviour.finalize(response, ctx);
          },
        },
        IN_PROCESS,
      );
      expectReadableReport(run);
      expect(posts).toBe(0);
      expect(run.failing, describeFailures(run, run.failing)).toEqual([]);
      expect(run.cli.code).toBe(0);
      const statusOf = new Map(run.report?.requirements.map((r) => [r.id, r.status]));
      for (const id of WRITE_DEPENDENT) expect({ id, status: statusOf.get(id) }).toEqual({ id, status: 'not-exercised' });
      for (const n of run.report?.notExercised.filter((x) => WRITE_DEPENDENT.includes(x.id)) ?? []) expect(n.reason).toMatch(/--read-only/);
    });
  });
}
