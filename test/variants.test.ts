/**
 * Self-validation: the whole suite, run by the built CLI, against every variant of
 * fixtures/variants. A conforming variant must pass (no failure, not even a should-level one); a
 * mutant must fail exactly the requirements it breaks, with exit code 1 only when one of them is
 * must-level. The summary line says how the suite fared, known misses included.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { referenceBehaviour } from '../fixtures/reference-server/index.js';
import { VARIANTS, type Variant } from '../fixtures/variants/index.js';
import { loadCatalog } from '../src/catalog.js';
import { describeFailures, runVariant, type VariantRun } from './support/variant-run.js';

/** A run can wait for two others to finish first (see MAX_PARALLEL_RUNS). */
const RUN_TIMEOUT_MS = 150_000;

/** Requirements the suite can only exercise by writing; --read-only leaves them not exercised, by the user's choice. */
const WRITE_DEPENDENT = ['CREATE-001', 'CREATE-002', 'CREATE-003', 'CREATE-004', 'AUTH-004'];

const levels = new Map(loadCatalog().requirements.map((r) => [r.id, r.level]));

interface Outcome {
  variant: Variant;
  caught: boolean;
  rightRequirement: boolean;
  falseFailure: boolean;
}

const outcomes: Outcome[] = [];

const sameSet = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && [...a].sort().every((id, i) => id === [...b].sort()[i]);

function record(variant: Variant, run: VariantRun): void {
  const failedRun = run.report === undefined || run.cli.code !== 0 || run.failing.length > 0;
  outcomes.push({
    variant,
    caught: run.failing.length > 0,
    rightRequirement: sameSet(run.failing, variant.breaks),
    falseFailure: variant.kind === 'conforming' && failedRun,
  });
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

describe.concurrent('the suite against every variant of the reference server', () => {
  for (const variant of VARIANTS) {
    test(`${variant.kind} ${variant.name}${variant.breaks.length > 0 ? ` breaks ${variant.breaks.join(', ')}` : ''}`, { timeout: RUN_TIMEOUT_MS }, async () => {
      const run = await runVariant(variant);
      record(variant, run);
      expectReadableReport(run);
      const context = `${variant.name}: ${variant.why}\n${describeFailures(run, run.failing)}`;
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

  test('a server that counts every request twice is, on a key that may be shared, a busy key: no failure, and the report says what was seen', { timeout: RUN_TIMEOUT_MS }, async () => {
    const twice = VARIANTS.find((v) => v.name === 'rate-limit-counts-twice');
    if (twice === undefined) throw new Error('variant rate-limit-counts-twice is missing');
    expect(twice.args).toEqual(['--dedicated-key']);
    const run = await runVariant({ ...twice, args: [] });
    expectReadableReport(run);
    expect(run.failing, describeFailures(run, run.failing)).toEqual([]);
    expect(run.cli.code).toBe(0);
    expectOtherUseObserved(run);
    // The console says so too: in the header, and with the figure under the verdict.
    expect(run.cli.stdout).toMatch(/^petstore-conformance .*: testing .* \(seed \d+; the key may be shared\)$/m);
    expect(run.cli.stdout).toMatch(/^Key may be shared .*; observed: another client used at least \d+/m);
  });

  test('the reference passes with --dedicated-key: every unit its headers count is the run\'s own', { timeout: RUN_TIMEOUT_MS }, async () => {
    const run = await runVariant({ name: 'reference-dedicated-key', kind: 'conforming', breaks: [], why: 'a correct server on a key nobody else uses', args: ['--dedicated-key'] });
    expectReadableReport(run);
    expect(run.failing, describeFailures(run, run.failing)).toEqual([]);
    expect(run.report?.keyUse).toEqual({ mode: 'dedicated' });
    expect(run.cli.stdout).toMatch(/\(seed \d+; dedicated key\)$/m);
    expect(run.report?.verdict).toBe('conforms');
  });

  test('the reference passes with --read-only and receives no POST', { timeout: RUN_TIMEOUT_MS }, async () => {
    let posts = 0;
    const run = await runVariant(
      { name: 'reference-read-only', kind: 'conforming', breaks: [], why: '--read-only sends no POST', args: ['--read-only'] },
      {
        finalize: (response, ctx) => {
          if (ctx.method === 'POST') posts += 1;
          return referenceBehaviour.finalize(response, ctx);
        },
      },
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

afterAll(() => {
  const mutants = outcomes.filter((o) => o.variant.kind === 'mutant');
  const conforming = outcomes.filter((o) => o.variant.kind === 'conforming');
  const misses = mutants.filter((o) => !o.rightRequirement).map((o) => `${o.variant.name}${o.variant.knownMiss === undefined ? '' : ` (known miss: ${o.variant.knownMiss})`}`);
  const line =
    `self-validation: mutants caught ${mutants.filter((o) => o.caught).length}/${mutants.length}, ` +
    `caught on the right requirement ${mutants.filter((o) => o.rightRequirement).length}/${mutants.length}, ` +
    `false failures on conforming variants ${conforming.filter((o) => o.falseFailure).length}/${conforming.length}` +
    (misses.length > 0 ? `; not caught on the right requirement: ${misses.join(', ')}` : '');
  process.stdout.write(`\n${line}\n`);
});
