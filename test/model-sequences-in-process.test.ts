/**
 * The pet store's sequence commands (suites/model-sequences.ts) against servers started here, in
 * this process: a Session and RequirementRuns built directly (no vitest worker, no CLI), so each
 * expectation of the model is shown to fail on the requirement it belongs to, and to hold on the
 * reference, in a fraction of a second. Whole runs are in test/model-sequences.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TestContext } from 'vitest';
import { referenceBehaviour as ref, startReferenceServer, type Behaviour, type RunningReferenceServer } from '../fixtures/reference-server/index.js';
import { RequirementRun } from '../src/conformance/requirement-test.js';
import { Session } from '../src/session/session.js';
import type { RunConfig } from '../src/run-config.js';
import type { SequenceCommand } from '../src/report/types.js';
import { judgeSequences, SEQUENCE_REQUIREMENTS } from '../suites/model-sequences.js';

let server: RunningReferenceServer | undefined;
let session: Session | undefined;

afterEach(async () => {
  await session?.client.close();
  await server?.close();
  server = undefined;
  session = undefined;
});

type Meta = TestContext['task']['meta'];

/** A session on a Pro key (room for every sequence), judging the sequences' requirements only. */
async function sessionOn(behaviour: Partial<Behaviour>, extra: Partial<RunConfig> = {}): Promise<Session> {
  server = await startReferenceServer({ windowSeconds: 60, behaviour });
  session = new Session({
    baseUrl: server.baseUrl,
    apiKey: server.keys.pro,
    seed: 24,
    runId: 'inproc24',
    readOnly: false,
    maxRequests: 400,
    timeoutMs: 5_000,
    maxBodyBytes: 1024 * 1024,
    maxWaitMs: 5_000,
    plan: 'pro',
    selected: [...SEQUENCE_REQUIREMENTS],
    ...extra,
  });
  return session;
}

/** Each requirement the sequences judge, as its test would: its findings and the steps it noted. */
async function judge(session: Session): Promise<Map<string, { violations: string[]; meta: Meta }>> {
  const results = new Map<string, { violations: string[]; meta: Meta }>();
  for (const id of SEQUENCE_REQUIREMENTS) {
    const run = new RequirementRun(id, session);
    const meta = {} as Meta;
    run.attach(meta);
    await judgeSequences(run);
    results.set(id, { violations: run.findings().filter((f) => f.kind === 'violation').map((f) => f.message), meta });
  }
  return results;
}

const broken = (results: Map<string, { violations: string[] }>): string[] => [...results].filter(([, r]) => r.violations.length > 0).map(([id]) => id);

describe('the sequences on servers started in this process', () => {
  it('find nothing on the reference, and say what ran', async () => {
    const results = await judge(await sessionOn({}));
    expect(broken(results)).toEqual([]);
    for (const id of SEQUENCE_REQUIREMENTS) expect(results.get(id)?.meta.sequence).toBeUndefined();
  });

  it('PET-002: a new pet answered with the id of a pet the store already showed', async () => {
    // A creation named like the fixed sequence's pet takes over pet 3, which the census listed.
    const buildPet: Behaviour['buildPet'] = (newPet, id) => ({ ...ref.buildPet(newPet, id), ...(newPet.name.includes('model-sequence') ? { id: 3n } : {}) });
    const results = await judge(await sessionOn({ buildPet }));
    expect(broken(results)).toEqual(['PET-002']);
    // (Shrinking creates again, and the run's own check of its creations then sees id 3 twice too.)
    expect(results.get('PET-002')?.violations).toContainEqual(expect.stringMatching(/step 1 of 1: Received id 3 for a new pet \/ Expected an id no pet held before: a response before this creation showed a pet 3$/));
    expect(results.get('PET-002')?.meta.sequence?.steps.map((s) => s.operation)).toEqual(['createPet']);
  });

  it('LIST-003: an unfiltered page with room that leaves out a pet a read has shown', async () => {
    // Unfiltered listings leave out the pets read by id: a "recently viewed" table nobody joins.
    const read = new Set<bigint>();
    const findPet: Behaviour['findPet'] = (id, ctx) => {
      read.add(id);
      return ref.findPet(id, ctx);
    };
    const filterPets: Behaviour['filterPets'] = (pets, status, ctx) => ref.filterPets(status === undefined ? pets.filter((p) => !read.has(p.id)) : pets, status, ctx);
    const results = await judge(await sessionOn({ findPet, filterPets }));
    expect(broken(results)).toEqual(['LIST-003']);
    const steps = results.get('LIST-003')?.meta.sequence?.steps ?? [];
    expect(steps.map((s) => s.operation)).toEqual(['createPet', 'getPet', 'listPets']);
    expect(steps.at(-1)?.sent).toBe('GET /pets?limit=100');
    expect(steps.at(-1)?.violations?.[0]).toMatch(/^Received \d+ pets \(fewer than the limit of 100\) without pet \d+, created by this sequence and already shown by a read \/ Expected every pet on a page with room left$/);
    // Beside each step, the model it was judged against: the pet once created, then once a read showed it.
    expect(steps.map((s) => s.model?.length)).toEqual([1, 1, 1]);
    expect(steps[0]?.model?.[0]).toMatch(/^pet \d+ \(created in step 1\): \{.*\}; no read has shown it yet$/);
    expect(steps[1]?.model?.[0]).toMatch(/; shown by exchange #\d+, so it must stay$/);
  });

  it('a replayed sequence that cannot be followed leaves its requirement inconclusive, not fixed', async () => {
    const sequence: SequenceCommand[] = [{ op: 'getPet', pet: 0 }];
    const run = new RequirementRun('CREATE-002', await sessionOn({}, { replay: { 'CREATE-002': { seed: 24, path: '', sequence } } }));
    run.attach({} as Meta);
    await expect(judgeSequences(run)).rejects.toThrow(/the replayed sequence could not be followed: 1 of its 1 commands could not run/);
  });
});
