/**
 * The client through a real forward proxy (the `proxy` package), in this process: the run's
 * rules hold unchanged through the tunnel (per-request timeout, body cap, the single retry at
 * Retry-After, no redirect followed), the gateway's headers ride on every request and never on a
 * record, the proxy's credentials never reach a record, and the curl lines take the same route.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ClientOptions } from '../src/http/client.js';
import { toCurl } from '../src/http/curl.js';
import { TransportError } from '../src/http/errors.js';
import { chooseProxy } from '../src/http/proxy-route.js';
import { GATEWAY_VALUE } from '../src/http/gateway-headers.js';
import { exchangeEvidence } from '../src/report/evidence.js';
import { startHttp, type HostileServer } from '../fixtures/hostile/base.js';
import { startForwardProxy, type ForwardProxy } from './support/reach-servers.js';
import { servedUntilAfterAll } from './support/served.js';

const KEY = 'pc-proxy-key-0c4a9e2f7b1d';
const PASSWORD = 'pw-6e1b3d8f2a4c';
const TOKEN = 'gateway-token-9f2d7a1c5e3b';
const MIB = 1024 * 1024;

let proxy: ForwardProxy;
let target: HostileServer & { headers: Array<Record<string, string | string[] | undefined>> };
const serve = servedUntilAfterAll();

beforeAll(async () => {
  proxy = await serve(startForwardProxy({ credentials: `user:${PASSWORD}` }));
  const headers: Array<Record<string, string | string[] | undefined>> = [];
  const server = await startHttp((req, res) => {
    headers.push(req.headers);
    const path = req.url ?? '';
    if (path.startsWith('/v1/slow')) return; // never answers
    if (path.startsWith('/v1/huge')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(Buffer.alloc(3 * MIB, 'a'));
      return;
    }
    if (path.startsWith('/v1/moved')) {
      res.writeHead(302, { location: 'http://127.0.0.1:9/v1/pets' }).end();
      return;
    }
    if (path.startsWith('/v1/busy') && headers.filter((h) => h['x-attempt'] === 'busy').length === 1) {
      res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' }).end('{"error":{"code":"rate_limited","message":"slow down"}}');
      return;
    }
    // Echoes what it got, as a careless server might: the token must not reach the record.
    res.writeHead(200, { 'content-type': 'application/json', 'x-echo': String(req.headers['x-gateway-token'] ?? '') });
    res.end(JSON.stringify({ token: req.headers['x-gateway-token'], proxyAuthorization: req.headers['proxy-authorization'] ?? null }));
  });
  target = Object.assign(await serve(server), { headers });
});

function client(extra: Partial<ClientOptions> = {}): ReturnType<typeof createClient> {
  const env = { HTTPS_PROXY: 'http://unused.invalid:1', http_proxy: `http://user:${PASSWORD}@${new URL(proxy.url).host}` };
  const c = createClient({
    baseUrl: target.baseUrl,
    apiKey: KEY,
    // Generous: only the timeout test is about time, and it sets its own.
    timeoutMs: 10_000,
    maxBodyBytes: MIB,
    maxRequests: 20,
    waitMarginMs: 10,
    proxy: chooseProxy(target.baseUrl, { env }),
    gatewayHeaders: [{ name: 'X-Gateway-Token', value: TOKEN }],
    ...extra,
  });
  void serve(c);
  return c;
}

describe('through a real proxy', () => {
  it('every request is tunnelled, carries the gateway header, and its record holds neither the header value nor the proxy password', async () => {
    const tunnelsBefore = proxy.tunnels.length;
    const c = client();
    const keyed = await c.send({ method: 'GET', path: '/pets', purpose: 'test' });
    const anonymous = await c.send({ method: 'GET', path: '/pets', auth: 'none', purpose: 'test' });
    expect(proxy.tunnels.length).toBeGreaterThan(tunnelsBefore);
    expect(proxy.tunnels.at(-1)).toBe(new URL(target.baseUrl).host);
    // The server got the token on both, the unauthenticated one too, and never the proxy's credentials.
    const received = target.headers.slice(-2);
    expect(received.map((h) => h['x-gateway-token'])).toEqual([TOKEN, TOKEN]);
    expect(received.every((h) => h['proxy-authorization'] === undefined)).toBe(true);
    for (const ex of [keyed, anonymous]) {
      expect(ex.request.headers['x-gateway-token']).toBe(GATEWAY_VALUE);
      expect(ex.response?.headers['x-echo']).toBe(GATEWAY_VALUE);
      const everything = JSON.stringify([ex, exchangeEvidence(ex)]);
      expect(everything).not.toContain(TOKEN);
      expect(everything).not.toContain(PASSWORD);
    }
    // The curl line takes the proxy from the variable the run took it from, tunnelled as the run was.
    expect(toCurl(keyed)).toMatch(/^curl -i --proxy "\$http_proxy" --proxytunnel 'http:\/\/127\.0\.0\.1:\d+\/v1\/pets' .* -H 'X-Gateway-Token: <gateway header value>'/);
  });

  it('the per-request timeout holds through the tunnel', async () => {
    const error = await client({ timeoutMs: 1_500 }).send({ method: 'GET', path: '/slow', purpose: 'test' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    // The run's own timeout ended it, not the proxy's nor undici's defaults.
    expect((error as TransportError).subCode).toBe('timeout');
    expect((error as TransportError).message).toContain('within 1500 ms');
  });

  it('the body cap holds through the tunnel', async () => {
    const ex = await client().send({ method: 'GET', path: '/huge', purpose: 'test' });
    expect(ex.response?.truncated).toBe(true);
    expect(Buffer.byteLength(ex.response?.bodyText ?? '')).toBeLessThanOrEqual(MIB);
  });

  it('no redirect is followed, and a 429 gets its single retry after Retry-After', async () => {
    const c = client();
    const moved = await c.send({ method: 'GET', path: '/moved', purpose: 'test' });
    expect(moved.response?.status).toBe(302);
    const busy = await c.send({ method: 'GET', path: '/busy', headers: { 'x-attempt': 'busy' }, purpose: 'test' });
    expect(busy.response?.status).toBe(200);
    expect(c.stats.retries).toBe(1);
    // The retry left at least Retry-After after the 429 arrived (the wait itself counts from its own start).
    const refused = c.exchanges.find((ex) => ex.seq === busy.retryOf);
    expect(refused?.response?.status).toBe(429);
    expect(busy.sentAt - ((refused?.sentAt ?? 0) + (refused?.elapsedMs ?? 0))).toBeGreaterThanOrEqual(1_000);
  });

  it('a proxy given as an option: the curl line names its URL, never its credentials', async () => {
    const ex = await client({ proxy: chooseProxy(target.baseUrl, { explicit: `http://user:${PASSWORD}@${new URL(proxy.url).host}`, env: {} }) }).send({ method: 'GET', path: '/pets', purpose: 'test' });
    const line = toCurl(ex);
    expect(line).toContain(`--proxy '${proxy.url}' --proxy-user '<proxy credentials>' --proxytunnel`);
    expect(line).not.toContain(PASSWORD);
  });

  it("--proxy '' with a proxy in the environment: direct, and the curl line says so", async () => {
    const tunnelsBefore = proxy.tunnels.length;
    const ex = await client({ proxy: chooseProxy(target.baseUrl, { explicit: '', env: { http_proxy: proxy.url } }) }).send({ method: 'GET', path: '/pets', purpose: 'test' });
    expect(ex.response?.status).toBe(200);
    expect(proxy.tunnels.length).toBe(tunnelsBefore);
    expect(toCurl(ex)).toContain("--noproxy '*'");
  });
});
