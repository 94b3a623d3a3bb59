/**
 * --risk-breaking-store (CREATE-005) end to end: without it a store-breaking fixture receives none
 * of those inputs and conforms, CREATE-005 not exercised with the flag that enables it; with it
 * the fixtures that break fail exactly the requirements they break on every seed, the reference
 * conforms, the probes reach the server as the bytes they are, and the reads include the pets
 * they stored. The flag's conflicts are usage errors in the CLI and the library alike.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { referenceBehaviour, type Behaviour } from '../fixtures/reference-server/index.js';
import { storeBreakingInputs } from '../src/arbitraries/store-breaking.js';
import { parseCommandLine } from '../src/cli/args.js';
import { ConformanceUsageError, keyModeOf, resolveOptions, type ConformanceOptions } from '../src/api/options.js';
import { runConformance } from '../src/api/run.js';
import { describeFailures, describeNotPassed, observationsIn, requirementIn, runVariant, variantNamed, type VariantRun } from './support/variant-run.js';
import { RUN_TIMEOUT_MS } from './support/hang-guard.js';

const SEEDS = [1, 77, 4_242];
const OPTED_IN = ['CREATE-005', 'GET-001', 'LIST-001'];

/** Every request the server received, as bytes, in order, with the answer's status. */
function recording(): { seen: Array<{ method: string; path: string; body: Buffer; status: number }>; behaviour: Partial<Behaviour> } {
  const seen: Array<{ method: string; path: string; body: Buffer; status: number }> = [];
  return {
    seen,
    behaviour: {
      finalize: (response, ctx) => {
        seen.push({ method: ctx.method, path: ctx.url.pathname, body: ctx.body, status: response.status });
        return referenceBehaviour.finalize(response, ctx);
      },
    },
  };
}

/** The variant's own finalize (when it has one) after the recording's. */
function recordingOver(name: string): ReturnType<typeof recording> {
  const rec = recording();
  const own = variantNamed(name).server?.behaviour?.finalize;
  const record = rec.behaviour.finalize;
  if (own !== undefined && record !== undefined) rec.behaviour.finalize = (response, ctx) => own(record(response, ctx), ctx);
  return rec;
}

const violations = (run: VariantRun, id: string): string[] => (requirementIn(run, id)?.evidence ?? []).filter((e) => e.kind === 'violation').map((e) => e.message);

describe.concurrent('--risk-breaking-store', () => {
  test('without it, the fixture that stores bytes that are not UTF-8 receives none of those inputs, conforms, and CREATE-005 says how to send them', { timeout: RUN_TIMEOUT_MS }, async () => {
    const rec = recordingOver('invalid-utf8-breaks-store');
    const run = await runVariant({ ...variantNamed('invalid-utf8-breaks-store'), args: [] }, rec.behaviour);
    expect(run.failing, describeFailures(run, run.failing)).toEqual([]);
    expect(run.cli.code).toBe(0);
    expect(rec.seen.length).toBeGreaterThan(50);
    const holding = rec.seen.filter((r) => r.body.length > 0 && storeBreakingInputs(r.body).length > 0);
    expect(holding.map((r) => r.body.toString('utf8'))).toEqual([]);
    const create005 = run.report?.notExercised.find((n) => n.id === 'CREATE-005');
    expect(create005?.reason).toMatch(/were not sent: .*; opt in with --risk-breaking-store on a store nobody else uses$/);
    expect(run.report?.verdictLine).toContain('CREATE-005 (opt in with --risk-breaking-store on a store nobody else uses)');
    expect(run.report?.keyUse?.mode).toBe('shared');
  });

  for (const [name, probe] of [
    ['invalid-utf8-breaks-store', 'invalid-utf-8'],
    ['lone-surrogate-breaks-store', 'lone-surrogates'],
  ] as const) {
    test(`with it, ${name} fails CREATE-005, GET-001 and LIST-001, and nothing else, on every seed`, { timeout: RUN_TIMEOUT_MS }, async () => {
      const runs = await Promise.all(SEEDS.map((seed) => runVariant({ ...variantNamed(name), args: ['--risk-breaking-store', '--seed', String(seed)] })));
      for (const run of runs) {
        expect(run.failing, describeFailures(run, run.failing)).toEqual(OPTED_IN);
        expect(run.report?.requirements.filter((r) => r.status === 'inconclusive').map((r) => r.id), describeNotPassed(run)).toEqual([]);
        expect(violations(run, 'CREATE-005').join('\n')).toMatch(new RegExp(`^${probe}: received (a 201 whose body is not UTF-8|500)`, 'm'));
        expect(violations(run, 'LIST-001')).toEqual([expect.stringMatching(/^GET \/pets\?limit=100 after the createPets of names a store may not survive .*: received 500/)]);
        // The getPet of the pet it stored: by the 201's id, or found between the creations around a createPet answered 500.
        expect(violations(run, 'GET-001')).toEqual([
          expect.stringMatching(name === 'invalid-utf8-breaks-store' ? /^GET \/pets\/\d+ \(the pet the invalid-utf-8 createPet of exchange #\d+ stored\): received 500/ : /^GET \/pets\/\d+ \(an id between the creations around .*\): received 500/),
        ]);
      }
    });
  }

  test('with it, the reference conforms: the probes arrive as the bytes they are, and a getPet of each stored pet and a listing follow', { timeout: RUN_TIMEOUT_MS }, async () => {
    const rec = recording();
    const run = await runVariant(variantNamed('store-breaking-reference'), rec.behaviour);
    expect(run.failing, describeFailures(run, run.failing)).toEqual([]);
    expect(run.report?.verdict).toBe('conforms');
    expect(run.report?.keyUse?.mode).toBe('dedicated');
    expect(run.cli.stdout).toMatch(/\(seed \d+; dedicated key\); risks breaking the store \(--risk-breaking-store\)/);
    const probes = rec.seen.filter((r) => r.method === 'POST' && storeBreakingInputs(r.body).length > 0);
    expect(probes.map((r) => [storeBreakingInputs(r.body), r.status])).toEqual([
      [['invalid-utf-8'], 400],
      [['lone-surrogates'], 201],
      [['nul'], 201],
    ]);
    expect(probes[0]?.body.includes(Buffer.from([0x20, 0xff, 0x20, 0xc0, 0xaf, 0x20]))).toBe(true);
    // Nothing else is sent between the probes, and after them only the reads.
    const first = rec.seen.indexOf(probes[0]!);
    const after = rec.seen.slice(first + 3);
    expect(after.map((r) => `${r.method} ${r.path.replace(/\d+$/, 'N')}`)).toEqual(['GET /v1/pets/N', 'GET /v1/pets/N', 'GET /v1/pets']);
    expect(observationsIn(run, 'CREATE-005').join('\n')).toMatch(/invalid-utf-8: refused with 400.*\n(.|\n)*lone-surrogates: 201, the name stored and shown back exactly/);
    expect(requirementIn(run, 'LIST-001')?.tests).toHaveLength(2);
  });

  test('the library takes riskBreakingStore against the embedded server, implying a dedicated key', { timeout: RUN_TIMEOUT_MS }, async () => {
    const report = await runConformance({ riskBreakingStore: true, only: OPTED_IN, seed: 5 });
    expect(Object.fromEntries(report.requirements.filter((r) => OPTED_IN.includes(r.id)).map((r) => [r.id, r.status]))).toEqual(Object.fromEntries(OPTED_IN.map((id) => [id, 'pass'])));
    expect(report.keyUse?.mode).toBe('dedicated');
  });
});

describe('--risk-breaking-store: what it implies and what it is refused with', () => {
  const cli = (args: string[], cwd?: string): unknown => parseCommandLine(args, {}, cwd);

  test('implies a dedicated key, in the CLI and the library', () => {
    const parsed = parseCommandLine(['--risk-breaking-store'], {});
    expect(parsed).toMatchObject({ command: 'run', riskBreakingStore: true, dedicatedKey: false });
    expect(keyModeOf({ riskBreakingStore: true })).toBe('dedicated');
    expect(resolveOptions({ riskBreakingStore: true }).keyMode).toBe('dedicated');
    expect(resolveOptions({}).riskBreakingStore).toBeUndefined();
  });

  test.each([
    [['--risk-breaking-store', '--read-only'], /^--risk-breaking-store cannot be used with --read-only: its probes are createPets$/],
    [['--risk-breaking-store', '--exhaust-daily-quota'], /^--risk-breaking-store cannot be used with --exhaust-daily-quota: its probes go last/],
  ])('the CLI refuses %j in one line', (args, message) => {
    expect(() => cli(args)).toThrow(message);
  });

  test('the CLI refuses it beside a config file that declares the key shared (dedicatedKey: false), and --dedicated-key lifts that', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pc-risk-'));
    try {
      await writeFile(join(dir, 'petstore-conformance.config.yaml'), 'dedicatedKey: false\n');
      expect(() => cli(['--risk-breaking-store'], dir)).toThrow(
        /^--risk-breaking-store cannot be used with petstore-conformance\.config\.yaml's dedicatedKey: false: it sends names a store may not survive .*; it implies a dedicated key$/,
      );
      expect(cli(['--risk-breaking-store', '--dedicated-key'], dir)).toMatchObject({ riskBreakingStore: true, dedicatedKey: true });
      await writeFile(join(dir, 'petstore-conformance.config.yaml'), 'riskBreakingStore: true\nreadOnly: true\n');
      expect(() => cli([], dir)).toThrow(/^petstore-conformance\.config\.yaml's riskBreakingStore cannot be used with petstore-conformance\.config\.yaml's readOnly/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test.each<[ConformanceOptions, RegExp]>([
    [{ riskBreakingStore: true, dedicatedKey: false }, /^riskBreakingStore cannot be used with dedicatedKey: false: /],
    [{ riskBreakingStore: true, readOnly: true }, /^riskBreakingStore cannot be used with readOnly/],
    [{ riskBreakingStore: true, exhaustDailyQuota: true }, /^riskBreakingStore cannot be used with exhaustDailyQuota/],
    [{ riskBreakingStore: 'yes' as unknown as boolean }, /^riskBreakingStore must be true or false, got "yes"$/],
  ])('the library refuses %j with a usage error', (options, message) => {
    expect(() => resolveOptions(options)).toThrow(ConformanceUsageError);
    expect(() => resolveOptions(options)).toThrow(message);
  });
});
