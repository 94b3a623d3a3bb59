/**
 * docs/test-cases.md's list "Cases every run sends, whatever the seed" against the code and a real run:
 * the values it names (in code spans) are exactly the fixed tables the suites send from, and a
 * run against the reference server sends every one of them. A case added to or dropped from
 * either side without the other fails here.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { referenceBehaviour as ref } from '../fixtures/reference-server/index.js';
import { fixedInvalidLimits } from '../src/arbitraries/limits.js';
import { NON_POSITIVE_IDS, NOT_INT64, UNKNOWN_ID_PROBES } from '../src/arbitraries/pet-ids.js';
import { INVALID_NEW_PET_KINDS, invalidNewPetExamples } from '../src/arbitraries/invalidNewPet.js';
import { NAME_ALREADY_HELD, NAME_IN_OTHER_CASE, newPetBody, newPetCases, newPetExamples } from '../src/arbitraries/newPet.js';
import { TRAP_TOKENS } from '../src/arbitraries/wrong-keys.js';
import { edgeLabel, malformedHeaderEdges, parameterEdges, wrongKeyEdges, type ParameterEdge } from '../src/arbitraries/parameter-edges.js';
import { describeNearMiss, nearMissesOf, nearMissOf, type NearMiss } from '../src/http/near-miss.js';
import { listLimits, newPetRequired } from '../src/interface/openapi.js';
import { isInt64 } from '../src/interface/int64.js';
import { isJsonObject, parseJson } from '../src/interface/json.js';
import { MIN_GROUP } from '../src/session/rate-limit-sends.js';
import { runVariant, type VariantRun } from './support/variant-run.js';
import { RUN_TIMEOUT_MS } from './support/hang-guard.js';

const ALL_MISSES: NearMiss[] = ['appended', 'last-removed', 'case-flipped'];

/** docs/test-cases.md's bullets under "Cases every run sends", each as one line, by its leading words. */
function fixedCaseBullets(): Map<string, string> {
  const page = readFileSync(new URL('../docs/test-cases.md', import.meta.url), 'utf8');
  const start = page.indexOf('Cases every run sends, whatever the seed');
  const end = page.indexOf('The seeded random cases then add', start);
  expect(start, 'docs/test-cases.md has the list').toBeGreaterThan(0);
  expect(end).toBeGreaterThan(start);
  const bullets = page.slice(start, end).split('\n- ').slice(1).map((b) => b.replace(/\s*\n\s*/g, ' ').trim());
  const byLead = new Map<string, string>();
  for (const lead of ['createPet, valid', 'createPet, invalid', 'listPets:', 'getPet:', 'every operation']) {
    const found = bullets.filter((b) => b.startsWith(lead));
    expect(found, `one bullet of docs/test-cases.md starts with "${lead}"`).toHaveLength(1);
    byLead.set(lead, found[0] ?? '');
  }
  return byLead;
}

const codeSpans = (text: string): string[] => [...text.matchAll(/`([^`]*)`/g)].map((m) => m[1] ?? '');
/** Distinct and sorted: the page may name a case twice (`limit=100` alone and with a status filter). */
const sorted = (values: Iterable<string>): string[] => [...new Set(values)].sort();

/** The first id each big unknown-id probe sends on a store that does not hold it. */
const bigUnknownIds = (): string[] => UNKNOWN_ID_PROBES.map((p) => p.first(0n)).filter((id) => id > 2n ** 53n).map(String);

describe('docs/test-cases.md names exactly the fixed cases the code sends', () => {
  const bullets = fixedCaseBullets();
  const bullet = (lead: string): string => bullets.get(lead) ?? '';

  it('listPets: every limit on the page is a fixed one, and every fixed one is on the page', () => {
    const { min, max } = listLimits();
    const limits = codeSpans(bullet('listPets:')).filter((s) => s.startsWith('limit='));
    expect(sorted(limits)).toEqual(sorted([min, max, ...fixedInvalidLimits()].map((v) => `limit=${v}`)));
  });

  it('getPet: the ids on the page are the fixed unknown and invalid ids', () => {
    expect(sorted(codeSpans(bullet('getPet:')))).toEqual(sorted([...bigUnknownIds(), ...NON_POSITIVE_IDS.map(String), ...NOT_INT64]));
    expect(bigUnknownIds()).toEqual(['9007199254740993', '9223372036854775807']);
  });

  it('authentication: the trap tokens, the near-miss descriptions and the edges sent without a valid key', () => {
    // The limits sent without a key are named by the listPets bullet, not again here.
    const named = [...parameterEdges().filter((e) => e.parameter !== 'limit'), ...wrongKeyEdges(), ...malformedHeaderEdges()].map(edgeLabel);
    expect(sorted(codeSpans(bullet('every operation')))).toEqual(sorted([...TRAP_TOKENS.map((t) => t.token), ...ALL_MISSES.map(describeNearMiss), ...named]));
    const limits = parameterEdges().filter((e) => e.parameter === 'limit').map(edgeLabel);
    expect(sorted(limits)).toEqual(sorted(codeSpans(bullet('listPets:')).filter((s) => s.startsWith('limit='))));
    // Only int64 petIds: a path holding another is no getPet (schemas/requirements.yaml, AUTH-001).
    const petIds = parameterEdges().filter((e) => e.parameter === 'petId').map((e) => e.value);
    expect(petIds.filter((id) => NOT_INT64.includes(id) || !isInt64(BigInt(id)))).toEqual([]);
    expect(petIds).toHaveLength(5);
  });

  it('createPet: the number of invalid classes and the int64 edges of the valid examples', () => {
    expect(bullet('createPet, invalid')).toContain(`(${INVALID_NEW_PET_KINDS.length} classes)`);
    // The page's "every one of these four once with status and once without": each required field missing, and null.
    const paired = invalidNewPetExamples().filter((e) => e.label.endsWith(' with status') || e.label.endsWith(' without status'));
    expect(sorted(paired.map((e) => e.label))).toEqual(sorted(newPetRequired().flatMap((f) => [`${f}-missing`, `${f}-null`]).flatMap((k) => [`${k} with status`, `${k} without status`])));
    expect(bullet('createPet, invalid')).toContain('every one of these four once with `status` and once without');
    const edges = newPetCases(newPetExamples(1n)).map((e) => e.label).filter((l) => l.startsWith('categoryId-')).map((l) => l.slice('categoryId-'.length));
    expect(edges).toHaveLength(5);
    for (const edge of edges) expect(bullet('createPet, valid')).toContain(edge);
    // The page's "Seven requests carry them", and the three combined in the second group.
    const examples = newPetExamples(1n);
    expect(bullet('createPet, valid')).toContain(`${NUMBER_WORDS[examples.length]?.replace(/^./, (c) => c.toUpperCase())} requests carry them`);
    expect(examples.slice(MIN_GROUP, 2 * MIN_GROUP).map((e) => e.input.alone?.length)).toEqual([2, 2, 2]);
  });

  it('createPet: the members sent in another case, and the bytes after a NewPet, are the ones the code sends', () => {
    const around = newPetCases(newPetExamples(1n)).find((e) => e.label === NAME_IN_OTHER_CASE)?.input.nameInOtherCase;
    expect(sorted(codeSpans(bullet('createPet, valid')))).toEqual(sorted(['name', around?.before[0] ?? '?', around?.after[0] ?? '?']));
    const body = (kind: string): string => invalidNewPetExamples().find((e) => e.kind === kind)?.body ?? '';
    const invalidSpans = codeSpans(bullet('createPet, invalid'));
    const parsed = parseJson(body('name-and-categoryId-in-another-case'));
    const otherCase = parsed.ok && isJsonObject(parsed.value) ? Object.keys(parsed.value).filter((member) => member !== 'status') : [];
    for (const member of otherCase) expect(invalidSpans).toContain(member);
    expect(otherCase).toEqual(['NAME', 'CATEGORYID']);
    const tail = invalidSpans.find((span) => body('trailing-bytes').endsWith(`}${span}`));
    expect(tail, 'the page shows the bytes after the NewPet').toBe(' trailing');
  });
});

/** How the page spells the small counts it gives in words. */
const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven'];

describe('docs/test-cases.md says how the valid creates are sent together, as the code does', () => {
  it('groups of MIN_GROUP, held for a window that can take MIN_GROUP at once', () => {
    const bullet = fixedCaseBullets().get('createPet, valid') ?? '';
    expect(bullet).toContain(`in groups of ${NUMBER_WORDS[MIN_GROUP]} released at the same moment`);
    expect(bullet).toContain(`cannot take ${NUMBER_WORDS[MIN_GROUP]} at once`);
  });

  it('a name the store already holds: which group takes it from which, with which status', () => {
    const bullet = fixedCaseBullets().get('createPet, valid') ?? '';
    const examples = newPetExamples(1n);
    const index = examples.findIndex((e) => e.label.split('+').includes(NAME_ALREADY_HELD));
    const taker = examples[index]?.input;
    const source = examples.findIndex((e) => e.input === taker?.nameOf);
    const group = (i: number): string => ['first', 'second', 'third', 'fourth'][Math.floor(i / MIN_GROUP)] ?? '?';
    expect(bullet).toContain('a name the store already holds');
    expect(bullet).toContain(`the ${group(index)} group's ${taker?.status ?? '?'} pet is sent with the name the ${group(source)} group's ${examples[source]?.input.status ?? '?'} pet was created with`);
  });
});

describe('a run against the reference server sends every case docs/test-cases.md names', () => {
  const seen: { path: string; limit: string | null; status: string | null; authorization: string | undefined; body: string }[] = [];
  let keys: string[] = [];
  let run: VariantRun;

  beforeAll(async () => {
    run = await runVariant(
      { name: 'docs-fixed-cases', kind: 'conforming', breaks: [], why: 'records every request' },
      {
        finalize: (response, ctx) => {
          keys = [...ctx.server.keys.keys()];
          seen.push({
            path: ctx.url.pathname,
            limit: ctx.url.searchParams.get('limit'),
            status: ctx.url.searchParams.get('status'),
            authorization: ctx.headers.authorization,
            body: ctx.body.toString('utf8'),
          });
          return ref.finalize(response, ctx);
        },
      },
    );
  }, RUN_TIMEOUT_MS);

  const bullets = fixedCaseBullets();

  it('conforms, as the reference must', () => {
    expect(run.cli.code, run.cli.stderr).toBe(0);
  });

  it('every limit on the page and status=adopted', () => {
    const spans = codeSpans(bullets.get('listPets:') ?? '');
    for (const span of spans.filter((s) => s.startsWith('limit='))) {
      expect(seen.some((r) => r.path === '/v1/pets' && r.limit === span.slice('limit='.length) && r.status === null), span).toBe(true);
    }
    expect(spans).toContain('status=adopted');
    expect(seen.some((r) => r.path === '/v1/pets' && r.status === 'adopted')).toBe(true);
  });

  it('the createPet bodies with members in another case and with bytes after the NewPet', () => {
    const bodies = seen.filter((r) => r.path === '/v1/pets').map((r) => r.body);
    const members = (text: string): string => {
      const parsed = parseJson(text);
      return parsed.ok && isJsonObject(parsed.value) ? Object.keys(parsed.value).join(',') : '';
    };
    const around = newPetCases(newPetExamples(1n)).find((e) => e.label === NAME_IN_OTHER_CASE)?.input;
    expect(around === undefined ? undefined : members(newPetBody(around))).toBe('NAME,name,Name,categoryId,status');
    expect(bodies.some((b) => members(b) === 'NAME,name,Name,categoryId,status')).toBe(true);
    expect(bodies.some((b) => members(b) === 'NAME,CATEGORYID,status')).toBe(true);
    expect(bodies.some((b) => /^\{.*\} trailing$/.test(b))).toBe(true);
    expect(bodies.some((b) => /^\{[^{}]*\}\{[^{}]*\}$/.test(b))).toBe(true);
  });

  it('each required field missing, and null, in a body with status and in one without', () => {
    const objects = seen.filter((r) => r.path === '/v1/pets').flatMap((r) => {
      const parsed = parseJson(r.body);
      return parsed.ok && isJsonObject(parsed.value) ? [parsed.value] : [];
    });
    const others = (field: string): string[] => newPetRequired().filter((f) => f !== field);
    for (const field of newPetRequired()) {
      for (const withStatus of [true, false]) {
        const shaped = (o: (typeof objects)[number]): boolean => Object.hasOwn(o, 'status') === withStatus && others(field).every((f) => Object.hasOwn(o, f));
        expect(objects.some((o) => shaped(o) && !Object.hasOwn(o, field)), `${field} missing, status ${withStatus}`).toBe(true);
        expect(objects.some((o) => shaped(o) && o[field] === null), `${field} null, status ${withStatus}`).toBe(true);
      }
    }
  });

  it('a valid create with a name an earlier create of the run was sent with', () => {
    const names = seen.filter((r) => r.path === '/v1/pets').flatMap((r) => {
      const parsed = parseJson(r.body);
      return parsed.ok && isJsonObject(parsed.value) && typeof parsed.value['name'] === 'string' && parsed.value['name'] !== '' ? [parsed.value['name']] : [];
    });
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toHaveLength(1);
  });

  it('the valid creates, sent together: the creations in flight at once that CREATE-002 fetched', () => {
    const said = (run.report?.observations ?? []).filter((o) => o.requirement === 'CREATE-002').map((o) => o.message);
    const together = said.map((m) => /^(\d+) creations were in flight together/.exec(m)?.[1]).find((n) => n !== undefined);
    expect(Number(together), said.join('\n')).toBeGreaterThanOrEqual(MIN_GROUP);
  });

  it('every petId on the page', () => {
    for (const id of codeSpans(bullets.get('getPet:') ?? '')) expect(seen.some((r) => r.path === `/v1/pets/${id}`), id).toBe(true);
  });

  it('every edge without Authorization, and the wrong-key and malformed-header edges with theirs', () => {
    const at = (edge: ParameterEdge) => (r: (typeof seen)[number]): boolean =>
      edge.parameter === 'petId'
        ? r.path === `/v1/pets/${edge.value}`
        : r.path === '/v1/pets' && r[edge.parameter] === edge.value && r[edge.parameter === 'limit' ? 'status' : 'limit'] === null;
    for (const edge of parameterEdges()) expect(seen.some((r) => at(edge)(r) && r.authorization === undefined), edgeLabel(edge)).toBe(true);
    const notIssued = (authorization: string | undefined): boolean => authorization?.startsWith('Bearer ') === true && !keys.includes(authorization.slice('Bearer '.length));
    for (const edge of wrongKeyEdges()) expect(seen.some((r) => at(edge)(r) && notIssued(r.authorization)), edgeLabel(edge)).toBe(true);
    // The empty bearer token: the trailing space is optional whitespace the server's parser drops.
    for (const edge of malformedHeaderEdges()) expect(seen.some((r) => at(edge)(r) && r.authorization?.trim() === 'Bearer'), edgeLabel(edge)).toBe(true);
  });

  it('every bearer token on the page, and each near miss of the run key (never the description)', () => {
    const spans = codeSpans(bullets.get('every operation') ?? '');
    const edges = new Set([...parameterEdges(), ...wrongKeyEdges(), ...malformedHeaderEdges()].map(edgeLabel));
    const tokens = spans.filter((s) => !s.startsWith('<') && !edges.has(s));
    for (const token of tokens) expect(seen.some((r) => r.authorization === `Bearer ${token}`), token).toBe(true);
    const key = keys.find((k) => seen.some((r) => r.authorization === `Bearer ${k}`));
    expect(key).toBeDefined();
    const misses = nearMissesOf(key ?? '');
    expect(misses).toEqual(ALL_MISSES);
    expect(sorted(spans.filter((s) => s.startsWith('<')))).toEqual(sorted(misses.map(describeNearMiss)));
    for (const miss of misses) expect(seen.some((r) => r.authorization === `Bearer ${nearMissOf(key ?? '', miss)}`), miss).toBe(true);
  });
});
