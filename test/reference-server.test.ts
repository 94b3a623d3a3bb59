import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  empty,
  ok,
  PET_STATUSES,
  referenceBehaviour,
  startReferenceServer,
  SUNSET,
  type RunningReferenceServer,
} from '../fixtures/reference-server/index.js';
import { isJsonObject, parseJson, type JsonValue } from '../src/interface/json.js';

interface Reply {
  /** Unix ms just before the request was sent: the server's clock read no earlier (unless a test sets it). */
  sentAt: number;
  status: number;
  headers: Record<string, string>;
  text: string;
  body: JsonValue | undefined;
}

interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Sent as "Bearer <key>"; ignored when authorization is given. */
  key?: string;
  /** The raw Authorization header; null sends none. */
  authorization?: string | null;
  body?: string;
  contentType?: string;
}

async function call(server: RunningReferenceServer, target: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  const authorization = options.authorization === undefined ? `Bearer ${options.key ?? server.keys.business}` : options.authorization;
  if (authorization !== null) headers['authorization'] = authorization;
  if (options.body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  const sentAt = Date.now();
  const response = await request(`${server.baseUrl}${target}`, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers,
    ...(options.body === undefined ? {} : { body: options.body }),
  });
  const text = await response.body.text();
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const parsed = text === '' ? undefined : parseJson(text);
  return { sentAt, status: response.statusCode, headers: flat, text, body: parsed?.ok === true ? parsed.value : undefined };
}

function pets(reply: Reply): { id: bigint; name: string; categoryId: bigint; status?: string }[] {
  if (!Array.isArray(reply.body)) throw new Error(`expected an array, got ${reply.text}`);
  return reply.body.map((item) => {
    if (!isJsonObject(item)) throw new Error('expected a Pet object');
    const { id, name, categoryId, status } = item;
    if (typeof name !== 'string') throw new Error('name is not a string');
    return {
      id: BigInt(id as number | bigint),
      name,
      categoryId: BigInt(categoryId as number | bigint),
      ...(typeof status === 'string' ? { status } : {}),
    };
  });
}

function expectError(reply: Reply, status: number): void {
  expect(reply.status).toBe(status);
  expect(reply.headers['content-type']).toBe('application/json');
  expect(reply.body).toMatchObject({ code: expect.any(String), message: expect.any(String), status });
}

/**
 * The three headers, integers, Remaining within Limit, and Reset not before the second the
 * request was made in by the server's clock (`serverNowMs`: the real one unless the test set it),
 * never by when the test reads it: a busy machine may take seconds between the two.
 */
function expectRateHeaders(reply: Reply, serverNowMs = reply.sentAt): { limit: number; remaining: number; reset: number } {
  const values = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].map((name) => {
    const value = reply.headers[name];
    expect(value, name).toMatch(/^\d+$/);
    return Number(value);
  });
  const [limit = NaN, remaining = NaN, reset = NaN] = values;
  expect(remaining).toBeLessThanOrEqual(limit);
  expect(reset).toBeGreaterThanOrEqual(Math.floor(serverNowMs / 1000));
  return { limit, remaining, reset };
}

describe('reference server: the spec', () => {
  let server: RunningReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer();
  });
  afterAll(() => server.close());

  it('serves 20 of 30 pets by default, in creation order, with ids from 1', async () => {
    const reply = await call(server, '/pets');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json');
    // The real clock: Reset is the end of the current 60 s window, aligned to Unix time.
    const { reset } = expectRateHeaders(reply);
    expect(reset % 60).toBe(0);
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
    expect(pets(reply).map((pet) => pet.id)).toEqual(Array.from({ length: 20 }, (_, i) => BigInt(i + 1)));
    expect(server.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  it('honours limit 1 and 100 and rejects 0, 101, -1, 1.5, abc and empty with 400', async () => {
    expect(pets(await call(server, '/pets?limit=1'))).toHaveLength(1);
    const all = pets(await call(server, '/pets?limit=100'));
    expect(all.length).toBeGreaterThanOrEqual(30);
    for (const bad of ['0', '101', '-1', '1.5', 'abc', '']) {
      expectError(await call(server, `/pets?limit=${bad}`), 400);
    }
  });

  it('filters by each status, combines with limit and rejects other values', async () => {
    const all = pets(await call(server, '/pets?limit=100'));
    let total = 0;
    for (const status of PET_STATUSES) {
      const filtered = pets(await call(server, `/pets?status=${status}&limit=100`));
      expect(filtered.length).toBeGreaterThan(0);
      expect(filtered.every((pet) => pet.status === status)).toBe(true);
      expect(filtered).toEqual(all.filter((pet) => pet.status === status));
      total += filtered.length;
      const two = pets(await call(server, `/pets?limit=2&status=${status}`));
      expect(two).toEqual(filtered.slice(0, 2));
    }
    expect(total).toBe(all.length);
    expectError(await call(server, '/pets?status=lost'), 400);
    expectError(await call(server, '/pets?status='), 400);
  });

  it('seeds deterministic content with categoryIds beyond 2^53', async () => {
    const other = await startReferenceServer();
    try {
      const mine = pets(await call(server, '/pets?limit=30'));
      const theirs = pets(await call(other, '/pets?limit=30'));
      expect(theirs).toEqual(mine);
      expect(mine.some((pet) => pet.categoryId > 2n ** 53n)).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('creates a pet (status defaults to available, extra fields ignored) and gets it back', async () => {
    const created = await call(server, '/pets', { body: '{"name":"","categoryId":-9223372036854775808,"colour":"red"}' });
    expect(created.status).toBe(201);
    expect(created.headers['content-type']).toBe('application/json');
    expectRateHeaders(created);
    const [pet] = pets({ ...created, body: [created.body ?? null] });
    expect(pet).toEqual({ id: 31n, name: '', categoryId: -(2n ** 63n), status: 'available' });
    expect(created.body).not.toHaveProperty('colour');
    const fetched = await call(server, '/pets/31');
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(created.body);
    const sold = await call(server, '/pets', { body: '{"name":"Sold","categoryId":2,"status":"sold"}', contentType: 'application/json; charset=utf-8' });
    expect(sold.body).toEqual({ id: 32, name: 'Sold', categoryId: 2, status: 'sold' });
  });

  it('rejects invalid NewPets with 400 and creates nothing', async () => {
    const before = pets(await call(server, '/pets?limit=100')).length;
    const bodies = [
      '',
      'not json',
      'null',
      '[]',
      '"pet"',
      '{"categoryId":1}',
      '{"name":"x"}',
      '{"name":1,"categoryId":1}',
      '{"name":null,"categoryId":1}',
      '{"name":"x","categoryId":"1"}',
      '{"name":"x","categoryId":1.5}',
      '{"name":"x","categoryId":9223372036854775808}',
      '{"name":"x","categoryId":-9223372036854775809}',
      '{"name":"x","categoryId":1,"status":"lost"}',
      '{"name":"x","categoryId":1,"status":null}',
      `{"name":"${'x'.repeat(70 * 1024)}","categoryId":1}`,
    ];
    for (const body of bodies) expectError(await call(server, '/pets', { body }), 400);
    expectError(await call(server, '/pets', { body: '{"name":"x","categoryId":1}', contentType: 'text/plain' }), 400);
    expectError(await call(server, '/pets', { method: 'POST' }), 400);
    expect(pets(await call(server, '/pets?limit=100'))).toHaveLength(before);
  });

  it('getPet: deprecation headers, 404 for unknown ids, 400 for non-integers', async () => {
    const found = await call(server, '/pets/1');
    expect(found.status).toBe(200);
    expect(found.headers['deprecation']).toMatch(/^@\d+$/);
    expect(Number(found.headers['deprecation']?.slice(1)) * 1000).toBeLessThan(Date.parse(SUNSET));
    expect(found.headers['sunset']).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    for (const id of ['9223372036854775807', '-9223372036854775808', '0', '999999']) {
      const missing = await call(server, `/pets/${id}`);
      expectError(missing, 404);
      expect(missing.headers['sunset']).toBe(SUNSET);
    }
    for (const id of ['abc', '1.5', '9223372036854775808', '1e3', '%20']) expectError(await call(server, `/pets/${id}`), 400);
  });

  it('answers orders, unknown paths and wrong methods', async () => {
    const orders = await call(server, '/store/orders');
    expect(orders.status).toBe(200);
    expect(orders.body).toEqual([]);
    expect(orders.headers['content-type']).toBe('application/json');
    for (const path of ['/nope', '/pets/1/extra', '/pets/', '/../pets']) {
      const reply = await call(server, path);
      expectError(reply, 404);
      expectRateHeaders(reply);
    }
    const wrong = await call(server, '/pets', { method: 'DELETE' });
    expectError(wrong, 405);
    expect(wrong.headers['allow']).toBe('GET, POST');
    expectRateHeaders(wrong);
    expect((await call(server, '/store/orders', { method: 'PUT', body: '{}' })).headers['allow']).toBe('GET');
  });

  it('answers 401 with an Error body and rate-limit headers for missing, wrong and malformed credentials', async () => {
    const key = server.keys.business;
    const before = expectRateHeaders(await call(server, '/store/orders'));
    const authorizations = [null, 'Bearer nope', key, `Basic ${key}`, 'Bearer', `Bearer ${key} extra`, `Bearer${key}`, ''];
    for (const authorization of authorizations) {
      for (const [target, body] of [['/pets', undefined], ['/pets', '{"name":"Unauthorised","categoryId":1}'], ['/pets/1', undefined], ['/store/orders', undefined]] as const) {
        const reply = await call(server, target, { authorization, ...(body === undefined ? {} : { body }) });
        expectError(reply, 401);
        expect(reply.body).toMatchObject({ code: 'unauthorized' });
        const { limit } = expectRateHeaders(reply);
        expect(limit).toBe(60);
      }
    }
    // 401s are charged to the client address, not to the key.
    const after = await call(server, '/store/orders', { authorization: `bearer ${key}` });
    expect(after.status).toBe(200);
    const now = expectRateHeaders(after);
    // A minute boundary in between resets the window; only the same window shows the 401s were not charged.
    if (now.reset === before.reset) expect(now.remaining).toBe(before.remaining - 1);
    const listed = pets(await call(server, '/pets?limit=100'));
    expect(listed.some((pet) => pet.name === 'Unauthorised')).toBe(false);
  });

  it('advertises each plan limit and counts every request', async () => {
    expect(expectRateHeaders(await call(server, '/pets?limit=1', { key: server.keys.free })).limit).toBe(60);
    expect(expectRateHeaders(await call(server, '/pets?limit=1', { key: server.keys.pro })).limit).toBe(300);
    expect(expectRateHeaders(await call(server, '/pets?limit=1', { key: server.keys.business })).limit).toBe(1000);
    const before = server.requests;
    await call(server, '/pets', { authorization: null });
    expect(server.requests).toBe(before + 1);
  });
});

describe('reference server: rate limiting', () => {
  it('answers 429 with Retry-After once the window quota is used, and serves again after the reset', async () => {
    // A clock the test moves: the burst stays in one window however slow the machine, and no test waits.
    let clock = Math.floor(Date.now() / 1000) * 1000 + 100;
    const server = await startReferenceServer({ windowSeconds: 1, pets: 3, behaviour: { now: () => clock } });
    try {
      const key = server.keys.free;
      let last = { limit: 0, remaining: 0, reset: 0 };
      for (let i = 0; i < 60; i++) {
        const reply = await call(server, '/store/orders', { key });
        expect(reply.status).toBe(200);
        const headers = expectRateHeaders(reply, clock);
        expect(headers.remaining).toBe(59 - i);
        last = headers;
      }
      for (let i = 0; i < 2; i++) {
        const limited = await call(server, '/pets', { key });
        expectError(limited, 429);
        expect(limited.headers['retry-after']).toMatch(/^[1-9]\d*$/);
        expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(1);
        expect(expectRateHeaders(limited, clock)).toEqual({ ...last, remaining: 0 });
      }
      expect((await call(server, '/store/orders', { key: server.keys.pro })).status).toBe(200);

      clock = last.reset * 1000;
      const again = await call(server, '/store/orders', { key });
      expect(again.status).toBe(200);
      expect(expectRateHeaders(again, clock)).toMatchObject({ remaining: 59, reset: last.reset + 1 });
    } finally {
      await server.close();
    }
  });

  it('limits unauthenticated requests per client address with the Free quota', async () => {
    // A frozen clock keeps the 61 requests in one window without waiting for a window start.
    const frozen = Date.now();
    const server = await startReferenceServer({ windowSeconds: 1, pets: 0, behaviour: { now: () => frozen } });
    try {
      const replies = await Promise.all(Array.from({ length: 61 }, () => call(server, '/pets', { authorization: null })));
      expect(replies.filter((reply) => reply.status === 401)).toHaveLength(60);
      const limited = replies.find((reply) => reply.status === 429);
      expect(limited).toBeDefined();
      if (limited !== undefined) {
        expectError(limited, 429);
        expect(limited.headers['retry-after']).toBe('1');
        expect(expectRateHeaders(limited, frozen).remaining).toBe(0);
      }
      expect((await call(server, '/pets', { key: server.keys.free })).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('enforces the daily quota until the next UTC day', async () => {
    let clock = Date.UTC(2030, 0, 1, 23, 58, 0);
    const server = await startReferenceServer({
      pets: 1,
      behaviour: { now: () => clock, quota: (plan, ctx) => ({ ...referenceBehaviour.quota(plan, ctx), perDay: 3 }) },
    });
    try {
      for (let i = 0; i < 3; i++) expect((await call(server, '/pets')).status).toBe(200);
      const limited = await call(server, '/pets');
      expectError(limited, 429);
      expect(limited.headers['retry-after']).toBe('120');
      expect(limited.headers['x-ratelimit-reset']).toBe(String(Date.UTC(2030, 0, 2) / 1000));
      clock += 60_000; // a new window, the same day
      expect((await call(server, '/pets')).status).toBe(429);
      clock += 60_000; // the next day
      const served = await call(server, '/pets');
      expect(served.status).toBe(200);
      expect(served.headers['x-ratelimit-remaining']).toBe('2'); // the day binds: 2 left today
    } finally {
      await server.close();
    }
  });
});

describe('reference server: behaviour hooks and lifecycle', () => {
  it('an override changes only what it overrides', async () => {
    const reference = await startReferenceServer({ seed: 7 });
    const clamping = await startReferenceServer({
      seed: 7,
      keys: { 'the-key': 'business' },
      behaviour: {
        limit: (raw, ctx) => {
          const parsed = referenceBehaviour.limit(raw, ctx);
          return parsed.ok || raw === null || !/^\d+$/.test(raw) ? parsed : ok(Math.min(100, Math.max(1, Number(raw))));
        },
      },
    });
    try {
      expect(clamping.keys.business).toBe('the-key');
      const targets = ['/pets', '/pets?limit=5', '/pets?limit=abc', '/pets?status=sold', '/pets?status=x', '/pets/3', '/pets/abc', '/nope'];
      for (const target of targets) {
        const [a, b] = await Promise.all([call(reference, target), call(clamping, target)]);
        expect(b.status, target).toBe(a.status);
        expect(b.text, target).toBe(a.text);
        expect(Object.keys(b.headers).sort(), target).toEqual(Object.keys(a.headers).sort());
      }
      expectError(await call(reference, '/pets?limit=500'), 400);
      expect(pets(await call(clamping, '/pets?limit=500'))).toHaveLength(30);
      expect(pets(await call(clamping, '/pets?limit=0'))).toHaveLength(1);
    } finally {
      await Promise.all([reference.close(), clamping.close()]);
    }
  });

  it('expresses typical variants as one-line hooks', async () => {
    const frozen = Date.now(); // the four requests must share one window
    const server = await startReferenceServer({
      pets: 2,
      behaviour: {
        now: () => frozen,
        quota: (plan, ctx) => ({ ...referenceBehaviour.quota(plan, ctx), perWindow: 3 }),
        tooManyRequests: (state, ctx) => ({
          ...referenceBehaviour.tooManyRequests(state, ctx),
          status: 503,
          headers: { 'Retry-After': new Date(state.reset * 1000).toUTCString() },
        }),
        buildPet: (newPet, id) => ({ ...referenceBehaviour.buildPet(newPet, id), status: newPet.status }),
        serialisePet: (pet, ctx) => ({ ...referenceBehaviour.serialisePet(pet, ctx), tags: [] }),
        petId: (raw, ctx) => {
          const parsed = referenceBehaviour.petId(raw, ctx);
          return parsed.ok ? parsed : { ...parsed, status: 404 };
        },
        contentType: () => 'application/json; charset=utf-8',
        listOrders: () => empty(204),
      },
    });
    try {
      const created = await call(server, '/pets', { body: '{"name":"NoStatus","categoryId":5}' });
      expect(created.body).toEqual({ id: 3, name: 'NoStatus', categoryId: 5, tags: [] });
      expect(created.headers['content-type']).toBe('application/json; charset=utf-8');
      expect((await call(server, '/pets/abc')).body).toMatchObject({ status: 404 });
      expect((await call(server, '/store/orders')).status).toBe(204);
      const refused = await call(server, '/store/orders');
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ status: 503 });
      // The end of the frozen clock's window, as an HTTP-date (whole seconds).
      expect(Date.parse(refused.headers['retry-after'] ?? '')).toBeGreaterThan(frozen);
    } finally {
      await server.close();
    }
  });

  it('keeps ids beyond 2^53 and categoryIds up to 2^63-1 exact through create, list and get', async () => {
    const server = await startReferenceServer({
      pets: 2,
      behaviour: { assignId: (previous) => (previous === undefined ? 2n ** 53n + 1n : previous + 1n) },
    });
    try {
      const created = await call(server, '/pets', { body: '{"name":"Big","categoryId":9223372036854775807,"status":"pending"}' });
      expect(created.status).toBe(201);
      expect(created.text).toBe('{"id":9007199254740995,"name":"Big","categoryId":9223372036854775807,"status":"pending"}');
      const listed = pets(await call(server, '/pets'));
      expect(listed.map((pet) => pet.id)).toEqual([2n ** 53n + 1n, 2n ** 53n + 2n, 2n ** 53n + 3n]);
      const fetched = await call(server, '/pets/9007199254740995');
      expect(fetched.text).toBe(created.text);
      expect((await call(server, '/pets/9007199254740994')).status).toBe(200);
      expectError(await call(server, '/pets/9007199254740996'), 404);
    } finally {
      await server.close();
    }
  });

  it('turns a throwing hook into a 500 Error response and renders hook data', async () => {
    const server = await startReferenceServer({
      pets: 1,
      behaviour: {
        statusFilter: () => {
          throw new Error('boom');
        },
        errorBody: (error, ctx) => (error.status === 404 ? undefined : referenceBehaviour.errorBody(error, ctx)),
        extraHeaders: () => ({ 'X-Variant': 'yes' }),
      },
    });
    try {
      const failed = await call(server, '/pets');
      expectError(failed, 500);
      expectRateHeaders(failed);
      const missing = await call(server, '/nope');
      expect(missing.status).toBe(404);
      expect(missing.text).toBe('');
      expect(missing.headers['content-type']).toBeUndefined();
      expect(missing.headers['x-variant']).toBe('yes');
    } finally {
      await server.close();
    }
  });

  it('close() ends idle and in-flight keep-alive connections rather than waiting for them', async () => {
    // A response due in ten minutes on a connection kept alive for ten: a close() that waited for
    // either would outlast the test's own timeout; the in-flight request is aborted, not answered.
    const server = await startReferenceServer({ pets: 1, behaviour: { delayMs: (ctx) => (ctx.operation === 'listOrders' ? 600_000 : 0) } });
    const dispatcher = new Agent({ keepAliveTimeout: 600_000 });
    try {
      const idle = await request(`${server.baseUrl}/pets`, { headers: { authorization: `Bearer ${server.keys.free}` }, dispatcher });
      await idle.body.text();
      const inFlight = request(`${server.baseUrl}/store/orders`, { headers: { authorization: `Bearer ${server.keys.free}` }, dispatcher }).then(
        () => 'answered',
        () => 'aborted',
      );
      // Closed only once the server holds the request, however long a busy machine takes to deliver it.
      while (server.requests < 2) await sleep(5);
      await server.close();
      expect(await inFlight).toBe('aborted');
      await server.close(); // idempotent
    } finally {
      await dispatcher.close();
    }
  });
});
