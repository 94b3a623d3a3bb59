/**
 * What the create-and-store variants show beyond their failing set: the created-nothing checks
 * decide (not merely avoid failing) on a 1,000-pet store with dense ids, every invalid class a
 * server accepts is named, a refused unknown category is an observation, and the failing set of
 * the seed-sensitive mutants is the same whatever the seed.
 */
import { describe, expect, test } from 'vitest';
import { VARIANTS, type Variant } from '../fixtures/variants/index.js';
import { referenceBehaviour } from '../fixtures/reference-server/index.js';
import { isJsonObject, parseJson, type JsonObject } from '../src/interface/json.js';
import { UNDECIDABLE_STORE } from '../fixtures/variants/create-and-store.js';
import type { Report } from '../src/report/types.js';
import { describeFailures, runVariant, type VariantRun } from './support/variant-run.js';
import { RUN_TIMEOUT_MS } from './support/hang-guard.js';

const SEEDS = [1, 77, 4_242];

function variant(name: string): Variant {
  const found = VARIANTS.find((v) => v.name === name);
  if (found === undefined) throw new Error(`no variant ${name}`);
  return found;
}

const requirement = (run: VariantRun, id: string): Report['requirements'][number] | undefined => run.report?.requirements.find((r) => r.id === id);
const observed = (run: VariantRun, id: string): string[] => (run.report?.observations ?? []).filter((o) => o.requirement === id).map((o) => o.message);

describe.concurrent('create-and-store variants', () => {
  test('a 1,000-pet store with dense ids: CREATE-004 and AUTH-004 pass by bracketing', { timeout: RUN_TIMEOUT_MS }, async () => {
    const run = await runVariant(variant('dense-ids-1000-pets'));
    for (const id of ['CREATE-004', 'AUTH-004']) {
      expect(requirement(run, id)?.status, describeFailures(run, [id])).toBe('pass');
      expect(observed(run, id).join('\n')).toContain('(b) bracketing');
    }
  });

  for (const [name, leaking, other] of [
    ['refused-invalid-stored-in-1000-pets', 'CREATE-004', 'AUTH-004'],
    ['refused-unauthorised-stored-in-1000-pets', 'AUTH-004', 'CREATE-004'],
  ] as const) {
    test(`${name}: ${leaking} fails on the stored marker, ${other} is still decided`, { timeout: RUN_TIMEOUT_MS }, async () => {
      const run = await runVariant(variant(name));
      const messages = (requirement(run, leaking)?.evidence ?? []).map((e) => e.message);
      expect(messages.some((m) => m.startsWith('A refused createPet was stored anyway'))).toBe(true);
      expect(requirement(run, other)?.status, describeFailures(run, [other])).toBe('pass');
    });
  }

  test('a 1,000-pet store with random ids: the created-nothing checks say why they cannot decide', { timeout: RUN_TIMEOUT_MS }, async () => {
    const run = await runVariant(UNDECIDABLE_STORE);
    expect(run.failing, describeFailures(run, run.failing)).toEqual([]);
    expect(run.cli.code).toBe(0);
    for (const id of ['CREATE-004', 'AUTH-004']) {
      const result = requirement(run, id);
      expect(result?.status).toBe('inconclusive');
      // Each method's reason: the listing is not the whole store, the ids are not dense, the filter cannot cover or is full.
      expect(result?.reason).toMatch(/\(a\) the store holds 100 pets or more.*\(b\) ids (are not dense|do not grow).*\(c\) .*\(d\) the first page does not show both/);
    }
  });

  test('a 1,000-pet store with random ids listed newest first: decided by the listing in creation order', { timeout: RUN_TIMEOUT_MS }, async () => {
    const run = await runVariant(variant('random-ids-1000-pets-newest-first'));
    for (const id of ['CREATE-004', 'AUTH-004']) {
      expect(requirement(run, id)?.status, describeFailures(run, [id])).toBe('pass');
      expect(observed(run, id).join('\n')).toContain('(d) the listing is in creation order');
    }
  });

  test('a server accepting several invalid classes has each named, with the status it got', { timeout: RUN_TIMEOUT_MS }, async () => {
    const run = await runVariant(variant('several-invalid-classes-accepted'));
    const messages = (requirement(run, 'CREATE-003')?.evidence ?? []).map((e) => e.message);
    const summary = messages.find((m) => m.includes('invalid classes mishandled'));
    // Eight classes, each with every edge the server mishandled (status outside the enum: "" and
    // "adopted"; categoryId missing with status and without).
    expect(summary).toMatch(/^8 invalid classes mishandled \(10 cases\): /);
    for (const label of ['categoryId-missing with status', 'categoryId-missing without status', 'categoryId-string "12"', 'status-outside-enum ""', 'status-outside-enum "adopted"']) {
      expect(summary).toContain(`${label} (answered 201)`);
      expect(messages.some((m) => m.startsWith(`${label}: Received 201`))).toBe(true);
    }
  });

  test('a server refusing categories it does not hold: the refusals are observations, the rest is judged', { timeout: RUN_TIMEOUT_MS }, async () => {
    const run = await runVariant(variant('unknown-category-400'));
    expect(requirement(run, 'CREATE-001')?.status).toBe('pass');
    expect(observed(run, 'CREATE-001').join('\n')).toContain('categoryId 9223372036854775807 it does not show');
  });

  test('a store that refuses names beyond 255 characters: the long name and INT64_MIN, refused together, are each judged alone', { timeout: RUN_TIMEOUT_MS }, async () => {
    const run = await runVariant(variant('names-up-to-255-characters'));
    expect(requirement(run, 'CREATE-001')?.status, describeFailures(run, ['CREATE-001'])).toBe('pass');
    const seen = observed(run, 'CREATE-001').join('\n');
    expect(seen).toContain('the NewPet combining long-unicode-name and categoryId-INT64_MIN was refused with 400: each was sent alone');
    expect(seen).toContain('the server refused a name of');
  });

  test('a store that refuses the empty name: the violation names the empty name, not the categoryId it was sent with', { timeout: RUN_TIMEOUT_MS }, async () => {
    const run = await runVariant(variant('empty-name-refused'));
    expect(run.failing).toEqual(['CREATE-001']);
    const violations = (requirement(run, 'CREATE-001')?.evidence ?? []).filter((e) => e.kind === 'violation').map((e) => e.message);
    expect(violations.some((m) => m.startsWith('empty-name: Received 400 for a valid NewPet')), violations.join('\n')).toBe(true);
    expect(violations.filter((m) => m.includes('2^53')), violations.join('\n')).toEqual([]);
  });

  test('names-unique fails CREATE-001 alone whatever the seed, citing the pet that holds the name and saying names need not be unique', { timeout: RUN_TIMEOUT_MS }, async () => {
    const runs = await Promise.all(SEEDS.map((seed) => runVariant({ ...variant('names-unique'), args: ['--seed', String(seed)] })));
    for (const run of runs) {
      expect(run.failing, describeFailures(run, run.failing)).toEqual(['CREATE-001']);
      const evidence = requirement(run, 'CREATE-001')?.evidence ?? [];
      const index = evidence.findIndex((e) => e.kind === 'violation' && e.message.includes('the spec does not make names unique'));
      const refusal = evidence[index];
      const earlier = evidence[index + 1];
      expect(refusal?.exchange?.response?.status).toBe(409);
      const held = /held by pet (\d+) created by exchange #(\d+)\)$/.exec(refusal?.message ?? '');
      expect(held, refusal?.message).not.toBeNull();
      // The earlier pet's creation is the evidence beside it: its 201 gave that id to a pet of that name.
      expect(earlier?.message).toBe(`compared with exchange #${held?.[2]}: POST /pets`);
      const created = parseJson(earlier?.exchange?.response?.body ?? '');
      const sent = parseJson(refusal?.exchange?.request.body ?? '');
      expect(created.ok && isJsonObject(created.value) ? [String(created.value['id']), created.value['name']] : undefined).toEqual([held?.[1], sent.ok && isJsonObject(sent.value) ? sent.value['name'] : '?']);
    }
  });

  // unknown-category-400 refuses the first group's categoryId 2^53+1, so the second group is the larger one CREATE-002 fetches.
  for (const name of ['reference', 'unknown-category-400']) {
    test(`${name} creates a pet with a name it already holds under a new id, and CREATE-002 reads the earlier pet afterwards`, { timeout: RUN_TIMEOUT_MS }, async () => {
      const seen: { method: string; path: string; name?: string; created?: JsonObject; status: number }[] = [];
      const run = await runVariant(
        name === 'reference' ? { name: 'reference-names', kind: 'conforming', breaks: [], why: 'records creations and fetches' } : variant(name),
        {
          finalize: (response, ctx) => {
            const sent = ctx.method === 'POST' ? parseJson(ctx.body.toString('utf8')) : undefined;
            const answer = ctx.method === 'POST' && typeof response.body === 'string' ? parseJson(response.body) : undefined;
            seen.push({
              method: ctx.method,
              path: ctx.url.pathname,
              status: response.status,
              ...(sent?.ok === true && isJsonObject(sent.value) && typeof sent.value['name'] === 'string' ? { name: sent.value['name'] } : {}),
              ...(answer?.ok === true && isJsonObject(answer.value) ? { created: answer.value } : {}),
            });
            return referenceBehaviour.finalize(response, ctx);
          },
        },
      );
      expect(run.failing, describeFailures(run, run.failing)).toEqual([]);
      const creations = seen.filter((r) => r.method === 'POST' && r.status === 201 && r.name !== undefined && r.name !== '');
      const second = creations.findIndex((r, i) => creations.slice(0, i).some((earlier) => earlier.name === r.name));
      expect(second, 'two creations sent one name').toBeGreaterThan(0);
      const first = creations.find((r) => r.name === creations[second]?.name);
      expect(String(creations[second]?.created?.['id'])).not.toBe(String(first?.created?.['id']));
      const afterSecond = seen.slice(seen.indexOf(creations[second]!));
      expect(afterSecond.some((r) => r.method === 'GET' && r.path === `/v1/pets/${String(first?.created?.['id'])}` && r.status === 200), 'the earlier pet is fetched after the second creation').toBe(true);
    });
  }

  for (const name of ['numbers-as-doubles', 'beyond-int64-accepted', 'required-defaulted-without-status', 'missing-name-defaulted-with-status']) {
    test(`${name} fails the same requirements whatever the seed`, { timeout: RUN_TIMEOUT_MS }, async () => {
      const { breaks } = variant(name);
      const runs = await Promise.all(SEEDS.map((seed) => runVariant({ ...variant(name), args: ['--seed', String(seed)] })));
      for (const run of runs) expect(run.failing, describeFailures(run, run.failing)).toEqual([...breaks].sort());
    });
  }
});
