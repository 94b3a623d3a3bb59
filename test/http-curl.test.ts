import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../src/http/client.js';
import type { ConformanceClient, SendRequest } from '../src/http/client.js';
import { toCurl } from '../src/http/curl.js';
import type { Exchange } from '../src/http/exchange.js';
import { describeNearMiss, nearMissOf } from '../src/http/near-miss.js';

const run = promisify(execFile);
const KEY = "sk_Q2x+9/ab=Zk7'w$Pq3";

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  raw: Buffer;
}

const seen: Seen[] = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: raw.toString('utf8'), raw });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('[]');
  });
});
let baseUrl = '';
let client: ConformanceClient;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  client = createClient({ baseUrl, apiKey: KEY, timeoutMs: 5_000, maxBodyBytes: 65_536, maxRequests: 100 });
});

afterAll(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Sends the request, replays its curl line through bash, and returns both as the server saw them. */
async function replay(req: Omit<SendRequest, 'purpose'>): Promise<{ ex: Exchange; line: string; original: Seen; replayed: Seen }> {
  const before = seen.length;
  const ex = await client.send({ ...req, purpose: 'curl-test' });
  const line = toCurl(ex);
  await run('bash', ['-c', `${line} --silent --output /dev/null`], { env: { ...process.env, PETSTORE_API_KEY: KEY } });
  const original = seen[before];
  const replayed = seen[before + 1];
  if (original === undefined || replayed === undefined) throw new Error('the server did not see both requests');
  return { ex, line, original, replayed };
}

function comparable(s: Seen): Record<string, unknown> {
  return {
    method: s.method,
    url: s.url,
    authorization: s.headers.authorization,
    contentType: s.headers['content-type'],
    accept: s.headers.accept,
    body: s.body,
  };
}

describe('toCurl', () => {
  it('uses $PETSTORE_API_KEY for the key and replays the same request', async () => {
    const { line, original, replayed } = await replay({ method: 'GET', path: '/pets', query: [['limit', '5'], ['status', '']] });
    expect(line).toContain('-H "Authorization: Bearer $PETSTORE_API_KEY"');
    expect(line).toContain(`'${baseUrl}/pets?limit=5&status='`);
    expect(line).not.toContain(KEY);
    expect(comparable(replayed)).toEqual(comparable(original));
  });

  it('replays a body with quotes and dollars byte for byte', async () => {
    const body = `{"name":"O'Brien $HOME \`x\` \\"q\\" !!","categoryId":1}`;
    const { line, original, replayed } = await replay({ method: 'POST', path: '/pets', body, contentType: 'application/json' });
    expect(line).toContain('--data-raw');
    expect(line).not.toContain('-X POST');
    expect(replayed.body).toBe(body);
    expect(comparable(replayed)).toEqual(comparable(original));
  });

  it('replays a body that is not UTF-8 byte for byte (printf from octal escapes, in bash and POSIX sh), recording \\xHH and the exact bytes', async () => {
    const raw = Buffer.concat([Buffer.from('{"name":"a\\\\b 100% \'q\' é ', 'utf8'), Buffer.from([0xff, 0xc0, 0xaf, 0xed, 0xa0, 0x80]), Buffer.from(' end","categoryId":1}', 'utf8')]);
    const { ex, line, original, replayed } = await replay({ method: 'POST', path: '/pets', body: raw, contentType: 'application/json' });
    expect(original.raw.equals(raw)).toBe(true);
    expect(replayed.raw.equals(raw)).toBe(true);
    expect(line).toMatch(/^printf '.*' \| curl -i /);
    expect(line).toContain('--data-binary @-');
    expect(ex.request.body).toBe('{"name":"a\\\\b 100% \'q\' é \\xFF\\xC0\\xAF\\xED\\xA0\\x80 end","categoryId":1}');
    expect(ex.request.bodyBase64).toBe(raw.toString('base64'));
    const before = seen.length;
    await run('sh', ['-c', `${line} --silent --output /dev/null`], { env: { ...process.env, PETSTORE_API_KEY: KEY } });
    expect(seen[before]?.raw.equals(raw)).toBe(true);
  });

  it('records a body given as bytes that are UTF-8 as its text, with no base64', async () => {
    const { ex, line, replayed } = await replay({ method: 'POST', path: '/pets', body: Buffer.from('{"name":"é 🐶"}', 'utf8'), contentType: 'application/json' });
    expect(ex.request.body).toBe('{"name":"é 🐶"}');
    expect(ex.request.bodyBase64).toBeUndefined();
    expect(line).toContain('--data-raw');
    expect(replayed.body).toBe('{"name":"é 🐶"}');
  });

  it('keeps an explicit method and drops curl’s own Content-Type when none was sent', async () => {
    const { line, original, replayed } = await replay({ method: 'PUT', path: '/pets/1', body: 'x=1' });
    expect(line).toContain('-X PUT');
    expect(replayed.headers['content-type']).toBeUndefined();
    expect(comparable(replayed)).toEqual(comparable(original));
  });

  it('sends no Authorization for auth none', async () => {
    const { line, replayed } = await replay({ method: 'GET', path: '/pets', auth: 'none' });
    expect(line).not.toMatch(/authorization/i);
    expect(replayed.headers.authorization).toBeUndefined();
  });

  it('keeps the random wrong key verbatim', async () => {
    const { original, replayed } = await replay({ method: 'GET', path: '/pets', auth: 'wrong-key' });
    expect(replayed.headers.authorization).toBe(original.headers.authorization);
  });

  it.each(['appended', 'last-removed', 'case-flipped'] as const)('rebuilds the %s near miss from $PETSTORE_API_KEY in bash and POSIX sh, and records only its description', async (miss) => {
    const { ex, line, original, replayed } = await replay({ method: 'GET', path: '/pets', auth: { mode: 'near-miss', miss } });
    const token = nearMissOf(KEY, miss);
    expect(original.headers.authorization).toBe(`Bearer ${token}`);
    expect(comparable(replayed)).toEqual(comparable(original));
    expect(ex.request.headers['authorization']).toBe(`Bearer ${describeNearMiss(miss)}`);
    for (const secret of [KEY, token, nearMissOf(KEY, 'last-removed')]) expect(JSON.stringify(ex) + line).not.toContain(secret);
    const before = seen.length;
    await run('sh', ['-c', `${line} --silent --output /dev/null`], { env: { ...process.env, PETSTORE_API_KEY: KEY } });
    expect(seen[before]?.headers.authorization).toBe(`Bearer ${token}`);
  });

  it.each([
    ['the key without a scheme', KEY],
    ['an empty bearer token', 'Bearer '],
    ['the Basic scheme over user:key', `Basic ${Buffer.from(`user:${KEY}`).toString('base64')}`],
    ['the Basic scheme over key:', `Basic ${Buffer.from(`${KEY}:`).toString('base64')}`],
    ['a url-safe base64 credential', `Token ${Buffer.from(`x:${KEY}`).toString('base64url')}`],
    ['the key twice', `Bearer ${KEY} ${KEY}`],
  ])('reproduces a malformed header: %s', async (_label, header) => {
    const { line, original, replayed } = await replay({ method: 'GET', path: '/pets', auth: { mode: 'malformed', header } });
    expect(line).not.toContain(KEY);
    // Node's parser drops trailing whitespace, so the original as received is the reference.
    expect(replayed.headers.authorization).toBe(header.trimEnd());
    expect(comparable(replayed)).toEqual(comparable(original));
  });

  it('puts the variable back where the key stood in the URL and body', async () => {
    const { line, original, replayed } = await replay({
      method: 'POST',
      path: '/pets',
      query: [['k', 'v']],
      body: `{"name":"${KEY.replace(/'/g, "'")}"}`,
      contentType: 'application/json',
      auth: { mode: 'malformed', header: undefined },
    });
    expect(line).not.toContain(KEY);
    expect(comparable(replayed)).toEqual(comparable(original));
  });

  it('uses --head for HEAD', async () => {
    const { line, original, replayed } = await replay({ method: 'HEAD', path: '/pets' });
    expect(line.startsWith('curl --head ')).toBe(true);
    expect(replayed.method).toBe('HEAD');
    expect(comparable(replayed)).toEqual(comparable(original));
  });

  it('disables globbing and dot-segment squashing when the URL needs it', async () => {
    const { line, original, replayed } = await replay({ method: 'GET', path: '/pets/../pets/[1]' });
    expect(line).toContain('--globoff');
    expect(line).toContain('--path-as-is');
    expect(replayed.url).toBe(original.url);
  });
});
