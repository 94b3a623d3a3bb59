import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../src/http/client.js';
import type { ClientOptions, ConformanceClient } from '../src/http/client.js';
import { LimitProbe } from '../src/rate-limit/limit-probe.js';
import { runSendPolicy } from '../src/rate-limit/send-policy.js';
import { BudgetExhaustedError, RunHaltedError, TransportError } from '../src/http/errors.js';
import { toCurl } from '../src/http/curl.js';
import type { Exchange } from '../src/http/exchange.js';
import { describeNearMiss, nearMissesOf, nearMissOf } from '../src/http/near-miss.js';
import { bodyBytes, bodyHead, EVIDENCE_BODY_CHARS } from '../src/http/kept-body.js';
import { jsonBody } from '../src/checks/body.js';
import { exchangeEvidence, loggedExchange } from '../src/report/evidence.js';

const KEY = 'sk_test_Q2x+9/ab=Zk7wPq3';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

interface TestServer {
  url: string;
  seen: Seen[];
  close: () => Promise<void>;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function startServer(handler: (req: Seen, res: ServerResponse, n: number) => void): Promise<TestServer> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(entry);
      res.on('error', () => undefined);
      handler(entry, res, seen.length);
    });
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = async (): Promise<void> => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  cleanups.push(close);
  return { url: `http://127.0.0.1:${port}`, seen, close };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function makeClient(options: Partial<ClientOptions> & { baseUrl: string }): ConformanceClient {
  const client = createClient({ apiKey: KEY, timeoutMs: 2_000, maxBodyBytes: 65_536, maxRequests: 100, ...options });
  cleanups.push(() => client.close());
  return client;
}

/** A clock that only moves when the client sleeps, so waits are observed without taking time. */
function fakeClock(start = Date.UTC(2030, 0, 1, 0, 0, 0)): { now: () => number; sleep: (ms: number) => Promise<void>; slept: number[] } {
  let t = start;
  const slept: number[] = [];
  return {
    now: () => t,
    sleep: async (ms) => {
      slept.push(ms);
      t += ms;
    },
    slept,
  };
}

function everything(client: ConformanceClient): string {
  return JSON.stringify(client.exchanges) + client.exchanges.map(toCurl).join('\n');
}

describe('request building', () => {
  it('joins paths onto a base URL that has a path, with or without a trailing slash', async () => {
    const server = await startServer((_req, res) => json(res, 200, []));
    for (const base of [`${server.url}/v1`, `${server.url}/v1/`]) {
      const client = makeClient({ baseUrl: base });
      const ex = await client.send({ method: 'GET', path: '/pets', query: [['limit', '5'], ['status', ''], ['q', 'a b&c=d/é']], purpose: 'test' });
      expect(ex.request.target).toBe('/pets?limit=5&status=&q=a%20b%26c%3Dd%2F%C3%A9');
      expect(ex.request.url).toBe(`${server.url}/v1/pets?limit=5&status=&q=a%20b%26c%3Dd%2F%C3%A9`);
    }
    expect(server.seen.map((s) => s.url)).toEqual([
      '/v1/pets?limit=5&status=&q=a%20b%26c%3Dd%2F%C3%A9',
      '/v1/pets?limit=5&status=&q=a%20b%26c%3Dd%2F%C3%A9',
    ]);
  });

  it('sends the key as a bearer token and records the exchange', async () => {
    const server = await startServer((_req, res) => json(res, 201, { id: 1 }, { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': '2000000000' }));
    const recorded: Exchange[] = [];
    const client = makeClient({ baseUrl: `${server.url}/v1`, onExchange: (ex) => recorded.push(ex) });
    const ex = await client.send({ method: 'POST', path: '/pets', body: '{"name":"Rex","categoryId":1}', contentType: 'application/json', purpose: 'CREATE-001' });
    expect(server.seen[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(server.seen[0]?.headers['content-type']).toBe('application/json');
    expect(server.seen[0]?.body).toBe('{"name":"Rex","categoryId":1}');
    expect(ex).toMatchObject({ seq: 1, purpose: 'CREATE-001', request: { method: 'POST', auth: 'key', headers: { authorization: 'Bearer <redacted>' } } });
    expect(ex.response).toMatchObject({ status: 201, bodyText: '{"id":1}', truncated: false });
    expect(ex.response?.headers['content-type']).toBe('application/json');
    expect(recorded).toEqual([ex]);
    expect(client.exchanges).toEqual([ex]);
    expect(client.stats).toMatchObject({ requests: 1, keyedRequests: 1 });
    expect(client.rateLimit).toEqual({ limit: 60, remaining: 59, reset: 2000000000 });
    expect(client.remainingBudget()).toBe(99);
  });

  it('sends no header for none and a random bearer for wrong-key, without touching the key bucket', async () => {
    const server = await startServer((_req, res) => json(res, 401, { code: 'unauthorized', message: 'no', status: 401 }, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '4000000000' }));
    const client = makeClient({ baseUrl: server.url });
    await client.send({ method: 'GET', path: '/pets', auth: 'none', purpose: 'AUTH-001' });
    await client.send({ method: 'GET', path: '/pets', auth: 'wrong-key', purpose: 'AUTH-002' });
    expect(server.seen[0]?.headers.authorization).toBeUndefined();
    expect(server.seen[1]?.headers.authorization).toMatch(/^Bearer [A-Za-z0-9_-]{32}$/);
    expect(server.seen[1]?.headers.authorization).not.toContain(KEY);
    expect(client.rateLimit).toEqual({});
    expect(client.stats.keyedRequests).toBe(0);
  });

  it('joins repeated response headers', async () => {
    const server = await startServer((_req, res) => {
      res.setHeader('Set-Cookie', ['a=1', 'b=2']);
      res.setHeader('X-Thing', ['x', 'y']);
      res.end();
    });
    const client = makeClient({ baseUrl: server.url });
    const ex = await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    expect(ex.response?.headers['set-cookie']).toBe('a=1, b=2');
    expect(ex.response?.headers['x-thing']).toBe('x, y');
  });
});

describe('redaction', () => {
  it('keeps the key out of every recorded field and curl line', async () => {
    // The server echoes everything it got, in headers and body, to try to leak the key back.
    const server = await startServer((req, res) => {
      res.setHeader('x-echo-auth', String(req.headers.authorization ?? ''));
      res.setHeader('location', `https://elsewhere.example/?k=${encodeURIComponent(KEY)}`);
      json(res, 400, { code: 'bad', message: `you sent ${req.url} ${req.body} ${KEY}`, status: 400 });
    });
    const client = makeClient({ baseUrl: `${server.url}/v1` });
    const basic = `Basic ${Buffer.from(`user:${KEY}`).toString('base64')}`;
    await client.send({ method: 'GET', path: `/pets/${encodeURIComponent(KEY)}`, query: [['key', KEY]], purpose: 'leak-url' });
    await client.send({ method: 'POST', path: '/pets', body: JSON.stringify({ name: KEY, categoryId: 1 }), contentType: 'application/json', purpose: 'leak-body' });
    await client.send({ method: 'GET', path: '/pets', auth: { mode: 'malformed', header: basic }, purpose: 'leak-basic' });
    await client.send({ method: 'GET', path: '/pets', auth: { mode: 'malformed', header: KEY }, purpose: 'leak-raw' });

    const all = everything(client);
    for (const form of [KEY, encodeURIComponent(KEY), Buffer.from(`user:${KEY}`).toString('base64'), JSON.stringify(KEY).slice(1, -1)]) {
      expect(all).not.toContain(form);
    }
    expect(client.exchanges[0]?.request.url).toContain('<redacted>');
    expect(client.exchanges[1]?.request.body).toBe('{"name":"<redacted>","categoryId":1}');
    expect(client.exchanges[2]?.request.authTemplate).toEqual({ encoding: 'base64', prefix: 'Basic ', plain: ['user:', ''], suffix: '', alphabet: 'base64', padded: true });
    expect(client.exchanges[3]?.request.headers.authorization).toBe('<redacted>');
    expect(client.exchanges[0]?.response?.headers['x-echo-auth']).toBe('Bearer <redacted>');
    expect(client.redact(`x${KEY}y`)).toBe('x<redacted>y');
  });

  it('sends near misses of the key as unauthenticated requests, and keeps them out of every record, echoed or cut at the cap', async () => {
    const echoed: string[] = [];
    const server = await startServer((req, res) => {
      const token = String(req.headers.authorization ?? '').slice('Bearer '.length);
      echoed.push(token);
      res.setHeader('x-echo-auth', token);
      // The body is cut at the cap in the middle of the echoed token: its first half must go too.
      json(res, 401, { code: 'unauthorized', message: `bad key ${Buffer.from(token).toString('base64')} ${'.'.repeat(200)}${token}`, status: 401 });
    });
    const client = makeClient({ baseUrl: server.url, maxBodyBytes: 300 });
    for (const miss of nearMissesOf(KEY)) await client.send({ method: 'GET', path: '/pets', auth: { mode: 'near-miss', miss }, purpose: 'AUTH-002' });
    expect(nearMissesOf(KEY)).toEqual(['appended', 'last-removed', 'case-flipped']);
    expect(echoed).toEqual(nearMissesOf(KEY).map((miss) => nearMissOf(KEY, miss)));
    expect(client.stats.keyedRequests).toBe(0);
    expect(client.exchanges.map((e) => e.response?.truncated)).toEqual([true, true, true]);
    const all = everything(client);
    for (const token of echoed) {
      for (const form of [token, token.slice(0, 12), encodeURIComponent(token), Buffer.from(token).toString('base64').slice(4, -4)]) expect(all).not.toContain(form);
    }
    expect(client.exchanges.map((e) => e.request.headers.authorization)).toEqual(nearMissesOf(KEY).map((miss) => `Bearer ${describeNearMiss(miss)}`));
    expect(client.exchanges.map((e) => e.request.auth)).toEqual(['near-miss', 'near-miss', 'near-miss']);
    expect(nearMissesOf('short')).toEqual([]);
    expect(nearMissesOf('12345678')).toEqual(['appended', 'last-removed']);
  });

  it('keeps the key out of transport error messages', async () => {
    const server = await startServer(() => undefined);
    await server.close();
    const client = makeClient({ baseUrl: server.url });
    const err = await client.send({ method: 'GET', path: '/pets', query: [['k', KEY]], purpose: 't' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    const transport = err as TransportError;
    expect(transport.code).toBe('PC_TRANSPORT');
    expect(transport.subCode).toBe('refused');
    expect(transport.message).not.toContain(KEY);
    expect(transport.exchange.response).toBeUndefined();
    expect(transport.exchange.error?.code).toBe('refused');
    expect(everything(client)).not.toContain(KEY);
  });
});

describe('body cap', () => {
  it('caps a 256 MB body at 64 KiB, flags it and destroys the connection', async () => {
    const MB = 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let written = 0;
    let hungUp: Promise<void> = Promise.resolve();
    const server = await startServer((req, res) => {
      if (req.url === '/small') return json(res, 200, []);
      hungUp = new Promise((resolve) => res.on('close', resolve));
      res.writeHead(200, { 'content-type': 'text/plain' });
      // Written as fast as the client reads, until it goes away.
      const pump = (): void => {
        while (!res.destroyed && written < 256 * MB) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      pump();
    });
    const client = makeClient({ baseUrl: server.url, maxBodyBytes: 64 * 1024 });
    const ex = await client.send({ method: 'GET', path: '/big', purpose: 't' });
    expect(ex.response?.truncated).toBe(true);
    expect(ex.response?.bodyText.length).toBe(64 * 1024);
    // The client hung up after its cap: what left the server is what the sockets' buffers hold, not the body.
    await hungUp;
    expect(written).toBeLessThan(32 * MB);
    // The client is still usable afterwards.
    const next = await client.send({ method: 'GET', path: '/small', purpose: 't' });
    expect(next.response).toMatchObject({ status: 200, bodyText: '[]', truncated: false });
  });

  it('does not cut a multi-byte character in half', async () => {
    const server = await startServer((_req, res) => res.end('ééééé'));
    const client = makeClient({ baseUrl: server.url, maxBodyBytes: 5 });
    const ex = await client.send({ method: 'GET', path: '/', purpose: 't' });
    expect(ex.response?.bodyText).toBe('éé');
    expect(ex.response?.truncated).toBe(true);
  });
});

describe('what the run keeps of a body', () => {
  it('hands the whole body to the caller, and keeps its first 2,000 characters, length and SHA-256 in the record', async () => {
    // Multi-byte characters, a surrogate pair across the cut, and a short body kept whole.
    const long = `["a",${'"é😀",'.repeat(20_000)}"end"]`;
    const server = await startServer((req, res) => json(res, 200, req.url === '/long' ? JSON.parse(long) : []));
    const client = makeClient({ baseUrl: server.url, maxBodyBytes: 1024 * 1024 });
    const ex = await client.send({ method: 'GET', path: '/long', purpose: 't' });
    const short = await client.send({ method: 'GET', path: '/short', purpose: 't' });
    const whole = JSON.stringify(JSON.parse(long));
    expect(ex.response?.bodyText).toBe(whole);
    expect(jsonBody(ex)?.ok).toBe(true);
    const [kept, keptShort] = client.exchanges;
    expect(kept?.response?.bodyText).toBe(bodyHead(whole));
    expect(kept?.response?.bodyText.length).toBe(EVIDENCE_BODY_CHARS - 1);
    expect(kept?.response?.whole).toEqual({
      chars: whole.length,
      bytes: Buffer.byteLength(whole),
      sha256: createHash('sha256').update(whole).digest('hex'),
    });
    expect(kept?.response && bodyBytes(kept.response)).toBe(Buffer.byteLength(whole));
    expect(keptShort).toBe(short);
    // Evidence and the exchange log say the same from either, the true length and the digest included.
    const [fromKept, fromWhole] = [kept, ex].map((e) => e && exchangeEvidence(e));
    expect(fromKept).toEqual(fromWhole);
    expect(fromKept?.response?.body).toMatch(new RegExp(`… \\(${whole.length - bodyHead(whole).length} more characters\\)$`));
    expect(fromKept?.response?.bodySha256).toBe(kept?.response?.whole?.sha256);
    expect(kept && loggedExchange(kept)).toEqual(loggedExchange(ex));
    // The record's part of a body is never judged as if it were the body.
    expect(() => kept && jsonBody(kept)).toThrow(/cut after judging/);
  });
});

describe('timeouts and transport failures', () => {
  it('times out a server that never answers, then halts after 3 in a row', async () => {
    const server = await startServer(() => undefined);
    const client = makeClient({ baseUrl: server.url, timeoutMs: 200 });
    for (let i = 0; i < 3; i++) {
      const err = await client.send({ method: 'GET', path: '/pets', purpose: 't' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TransportError);
      expect((err as TransportError).subCode).toBe('timeout');
    }
    await expect(client.send({ method: 'GET', path: '/pets', purpose: 't' })).rejects.toMatchObject({ code: 'PC_HALTED', reason: 'transport' });
    await expect(client.send({ method: 'GET', path: '/pets', purpose: 't' })).rejects.toBeInstanceOf(RunHaltedError);
    expect(server.seen.length).toBe(3);
    expect(client.exchanges.map((e) => e.error?.code)).toEqual(['timeout', 'timeout', 'timeout']);
  });

  it('times out a body that stalls after the headers', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
    });
    const client = makeClient({ baseUrl: server.url, timeoutMs: 200 });
    await expect(client.send({ method: 'GET', path: '/pets', purpose: 't' })).rejects.toMatchObject({ code: 'PC_TRANSPORT', subCode: 'timeout' });
  });

  it('classifies a connection reset', async () => {
    const server = await startServer((_req, res) => res.socket?.destroy());
    const client = makeClient({ baseUrl: server.url });
    await expect(client.send({ method: 'GET', path: '/pets', purpose: 't' })).rejects.toMatchObject({ subCode: 'reset' });
  });

  it('a response in between resets the failure count', async () => {
    const server = await startServer((req, res) => (req.url === '/ok' ? json(res, 200, []) : res.socket?.destroy()));
    const client = makeClient({ baseUrl: server.url });
    for (const path of ['/x', '/x', '/ok', '/x', '/x', '/ok']) {
      await client.send({ method: 'GET', path, purpose: 't' }).catch(() => undefined);
    }
    expect(server.seen.length).toBe(6);
  });
});

describe('a stop from outside (stop with a grace)', () => {
  const STOPPED = 'the run was stopped (SIGINT) before this was judged';

  it('refuses every new send at once, and a request in flight answered within the grace is returned as usual', async () => {
    let answer = (): void => undefined;
    const server = await startServer((_req, res) => {
      answer = () => json(res, 200, []);
    });
    const client = makeClient({ baseUrl: server.url, timeoutMs: 60_000 });
    const inFlight = client.send({ method: 'GET', path: '/pets', purpose: 't' });
    await expect.poll(() => server.seen.length).toBe(1);
    client.stop('interrupted', STOPPED, { graceMs: 60_000 });
    await expect(client.send({ method: 'GET', path: '/pets', purpose: 't' })).rejects.toMatchObject({ code: 'PC_HALTED', reason: 'interrupted', message: STOPPED });
    answer();
    expect((await inFlight).response?.status).toBe(200);
    expect(server.seen.length).toBe(1);
  });

  it('cuts off a request still unanswered when the grace ends: the send throws the halt, not a transport failure of the target', async () => {
    const server = await startServer(() => undefined);
    const client = makeClient({ baseUrl: server.url, timeoutMs: 60_000 });
    const inFlight = client.send({ method: 'GET', path: '/pets', purpose: 't' }).catch((e: unknown) => e);
    await expect.poll(() => server.seen.length).toBe(1);
    client.stop('interrupted', STOPPED, { graceMs: 0 });
    const error = await inFlight;
    expect(error).toBeInstanceOf(RunHaltedError);
    expect(error).toMatchObject({ reason: 'interrupted', message: STOPPED });
    // The request was sent, so the record keeps it, as cut off by the run rather than failed by the target.
    expect(client.exchanges.map((e) => e.error?.code)).toEqual(['stopped']);
  });

  it('ends a wait on the rate limit at once (an hour-long Reset here), counting only the time waited', async () => {
    const server = await startServer((_req, res) => {
      json(res, 200, [], { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3_600) });
    });
    let waiting = false;
    const client = makeClient({ baseUrl: server.url, maxWaitMs: 7_200_000, onWait: () => (waiting = true) });
    await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    const held = client.send({ method: 'GET', path: '/pets', purpose: 't' }).catch((e: unknown) => e);
    await expect.poll(() => waiting).toBe(true);
    client.stop('interrupted', STOPPED, { graceMs: 2_000 });
    expect(await held).toMatchObject({ code: 'PC_HALTED', reason: 'interrupted' });
    expect(server.seen.length).toBe(1);
    expect(client.stats.waitedMs).toBeLessThan(3_600_000);
  });

  it('ends a wait of the run\'s own (idle) at once, and refuses one after the stop', async () => {
    const server = await startServer((_req, res) => json(res, 200, []));
    const client = makeClient({ baseUrl: server.url });
    const idle = client.idle(3_600_000).catch((e: unknown) => e);
    client.stop('aborted', 'aborted by its caller');
    expect(await idle).toMatchObject({ code: 'PC_HALTED', reason: 'aborted' });
    await expect(client.idle(10)).rejects.toMatchObject({ code: 'PC_HALTED' });
  });
});

describe('redirects', () => {
  it.each([301, 302, 307, 308])('returns a %i as is and never sends the key to the target', async (status) => {
    const target = await startServer((_req, res) => json(res, 200, []));
    const origin = await startServer((_req, res) => {
      res.writeHead(status, { location: `${target.url}/v1/pets` });
      res.end();
    });
    const client = makeClient({ baseUrl: `${origin.url}/v1` });
    const ex = await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    expect(ex.response?.status).toBe(status);
    expect(ex.response?.headers.location).toBe(`${target.url}/v1/pets`);
    expect(target.seen.length).toBe(0);
    expect(client.exchanges.length).toBe(1);
  });
});

describe('pacing', () => {
  it('waits until X-RateLimit-Reset when Remaining is 0', async () => {
    const clock = fakeClock();
    const server = await startServer((_req, res, n) => {
      const reset = Math.floor(clock.now() / 1000) + 30;
      json(res, 200, [], { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': n === 1 ? '0' : '59', 'x-ratelimit-reset': String(reset) });
    });
    const waits: Array<[number, string]> = [];
    const client = makeClient({ baseUrl: server.url, now: clock.now, sleep: clock.sleep, onWait: (ms, reason) => waits.push([ms, reason]) });
    await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    expect(clock.slept).toEqual([]);
    await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    expect(clock.slept).toEqual([30_250]);
    expect(waits[0]?.[1]).toMatch(/Remaining/);
    expect(client.stats.waitedMs).toBe(30_250);
    // The new window has room: no further wait.
    await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    expect(clock.slept).toEqual([30_250]);
  });

  it('does not wait for unpaced sends or when Remaining came from an unkeyed response', async () => {
    const clock = fakeClock();
    const server = await startServer((_req, res) => {
      json(res, 200, [], { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(clock.now() / 1000) + 30) });
    });
    const client = makeClient({ baseUrl: server.url, now: clock.now, sleep: clock.sleep });
    await client.send({ method: 'GET', path: '/pets', auth: 'none', purpose: 't' });
    await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    expect(clock.slept).toEqual([]);
    await client.send({ method: 'GET', path: '/pets', pace: false, purpose: 't' });
    expect(clock.slept).toEqual([]);
    expect(server.seen.length).toBe(3);
  });

  it('halts instead of waiting longer than maxWaitMs', async () => {
    const clock = fakeClock();
    const server = await startServer((_req, res) => {
      json(res, 200, [], { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(clock.now() / 1000) + 3_600) });
    });
    const client = makeClient({ baseUrl: server.url, now: clock.now, sleep: clock.sleep });
    await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    await expect(client.send({ method: 'GET', path: '/pets', purpose: 't' })).rejects.toMatchObject({ code: 'PC_HALTED', reason: 'wait-too-long' });
    expect(clock.slept).toEqual([]);
    expect(server.seen.length).toBe(1);
  });

  it('pauses when the run chooses to, announced and counted, and declines a pause too long or past the deadline without halting', async () => {
    const clock = fakeClock();
    const server = await startServer((_req, res) => json(res, 200, []));
    const waits: number[] = [];
    const client = makeClient({ baseUrl: server.url, now: clock.now, sleep: clock.sleep, maxWaitMs: 5_000, deadlineAt: clock.now() + 9_000, onWait: (ms) => waits.push(ms) });
    expect(await client.pause(800, 'cases wait for the next window')).toBe(true);
    expect(await client.pause(6_000, 'too long')).toBe(false);
    expect(await client.pause(4_000, 'fits maxWait')).toBe(true);
    expect(await client.pause(4_900, 'past the deadline')).toBe(false);
    expect(clock.slept).toEqual([800, 4_000]);
    expect(waits).toEqual([800, 4_000]);
    expect(client.stats.waitedMs).toBe(4_800);
    expect(client.stopped).toBeUndefined();
    await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    expect(server.seen.length).toBe(1);
  });
});

describe('429 handling', () => {
  it('honours Retry-After in delta-seconds, then retries once', async () => {
    const clock = fakeClock();
    const server = await startServer((_req, res, n) => (n === 1 ? json(res, 429, { code: 'rate', message: 'slow', status: 429 }, { 'retry-after': '3' }) : json(res, 200, [])));
    const client = makeClient({ baseUrl: server.url, now: clock.now, sleep: clock.sleep });
    const ex = await client.send({ method: 'GET', path: '/pets', purpose: 'LIST-001' });
    expect(ex.response?.status).toBe(200);
    expect(ex.retryOf).toBe(1);
    expect(ex.seq).toBe(2);
    expect(clock.slept).toEqual([3_250]);
    expect(client.exchanges.map((e) => [e.purpose, e.response?.status])).toEqual([['LIST-001', 429], ['LIST-001', 200]]);
    expect(client.stats).toMatchObject({ requests: 2, retries: 1, throttled: 1 });
  });

  it('honours Retry-After as an HTTP-date', async () => {
    const clock = fakeClock();
    const server = await startServer((_req, res, n) =>
      n === 1 ? json(res, 429, {}, { 'retry-after': new Date(clock.now() + 10_000).toUTCString() }) : json(res, 200, []),
    );
    const client = makeClient({ baseUrl: server.url, now: clock.now, sleep: clock.sleep });
    const ex = await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    expect(ex.response?.status).toBe(200);
    expect(clock.slept).toEqual([10_250]);
  });

  it('backs off at least 1 s and falls back to X-RateLimit-Reset without Retry-After', async () => {
    const clock = fakeClock();
    const server = await startServer((_req, res, n) => {
      if (n === 1) return json(res, 429, {}, { 'retry-after': '0' });
      if (n === 3) return json(res, 429, {}, { 'retry-after': 'soon', 'x-ratelimit-reset': String(Math.floor(clock.now() / 1000) + 20) });
      json(res, 200, []);
    });
    const client = makeClient({ baseUrl: server.url, now: clock.now, sleep: clock.sleep });
    await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    const secondStart = clock.now();
    await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    const resetMs = (Math.floor(secondStart / 1000) + 20) * 1000;
    expect(clock.slept).toEqual([1_250, resetMs - secondStart + 250]);
  });

  it('halts after a second 429, having sent exactly 2 requests', async () => {
    const clock = fakeClock();
    const server = await startServer((_req, res) => json(res, 429, {}, { 'retry-after': '1' }));
    const client = makeClient({ baseUrl: server.url, now: clock.now, sleep: clock.sleep });
    await expect(client.send({ method: 'GET', path: '/pets', purpose: 't' })).rejects.toMatchObject({ code: 'PC_HALTED', reason: 'throttled' });
    expect(server.seen.length).toBe(2);
    await expect(client.send({ method: 'GET', path: '/pets', purpose: 't' })).rejects.toBeInstanceOf(RunHaltedError);
    await expect(client.send({ method: 'GET', path: '/pets', auth: 'none', pace: false, retryOn429: false, purpose: 't' })).rejects.toBeInstanceOf(RunHaltedError);
    expect(server.seen.length).toBe(2);
  });

  it('after a retry at Retry-After is refused again, waits for a Reset still ahead and tries once more, once per run', async () => {
    const clock = fakeClock();
    const resetS = Math.floor(clock.now() / 1000) + 10;
    const refused = new Set([1, 2, 4, 5]);
    const server = await startServer((_req, res, n) =>
      refused.has(n) ? json(res, 429, {}, { 'retry-after': '0', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(resetS + (n > 3 ? 60 : 0)) }) : json(res, 200, []),
    );
    const client = makeClient({ baseUrl: server.url, now: clock.now, sleep: clock.sleep });
    const ex = await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    expect(ex.response?.status).toBe(200);
    expect(ex.retryOf).toBe(2);
    // The retry after the 1 s backoff floor (Retry-After 0); then on to the Reset, 10 s after
    // the start (later than the grown 2 s backoff), + 250 ms.
    expect(clock.slept).toEqual([1_250, 9_000]);
    expect(client.stats).toMatchObject({ requests: 3, retries: 2, throttled: 2 });
    // The same again later in the run: no second wait for the Reset, the run stops.
    await expect(client.send({ method: 'GET', path: '/pets', purpose: 't' })).rejects.toMatchObject({ code: 'PC_HALTED', reason: 'throttled' });
    expect(server.seen.length).toBe(5);
  });

  it('halts after a third 429 at the Reset, having sent exactly 3 requests', async () => {
    const clock = fakeClock();
    const resetS = Math.floor(clock.now() / 1000) + 3;
    const server = await startServer((_req, res) => json(res, 429, {}, { 'retry-after': '0', 'x-ratelimit-reset': String(resetS) }));
    const client = makeClient({ baseUrl: server.url, now: clock.now, sleep: clock.sleep });
    await expect(client.send({ method: 'GET', path: '/pets', purpose: 't' })).rejects.toMatchObject({ code: 'PC_HALTED', reason: 'throttled', message: /exchanges 1, 2 and 3/ });
    expect(server.seen.length).toBe(3);
    await expect(client.send({ method: 'GET', path: '/pets', purpose: 't' })).rejects.toBeInstanceOf(RunHaltedError);
    expect(server.seen.length).toBe(3);
  });

  it('halts instead of waiting a Retry-After longer than maxWaitMs', async () => {
    const clock = fakeClock();
    const server = await startServer((_req, res) => json(res, 429, {}, { 'retry-after': '3600' }));
    const client = makeClient({ baseUrl: server.url, now: clock.now, sleep: clock.sleep, maxWaitMs: 65_000 });
    await expect(client.send({ method: 'GET', path: '/pets', purpose: 't' })).rejects.toMatchObject({ reason: 'wait-too-long' });
    expect(server.seen.length).toBe(1);
    expect(clock.slept).toEqual([]);
  });

  it('with retryOn429 false returns the 429, and the next send first waits for Retry-After', async () => {
    const clock = fakeClock();
    const server = await startServer((_req, res, n) =>
      n === 1
        ? json(res, 429, {}, { 'retry-after': '5', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(clock.now() / 1000) + 60) })
        : json(res, 200, [], { 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': String(Math.floor(clock.now() / 1000) + 60) }),
    );
    const client = makeClient({ baseUrl: server.url, now: clock.now, sleep: clock.sleep });
    const start = clock.now();
    const ex = await client.send({ method: 'GET', path: '/pets', pace: false, retryOn429: false, purpose: 'RATE-005' });
    expect(ex.response?.status).toBe(429);
    expect(server.seen.length).toBe(1);
    expect(client.rateLimit.retryAfterUntil).toBe(start + 5_000);
    // Retry-After (5 s), not the whole window (60 s), is what the next request waits for.
    const after = await client.send({ method: 'GET', path: '/pets', retryOn429: false, purpose: 'RATE-006' });
    expect(after.response?.status).toBe(200);
    expect(clock.slept).toEqual([5_250]);
  });

  it('with retryOn429 false still returns a second 429 as evidence, then refuses to send', async () => {
    const clock = fakeClock();
    const server = await startServer((_req, res) => json(res, 429, {}, { 'retry-after': '1' }));
    const client = makeClient({ baseUrl: server.url, now: clock.now, sleep: clock.sleep });
    await client.send({ method: 'GET', path: '/pets', pace: false, retryOn429: false, purpose: 't' });
    const second = await client.send({ method: 'GET', path: '/pets', retryOn429: false, purpose: 't' });
    expect(second.response?.status).toBe(429);
    await expect(client.send({ method: 'GET', path: '/pets', purpose: 't' })).rejects.toBeInstanceOf(RunHaltedError);
    expect(server.seen.length).toBe(2);
  });

  it('with retryOn429 false, a second 429 with a Reset ahead: returned as evidence, the next send waits for the Reset', async () => {
    const clock = fakeClock();
    const resetS = Math.floor(clock.now() / 1000) + 30;
    const server = await startServer((_req, res, n) => (n <= 2 ? json(res, 429, {}, { 'retry-after': '0', 'x-ratelimit-reset': String(resetS) }) : json(res, 200, [])));
    const client = makeClient({ baseUrl: server.url, now: clock.now, sleep: clock.sleep });
    await client.send({ method: 'GET', path: '/pets', pace: false, retryOn429: false, purpose: 't' });
    const second = await client.send({ method: 'GET', path: '/pets', retryOn429: false, purpose: 't' });
    expect(second.response?.status).toBe(429);
    const before = clock.now();
    const after = await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    expect(after.response?.status).toBe(200);
    expect(clock.now()).toBe(resetS * 1000 + 250);
    expect(clock.now()).toBeGreaterThan(before);
    expect(server.seen.length).toBe(3);
  });
});

describe('the limit probe', () => {
  /** A server whose window is used up after the first request: 429 (Retry-After as given) from then on, unless it never enforces. */
  async function usedUpWindow(clock: ReturnType<typeof fakeClock>, options: { limit?: string; retryAfter?: string; enforces?: boolean } = {}) {
    return startServer((_req, res, n) => {
      const window = { 'x-ratelimit-limit': options.limit ?? '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(clock.now() / 1000) + 30) };
      if (n === 2 && options.enforces !== false) return json(res, 429, { code: 'rate', message: 'slow', status: 429 }, { ...window, 'retry-after': options.retryAfter ?? '0' });
      json(res, 200, [], window);
    });
  }
  const known = (advertised: number | undefined): boolean => advertised === 60;
  /** The run's send policy, with a limit probe that may be made when the advertised limit is 60. */
  function probing(): { probe: LimitProbe; sendPolicy: ReturnType<typeof runSendPolicy> } {
    const probe = new LimitProbe(known);
    return { probe, sendPolicy: runSendPolicy(probe) };
  }

  it('sends the paced keyed request held by a used-up window at once, and retries its 429 exactly at Retry-After', async () => {
    const clock = fakeClock();
    const server = await usedUpWindow(clock);
    const { probe, sendPolicy } = probing();
    const client = makeClient({ baseUrl: server.url, now: clock.now, sleep: clock.sleep, sendPolicy });
    await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    const served = await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    // No wait for the window: only the exact Retry-After of 0 and the margin, no 1 s backoff.
    expect(clock.slept).toEqual([250]);
    expect(probe.exchange?.seq).toBe(2);
    expect(probe.exchange?.response?.status).toBe(429);
    expect(served).toMatchObject({ seq: 3, retryOf: 2, response: { status: 200 } });
  });

  it('is sent once per run: a probe that was served leaves normal pacing to hold the next send', async () => {
    const clock = fakeClock();
    const server = await usedUpWindow(clock, { enforces: false });
    const { probe, sendPolicy } = probing();
    const client = makeClient({ baseUrl: server.url, now: clock.now, sleep: clock.sleep, sendPolicy });
    await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    expect(clock.slept).toEqual([]);
    expect(probe.exchange).toMatchObject({ seq: 2, response: { status: 200 } });
    await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    expect(clock.slept).toEqual([30_250]);
    expect(probe.exchange?.seq).toBe(2);
  });

  it('is never sent when the limit under test is unknown, nor without the option', async () => {
    for (const withProbe of [true, false]) {
      const clock = fakeClock();
      const server = await usedUpWindow(clock, { limit: '100', enforces: false });
      const { probe, sendPolicy } = probing();
      const client = makeClient({ baseUrl: server.url, now: clock.now, sleep: clock.sleep, ...(withProbe ? { sendPolicy } : {}) });
      await client.send({ method: 'GET', path: '/pets', purpose: 't' });
      await client.send({ method: 'GET', path: '/pets', purpose: 't' });
      expect(clock.slept).toEqual([30_250]);
      expect(probe.exchange).toBeUndefined();
    }
  });

  it('is made only of a paced keyed send that takes the single retry: others leave it for the next such send', async () => {
    const clock = fakeClock();
    const server = await startServer((_req, res) => {
      json(res, 200, [], { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(clock.now() / 1000) + 30) });
    });
    const { probe, sendPolicy } = probing();
    const client = makeClient({ baseUrl: server.url, now: clock.now, sleep: clock.sleep, sendPolicy });
    await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    await client.send({ method: 'GET', path: '/pets', pace: false, purpose: 't' });
    await client.send({ method: 'GET', path: '/pets', auth: 'none', purpose: 't' });
    expect(clock.slept).toEqual([]);
    // A caller that wants the raw 429 has no retry to be the recovery check: it waits for the window.
    await client.send({ method: 'GET', path: '/pets', retryOn429: false, purpose: 't' });
    expect(clock.slept).toEqual([30_250]);
    expect(probe.exchange).toBeUndefined();
    await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    expect(probe.exchange?.seq).toBe(5);
    expect(clock.slept).toEqual([30_250]);
  });

  it('is not sent once the run has seen a 429', async () => {
    const clock = fakeClock();
    const server = await startServer((_req, res, n) => {
      const window = { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(clock.now() / 1000) + 30) };
      if (n === 1) return json(res, 429, {}, { ...window, 'retry-after': '0' });
      json(res, 200, [], window);
    });
    const { probe, sendPolicy } = probing();
    const client = makeClient({ baseUrl: server.url, now: clock.now, sleep: clock.sleep, sendPolicy });
    await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    const before = clock.slept.length;
    await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    expect(probe.exchange).toBeUndefined();
    expect(clock.slept.slice(before)).toHaveLength(1);
    expect(clock.slept.at(-1)).toBeGreaterThan(25_000);
  });
});

describe('budget', () => {
  it('throws BudgetExhaustedError without sending once maxRequests are spent', async () => {
    const server = await startServer((_req, res) => json(res, 200, []));
    const client = makeClient({ baseUrl: server.url, maxRequests: 2 });
    await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    await client.send({ method: 'GET', path: '/pets', purpose: 't' });
    expect(client.remainingBudget()).toBe(0);
    const err = await client.send({ method: 'GET', path: '/pets', purpose: 't' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BudgetExhaustedError);
    expect((err as BudgetExhaustedError).code).toBe('PC_BUDGET');
    expect(server.seen.length).toBe(2);
    expect(client.exchanges.length).toBe(2);
  });

  it('counts the retry after a 429 against the budget', async () => {
    const clock = fakeClock();
    const server = await startServer((_req, res) => json(res, 429, {}, { 'retry-after': '1' }));
    const client = makeClient({ baseUrl: server.url, maxRequests: 1, now: clock.now, sleep: clock.sleep });
    await expect(client.send({ method: 'GET', path: '/pets', purpose: 't' })).rejects.toBeInstanceOf(BudgetExhaustedError);
    expect(server.seen.length).toBe(1);
  });

  it('never exceeds the budget with concurrent sends', async () => {
    const server = await startServer((_req, res) => json(res, 200, []));
    const client = makeClient({ baseUrl: server.url, maxRequests: 3 });
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => client.send({ method: 'GET', path: '/pets', purpose: 't' })));
    expect(results.filter((r) => r.status === 'fulfilled').length).toBe(3);
    expect(server.seen.length).toBe(3);
    expect(client.exchanges.map((e) => e.seq)).toEqual([1, 2, 3]);
  });
});

describe('argument checks', () => {
  it('rejects a path that cannot be sent, without spending budget', async () => {
    const server = await startServer((_req, res) => json(res, 200, []));
    const client = makeClient({ baseUrl: server.url });
    await expect(client.send({ method: 'GET', path: '/pets/a b', purpose: 't' })).rejects.toBeInstanceOf(TypeError);
    await expect(client.send({ method: 'GET', path: '/pets', headers: { Authorization: 'x' }, purpose: 't' })).rejects.toBeInstanceOf(TypeError);
    expect(client.stats.requests).toBe(0);
  });

  it('refuses a base URL with credentials or a query', () => {
    expect(() => createClient({ baseUrl: 'http://u:p@127.0.0.1/v1', apiKey: KEY, timeoutMs: 1, maxBodyBytes: 1, maxRequests: 1 })).toThrow(TypeError);
    expect(() => createClient({ baseUrl: 'http://127.0.0.1/v1?x=1', apiKey: KEY, timeoutMs: 1, maxBodyBytes: 1, maxRequests: 1 })).toThrow(TypeError);
  });
});
