/**
 * The exchange mutation layer (mutation/exchange/, issue 45) kept from rotting: its generation
 * from openapi.yaml, its byte-for-byte passthrough, a fixed sample of mutants across every target
 * class that must each change what they target under a fixed script of requests, and a few whole
 * runs of the suite through it (the identity on conforming variants, one mutant per section that
 * the suite must kill on its section). The whole measure is `npm run mutate:exchanges`, never here.
 */
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import { startReferenceServer, type RequestContext } from '../fixtures/reference-server/index.js';
import { variantServerOptions } from '../fixtures/variants/index.js';
import { exchangeMutants, countBySection, type ExchangeMutant } from '../mutation/exchange/mutants.js';
import { IDENTITY, startLayer, type HeaderLines, type Mutation } from '../mutation/exchange/layer.js';
import { allTargets } from '../mutation/exchange/targets.js';
import { loadRoom } from '../mutation/exchange/room.js';
import { sectionDigests } from '../mutation/exchange/digests.js';
import { runThroughLayer } from '../mutation/exchange/run.js';
import { statusOf } from '../mutation/exchange/judge.js';
import { variantNamed } from './support/variant-run.js';
import { servedUntilAfterAll } from './support/served.js';
import { RUN_TIMEOUT_MS } from './support/hang-guard.js';

const served = servedUntilAfterAll();
const MUTANTS = exchangeMutants();
const named = (name: string): ExchangeMutant => {
  const found = MUTANTS.find((m) => m.name === name);
  if (found === undefined) throw new Error(`no exchange mutant ${name}`);
  return found;
};

describe('exchange mutants generated from openapi.yaml', () => {
  test('at least 300 mutants with unique names, every target reached by one, every section counted', () => {
    expect(MUTANTS.length).toBeGreaterThanOrEqual(300);
    expect(new Set(MUTANTS.map((m) => m.name)).size).toBe(MUTANTS.length);
    const targeted = new Set(MUTANTS.map((m) => m.target));
    expect(allTargets().map((t) => t.name).filter((name) => !targeted.has(name))).toEqual([]);
    expect([...countBySection(MUTANTS).keys()]).toEqual(expect.arrayContaining(['1', '2', '4.1', '4.2', '4.3', '7', '8']));
  });

  test('every header the document names, every status code and every NewPet field has a target', () => {
    const names = allTargets().map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'Content-Type']));
    expect(names).toEqual(expect.arrayContaining(['createPet.201', 'createPet.400', 'getPet.404', 'listPets.429', 'NewPet.name', 'NewPet.categoryId', 'NewPet.status', 'listPets.limit', 'listPets.status']));
    expect(names).toEqual(expect.arrayContaining(['listPets.200[].id', 'createPet.201.categoryId', '*.400.status']));
  });

  test('room.yaml loads: every entry names a requirement of the catalog', () => {
    expect(() => loadRoom()).not.toThrow();
  });
});

// ---------------------------------------------------------------- incremental digests

describe('--incremental: one digest per section, derived from the ids checks and suites quote', () => {
  const CATALOG = [
    { id: 'LIST-001', section: '4.1' },
    { id: 'CREATE-001', section: '4.2' },
    { id: 'PET-001', section: '2', crossCutting: true },
    { id: 'GET-001', section: '4.3' },
  ];
  const tree = (changes: Record<string, string> = {}): Map<string, string> =>
    new Map(
      Object.entries({
        'src/session/session.js': 'export const run = 1;',
        'src/checks/list-page.js': "import { text } from './text.js'; import { shape } from './pet-shape.js'; export const c = 'LIST-001';",
        'src/checks/text.js': 'export const text = 1;',
        'src/checks/pet-shape.js': "export const c = 'PET-001'; // judges every exchange",
        'src/checks/create.js': "export const c = 'CREATE-001'; // LIST-001 in a comment is no claim",
        'suites/list-pets.js': "import { c } from '../src/checks/list-page.js'; requirementTest('LIST-001');",
        'suites/create-pet.js': "send({ method: 'POST' }); requirementTest('CREATE-001');",
        'suites/get-pet.js': "import { c } from '../src/checks/create.js'; send({ method: 'GET' }); requirementTest('GET-001');",
        'src/checks/page.js.map': '{"sourcesContent":["\'LIST-001\'"]}',
        ...changes,
      }),
    );
  const digests = (changes: Record<string, string> = {}) => sectionDigests(tree(changes), CATALOG);
  const changed = (file: string): string[] => {
    const [before, after] = [digests(), digests({ [file]: `${tree().get(file) ?? ''} // changed` })];
    return ['4.1', '4.2', '2'].filter((s) => before.of(s) !== after.of(s));
  };

  test("a check retests only the sections whose ids it quotes, and those whose suites import it", () => {
    expect(changed('src/checks/list-page.js')).toEqual(['4.1', '2']);
    // A cross-cutting section reads every suite and what they import (get-pet's suite imports it).
    expect(changed('src/checks/create.js')).toEqual(['4.2', '2']);
    // A check another imports follows it.
    expect(changed('src/checks/pet-shape.js')).toEqual(['4.1', '2']);
  });

  test('shared modules, writing suites and checks that quote no id are in every digest; source maps in none', () => {
    expect(changed('src/session/session.js')).toEqual(['4.1', '4.2', '2']);
    expect(changed('src/checks/text.js')).toEqual(['4.1', '4.2', '2']);
    expect(changed('suites/create-pet.js')).toEqual(['4.1', '4.2', '2']);
    expect(changed('src/checks/page.js.map')).toEqual([]);
    expect(digests().filesOf('4.1')).toEqual(['src/checks/list-page.js', 'src/checks/pet-shape.js', 'src/checks/text.js', 'src/session/session.js', 'suites/create-pet.js', 'suites/list-pets.js']);
  });

  test('the whole tree moves with any module, for the time-dependent mutants', () => {
    expect(digests().whole).not.toBe(digests({ 'src/checks/create.js': 'x' }).whole);
  });
});

// ---------------------------------------------------------------- passthrough

interface Seen {
  status: number;
  statusMessage: string;
  headers: HeaderLines;
  body: Buffer;
}

function send(url: string, method: string, headers: [string, string][], body: Buffer): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = httpRequest({ host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method, headers: headers.flat() }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const lines: HeaderLines = [];
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) lines.push([res.rawHeaders[i] ?? '', res.rawHeaders[i + 1] ?? '']);
        resolve({ status: res.statusCode ?? 0, statusMessage: res.statusMessage ?? '', headers: lines, body: Buffer.concat(chunks) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the layer passes what it does not mutate byte for byte', () => {
  test('request lines and body reach the server as sent; the response comes back as the server wrote it', async () => {
    const received: { headers: HeaderLines; body: Buffer; target: string }[] = [];
    const odd = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xc0, 0x22, 0x7d]);
    const stub = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const lines: HeaderLines = [];
        for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) lines.push([req.rawHeaders[i] ?? '', req.rawHeaders[i + 1] ?? '']);
        received.push({ headers: lines, body: Buffer.concat(chunks), target: req.url ?? '' });
        res.sendDate = false;
        res.writeHead(418, 'Odd Teapot', ['x-RateLimit-limit', '5', 'Set-Thing', 'a', 'Set-Thing', 'b', 'content-type', 'Application/JSON', 'Content-Length', String(odd.length)]);
        res.end(odd);
      });
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    await served({ close: () => new Promise<void>((resolve) => stub.close(() => resolve())) });
    const upstream = `http://127.0.0.1:${(stub.address() as AddressInfo).port}/v1`;
    const layer = await served(startLayer(upstream, IDENTITY));
    const headers: [string, string][] = [['Host', 'pets.example'], ['authorization', 'Bearer  k'], ['X-Odd', ' spaced '], ['content-type', 'application/json'], ['content-length', String(odd.length)]];
    const direct = await send(`${upstream}/pets?limit=%31&x=`, 'POST', headers, odd);
    const proxied = await send(`${layer.baseUrl}/pets?limit=%31&x=`, 'POST', headers, odd);
    expect(proxied).toEqual(direct);
    expect({ status: direct.status, message: direct.statusMessage, requests: received.length }).toEqual({ status: 418, message: 'Odd Teapot', requests: 2 });
    const [first, second] = received;
    expect(second?.target).toBe(first?.target);
    expect(second?.body.equals(odd)).toBe(true);
    // The client's own lines, Host included, in their order and case; only the connection's line is the proxy's own.
    const own = (lines: HeaderLines | undefined): HeaderLines => (lines ?? []).filter(([n]) => n.toLowerCase() !== 'connection');
    expect(own(second?.headers)).toEqual(own(first?.headers));
    expect(layer.applied).toBe(0);
  });
});

// ---------------------------------------------------------------- a fixed sample, applied

/** A fixed script of requests that reaches every sampled mutant: listings, creations (two at once), fetches, refusals, a burst to 429. */
async function script(baseUrl: string, key: string): Promise<void> {
  const auth: Record<string, string> = { authorization: `Bearer ${key}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const get = (path: string, headers: Record<string, string> = auth): Promise<Response> => fetch(`${baseUrl}${path}`, { headers });
  const post = (body: string): Promise<Response> => fetch(`${baseUrl}/pets`, { method: 'POST', headers: json, body });
  for (const query of ['', '?limit=0', '?limit=101', '?limit=1.5', '?limit=abc', '?status=bogus', '?status=available', '?status=pending&limit=5', '?limit=25']) await (await get(`/pets${query}`)).arrayBuffer();
  const bodies = [
    '{"name":"Rex","categoryId":9007199254740993,"status":"available"}',
    '{"categoryId":1}',
    '{"name":null,"categoryId":1,"status":"sold"}',
    '{"name":"Rex","categoryId":"12"}',
    '{"name":"Rex","categoryId":9223372036854775808}',
    '{"name":"Rex","categoryId":1,"status":"adopted"}',
  ];
  const ids: string[] = [];
  for (const body of bodies) {
    const res = await post(body);
    const text = await res.text();
    const id = /"id":(\d+)/.exec(text)?.[1];
    if (res.status === 201 && id !== undefined) ids.push(id);
  }
  const together = await Promise.all([post('{"name":"A","categoryId":1}'), post('{"name":"B","categoryId":1}')].map(async (r) => (await r).text()));
  for (const text of together) ids.push(...(/"id":(\d+)/.exec(text)?.slice(1) ?? []));
  for (const id of [...ids, '1', '999999999']) await (await get(`/pets/${id}`)).arrayBuffer();
  for (const path of ['/pets', '/pets/1']) await (await get(path, {})).arrayBuffer();
  // Bursts until one meets a 429: a single burst split by a window's end may stay within the limit.
  for (let round = 0; round < 5; round++) {
    const statuses = await Promise.all(Array.from({ length: 70 }, async () => {
      const res = await get('/pets');
      await res.arrayBuffer();
      return res.status;
    }));
    if (statuses.includes(429)) break;
  }
}

const SAMPLE = [
  'remove@listPets.200[].id',
  'null@createPet.201.name',
  'retype-string@getPet.200.categoryId',
  'stringify@*.400.status',
  'round-int64@createPet.201.categoryId',
  'retype-array@*.401.code',
  'remove@*.404.message',
  'envelope@listPets.200',
  'add-field@*.400',
  'remove@X-RateLimit-Limit',
  'freeze@X-RateLimit-Remaining',
  'shift+k@X-RateLimit-Reset',
  'unit-ms@Retry-After',
  'text-plain@Content-Type',
  'remove@X-RateLimit-Reset@key=without',
  'freeze@X-RateLimit-Remaining@op=createPet',
  'status-200@createPet.201',
  'status-422@createPet.400',
  'status-403@getPet.401',
  'status-410@getPet.404',
  'status-503@listPets.429',
  'accept-missing@NewPet.name',
  'accept-string@NewPet.categoryId',
  'accept-int64-range@NewPet.categoryId',
  'accept-outside-enum@NewPet.status',
  'accept-null@NewPet.name@status=present',
  'accept-below-min@listPets.limit',
  'accept-outside-enum@listPets.status',
  'truncate@listPets@limit=present',
  'drop-newest@listPets',
  'break-encoding-20@listPets',
  'ignore-filter-pending@listPets',
  'cap-minus-one@limiter',
  'counted-twice@limiter',
  'remaining-stuck-2xx@limiter',
  'id-reused@store',
  'changed-after-creation@store',
  'lost-write-on-overlap@store',
];

/** Creations answered a little late, so the two the script sends together overlap at the layer. */
const SLOW_CREATES = { behaviour: { delayMs: (ctx: RequestContext) => (ctx.operation === 'createPet' ? 30 : 0) } };

async function appliedUnderScript(mutation: Mutation): Promise<number> {
  const server = await startReferenceServer(variantServerOptions(undefined, SLOW_CREATES));
  const layer = await startLayer(server.baseUrl, mutation);
  try {
    await script(layer.baseUrl, server.keys.free);
    return layer.applied;
  } finally {
    await layer.close();
    await server.close();
  }
}

describe('a fixed sample of exchange mutants, each changing what it targets', () => {
  test('the identity changes nothing under the script', async () => {
    expect(await appliedUnderScript(IDENTITY)).toBe(0);
  });

  test.each(SAMPLE)('%s changes at least one exchange of the script', async (name) => {
    expect(await appliedUnderScript(named(name).make())).toBeGreaterThan(0);
  });
});

describe('conditions on a header only some responses carry', () => {
  const info = { index: 0, operation: 'listPets', path: '/pets', query: new URLSearchParams(), keyed: true, overlapping: 0, arrivedMs: 0 };
  const request = { method: 'GET', target: '/v1/pets', headers: [], body: Buffer.alloc(0) };
  const response = (status: number, reset: number, retryAfter?: string) => ({
    status,
    statusMessage: '',
    headers: [['X-RateLimit-Reset', String(reset)], ...(retryAfter === undefined ? [] : [['Retry-After', retryAfter]])] as HeaderLines,
    body: Buffer.alloc(0),
  });

  test("window=later learns the first window from every response, so a 429 of the second window is a later one's", () => {
    const mutation = named('remove@Retry-After@window=later').make();
    expect(mutation.response?.(response(200, 100), request, info)).toBeUndefined();
    expect(mutation.response?.(response(200, 101), request, info)).toBeUndefined();
    // The run's 429s all come in one window, never the first: the first that carries Retry-After is no mark of the first window.
    expect(mutation.response?.(response(429, 101, '1'), request, info)?.headers).toEqual([['X-RateLimit-Reset', '101']]);
  });
});

// ---------------------------------------------------------------- whole runs

/** One mutant per section the suite must kill there, and the identity on conforming variants of other shapes. */
const KILLED_SAMPLE = ['text-plain@Content-Type', 'remove@createPet.201.id', 'ignore-filter-available@listPets', 'status-400@getPet.404', 'status-403@listPets.401', 'remove@X-RateLimit-Remaining'];
const IDENTITY_SAMPLE = ['extra-fields-and-headers'];

describe('the suite through the layer', () => {
  test.each(IDENTITY_SAMPLE)('identity on the conforming %s: no false failure', { timeout: RUN_TIMEOUT_MS }, async (variant) => {
    const run = await runThroughLayer(variantNamed(variant), IDENTITY, { seed: 1 });
    expect({ error: run.error, failing: run.failing, verdict: run.verdict, applied: run.applied }).toEqual({ error: undefined, failing: [], verdict: 'conforms', applied: 0 });
  });

  test.each(KILLED_SAMPLE)('%s is killed on its section', { timeout: RUN_TIMEOUT_MS }, async (name) => {
    const mutant = named(name);
    const run = await runThroughLayer(undefined, mutant.make(), { seed: 1 });
    expect(run.error).toBeUndefined();
    expect(statusOf(mutant, [run]), JSON.stringify(run.failing)).toBe('killed');
  });
});
