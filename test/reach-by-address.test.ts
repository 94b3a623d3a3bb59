/**
 * HTTPS by IP address (issue 30): the preflight and the client check the target's certificate
 * against the host of the base URL, an IPv4 or an IPv6 address included, direct and through a
 * proxy's CONNECT tunnel, and never put an address in SNI. Every certificate is made here, with a
 * CN no test reaches (fixtures/hostile/tls.ts), so only its subjectAltName can make it valid. The
 * CLI runs as a child process against the reference server behind a TLS front on 127.0.0.1, [::1]
 * or localhost; the IPv6 cases skip, saying why, on a machine without IPv6 loopback.
 */
import { beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { createServer, connect } from 'node:net';
import { startReferenceServer } from '../fixtures/reference-server/index.js';
import { SHORT_WINDOWS } from '../fixtures/variants/server-options.js';
import * as tls from '../fixtures/hostile/tls.js';
import { checkReachable } from '../src/api/preflight.js';
import { parseProxyUrl } from '../src/http/proxy-route.js';
import { Transport, type TransportOutcome } from '../src/http/transport.js';
import { stderrBesidesProgress } from './support/cli.js';
import { expectOneLine, reachRunner, undecided, type ReachRun } from './support/reach-run.js';
import { startForwardProxy, startGateway, type ForwardProxy } from './support/reach-servers.js';
import { tempDirs } from './support/temp-dirs.js';
import { servedUntilAfterAll } from './support/served.js';

const KEY = 'pc-address-key-8b3f1d6a2c9e4e07';
const PROXY_USER = 'ci-runner';
const PROXY_PASSWORD = 'proxy-pass-3e9a7c1f5b2d';
const GATEWAY = { 'X-Gateway-Token': 'gw-token-6d2b8f4a0c1e' };

const tempDir = tempDirs();
const serve = servedUntilAfterAll();
const run = reachRunner(tempDir, [KEY, PROXY_PASSWORD, ...Object.values(GATEWAY)]);

/** Whether this machine can listen and connect on ::1 (a container may have no IPv6 at all). */
async function ipv6Loopback(): Promise<boolean> {
  const server = createServer((socket) => socket.destroy());
  try {
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '::1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') return false;
    await new Promise<void>((resolve, reject) => {
      const socket = connect({ host: '::1', port: address.port }, () => {
        socket.destroy();
        resolve();
      }).once('error', reject);
    });
    return true;
  } catch {
    return false;
  } finally {
    server.close();
  }
}

const NO_IPV6 = 'IPv6 loopback (::1) is unavailable on this machine: the IPv6 case cannot be run here';

interface Certificates {
  v4: tls.Certificate;
  v6: tls.Certificate;
  /** Valid for the name localhost only. */
  name: tls.Certificate;
  /** For addresses next to the ones reached. */
  otherV4: tls.Certificate;
  otherV6: tls.Certificate;
  client: tls.Certificate;
}

let ipv6 = false;
let certs: Certificates;
let proxy: ForwardProxy;
let proxyUrl: string;

beforeAll(async () => {
  ipv6 = await ipv6Loopback();
  const dir = await tempDir('address-certs');
  const made = (name: string, altNames: tls.AltNames): Promise<tls.Certificate> => tls.selfSignedCertificate(dir, { name, altNames });
  certs = {
    v4: await made('address-v4', { ip: ['127.0.0.1'] }),
    v6: await made('address-v6', { ip: ['::1'] }),
    name: await made('name', { dns: ['localhost'] }),
    otherV4: await made('other-v4', { ip: ['127.0.0.2'] }),
    otherV6: await made('other-v6', { ip: ['::2'] }),
    client: await made('client', { dns: ['ci-runner.invalid'] }),
  };
  proxy = await serve(startForwardProxy({ credentials: `${PROXY_USER}:${PROXY_PASSWORD}` }));
  proxyUrl = `http://${PROXY_USER}:${PROXY_PASSWORD}@${new URL(proxy.url).host}`;
});

interface Target {
  front: tls.TlsFront;
  reference: { readonly requests: number };
}

/**
 * The reference server (a fresh one, so no run's rate-limit windows reach into another's) behind
 * a TLS front on `host` with `certificate`; with `mutual`, the front requires the client
 * certificate and an access gateway between them requires GATEWAY's header.
 */
async function target(host: string, certificate: tls.Certificate, mutual = false): Promise<Target> {
  // Windows of 5 s: RATE-005's burst opens a tunnel and a handshake per connection (as in reach.test.ts).
  const reference = await serve(startReferenceServer({ ...SHORT_WINDOWS, windowSeconds: 5, keys: { [KEY]: 'free' } }));
  const upstream = mutual ? (await serve(startGateway(reference.baseUrl, GATEWAY))).baseUrl : reference.baseUrl;
  const front = await serve(tls.start({ target: upstream, certificate, host, ...(mutual ? { clientCa: certs.client.cert } : {}) }));
  return { front, reference };
}

const withClientCertificate = (): string[] => ['--client-cert', certs.client.certFile, '--client-key', certs.client.keyFile, '--header', `X-Gateway-Token: ${GATEWAY['X-Gateway-Token']}`];

function expectConforms(result: ReachRun): void {
  expect(result.code, result.stdout + result.stderr).toBe(0);
  expect(result.report?.verdict, undecided(result.report)).toBe('conforms');
  // Node warns on stderr when SNI is given an address (RFC 6066 forbids it): nothing but progress is allowed there.
  expect(stderrBesidesProgress(result)).toEqual([]);
}

/** Every session of the server completed a handshake in which the client sent `expected` as SNI (false: none). */
function expectServerNames(front: { readonly serverNames: ReadonlyArray<string | false> }, expected: string | false): void {
  expect(front.serverNames.length).toBeGreaterThan(0);
  expect(new Set(front.serverNames)).toEqual(new Set([expected]));
}

const FAMILIES = [
  { family: 'IPv4', host: '127.0.0.1', inUrl: '127.0.0.1', otherHost: '127.0.0.2', mine: (): tls.Certificate => certs.v4, other: (): tls.Certificate => certs.otherV4 },
  { family: 'IPv6', host: '::1', inUrl: '[::1]', otherHost: '::2', mine: (): tls.Certificate => certs.v6, other: (): tls.Certificate => certs.otherV6 },
] as const;

const escaped = (text: string): string => text.replace(/[.[\]]/g, '\\$&');

for (const { family, host, inUrl, mine, other } of FAMILIES) describe(`https://${inUrl}:PORT/v1 with a certificate for IP:${host} (${family})`, () => {
  const skipWithoutIpv6 = (ctx: TestContext): void => ctx.skip(family === 'IPv6' && !ipv6, NO_IPV6);
  const tunnelTo = (front: tls.TlsFront): string => new URL(front.baseUrl).host;

  it('direct, without a client certificate: the whole run conforms, and no handshake carried the address as SNI', async (ctx) => {
    skipWithoutIpv6(ctx);
    const { front } = await target(host, mine());
    const result = await run(['--base-url', front.baseUrl, '--ca', mine().certFile, '--reporter', 'json'], { PETSTORE_API_KEY: KEY });
    expectConforms(result);
    expect(result.report?.target.baseUrl).toBe(front.baseUrl);
    expectServerNames(front, false);
  });

  it('through a proxy with credentials, with --ca, --client-cert, --client-key and --header: the whole run conforms', async (ctx) => {
    skipWithoutIpv6(ctx);
    const { front } = await target(host, mine(), true);
    const tunnelsBefore = proxy.tunnels.length;
    const result = await run(['--base-url', front.baseUrl, '--ca', mine().certFile, ...withClientCertificate(), '--reporter', 'json,har'], { PETSTORE_API_KEY: KEY, HTTPS_PROXY: proxyUrl });
    expectConforms(result);
    expect(result.stdout.split('\n')[0]).toContain(`through proxy ${proxy.url} (HTTPS_PROXY, with credentials); gateway headers X-Gateway-Token; client certificate`);
    // Every tunnel of the run went to the address, an IPv6 one in brackets.
    const tunnels = proxy.tunnels.slice(tunnelsBefore);
    expect(tunnels.length).toBeGreaterThan(0);
    expect(new Set(tunnels)).toEqual(new Set([tunnelTo(front)]));
    expectServerNames(front, false);
  });

  it('direct with a client certificate, and through a proxy without one: the AUTH suite conforms', async (ctx) => {
    skipWithoutIpv6(ctx);
    const mutual = await target(host, mine(), true);
    const direct = await run(['--base-url', mutual.front.baseUrl, '--ca', mine().certFile, ...withClientCertificate(), '--only', 'AUTH', '--reporter', 'json'], { PETSTORE_API_KEY: KEY });
    expectConforms(direct);
    const plain = await target(host, mine());
    const tunnelsBefore = proxy.tunnels.length;
    const proxied = await run(['--base-url', plain.front.baseUrl, '--ca', mine().certFile, '--only', 'AUTH', '--reporter', 'json'], { PETSTORE_API_KEY: KEY, https_proxy: proxyUrl });
    expectConforms(proxied);
    expect(proxy.tunnels.slice(tunnelsBefore)).toContain(tunnelTo(plain.front));
  });

  it('a certificate for another address: exit 2 in one line, direct and through the proxy, nothing sent', async (ctx) => {
    skipWithoutIpv6(ctx);
    const { front, reference } = await target(host, other());
    const line = new RegExp(`^petstore-conformance: TLS error with ${escaped(inUrl)}:\\d+: certificate does not match the IP address \\(no insecure fallback is made\\); the server needs a certificate whose subjectAltName lists this IP address$`);
    const direct = await run(['--base-url', front.baseUrl, '--ca', other().certFile], { PETSTORE_API_KEY: KEY });
    expect(direct.code).toBe(2);
    expectOneLine(direct, line);
    expect(direct.report?.halted?.reason).toBe('unreachable');
    const proxied = await run(['--base-url', front.baseUrl, '--ca', other().certFile], { PETSTORE_API_KEY: KEY, HTTPS_PROXY: proxyUrl });
    expect(proxied.code).toBe(2);
    expectOneLine(proxied, line);
    expect(reference.requests).toBe(0);
  });
});

describe('a certificate for a DNS name', () => {
  it('reached by that name (https://localhost), direct and through the proxy: the AUTH suite conforms, SNI carries the name', async () => {
    const { front } = await target('localhost', certs.name);
    expect(front.baseUrl).toMatch(/^https:\/\/localhost:\d+\/v1$/);
    const direct = await run(['--base-url', front.baseUrl, '--ca', certs.name.certFile, '--only', 'AUTH', '--reporter', 'json'], { PETSTORE_API_KEY: KEY });
    expectConforms(direct);
    const tunnelsBefore = proxy.tunnels.length;
    const proxied = await run(['--base-url', front.baseUrl, '--ca', certs.name.certFile, '--only', 'AUTH', '--reporter', 'json'], { PETSTORE_API_KEY: KEY, HTTPS_PROXY: proxyUrl });
    expectConforms(proxied);
    expect(proxy.tunnels.slice(tunnelsBefore)).toContain(new URL(front.baseUrl).host);
    expectServerNames(front, 'localhost');
  });

  it('a certificate for another name at https://localhost: exit 2 in one line that speaks of the host name', async () => {
    const { front, reference } = await target('localhost', certs.client);
    const result = await run(['--base-url', front.baseUrl, '--ca', certs.client.certFile], { PETSTORE_API_KEY: KEY });
    expect(result.code).toBe(2);
    expectOneLine(result, /^petstore-conformance: TLS error with localhost:\d+: certificate does not match the host name \(no insecure fallback is made\); the server needs a certificate valid for this host name$/);
    expect(reference.requests).toBe(0);
  });

  it('reached by an address instead (https://127.0.0.1): exit 2 in one line, nothing sent (the preflight checked such a certificate against "localhost" and let it through)', async () => {
    const { front, reference } = await target('127.0.0.1', certs.name);
    const result = await run(['--base-url', front.baseUrl, '--ca', certs.name.certFile], { PETSTORE_API_KEY: KEY });
    expect(result.code).toBe(2);
    expectOneLine(result, /^petstore-conformance: TLS error with 127\.0\.0\.1:\d+: certificate does not match the IP address \(no insecure fallback is made\)/);
    expect(reference.requests).toBe(0);
  });
});

describe('the client on its own, past the preflight: the certificate is checked against the address, direct and through the tunnel', () => {
  for (const { family, host, otherHost, mine, other } of FAMILIES) {
    it(`${family}: the certificate for ${host} is accepted, the one for the address next to it refused`, async (ctx) => {
      ctx.skip(family === 'IPv6' && !ipv6, NO_IPV6);
      const routes = [undefined, { url: proxy.url, authorization: `Basic ${Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString('base64')}` }];
      for (const [certificate, expected] of [
        [mine(), undefined],
        [other(), new RegExp(`^tls: ERR_TLS_CERT_ALTNAME_INVALID .*IP: ${escaped(host)} is not in the cert's list: ${escaped(otherHost)}$`)],
      ] as const) {
        const { front } = await target(host, certificate);
        for (const proxyRoute of routes) {
          const transport = new Transport({ origin: new URL(front.baseUrl).origin, timeoutMs: 10_000, maxBodyBytes: 65_536, ca: certificate.cert, proxy: proxyRoute });
          const outcome = await transport.send({ method: 'GET', path: '/v1/pets', headers: {}, body: undefined });
          await transport.close();
          const through = proxyRoute === undefined ? 'direct' : 'through the proxy';
          if (expected === undefined) expect(outcome.response?.status, `${through}: ${outcome.failure?.message ?? ''}`).toBe(401);
          else expect(outcome.failure?.message, through).toMatch(expected);
        }
      }
    });
  }
});

describe('an https proxy reached by its address: its certificate is checked against the address, SNI carries none', () => {
  for (const { family, host, mine, other } of FAMILIES) {
    it(`${family}: the preflight and the client go through the proxy with the certificate for ${host}, and through none with the one for the address next to it`, async (ctx) => {
      ctx.skip(family === 'IPv6' && !ipv6, NO_IPV6);
      const reference = await serve(startReferenceServer({ ...SHORT_WINDOWS, keys: { [KEY]: 'free' } }));
      const origin = new URL(reference.baseUrl).origin;
      const through = async (certificate: tls.Certificate): Promise<{ preflight: string; outcome: TransportOutcome; secure: ForwardProxy }> => {
        const secure = await serve(startForwardProxy({ tls: certificate, host }));
        const route = parseProxyUrl(secure.url, { option: '--proxy' });
        const preflight = await checkReachable(reference.baseUrl, { timeoutMs: 10_000, ca: certificate.cert, proxy: route }).then(
          () => 'reached',
          (error: unknown) => (error instanceof Error ? error.message : String(error)),
        );
        const transport = new Transport({ origin, timeoutMs: 10_000, maxBodyBytes: 65_536, ca: certificate.cert, proxy: { url: secure.url } });
        const outcome = await transport.send({ method: 'GET', path: '/v1/pets', headers: {}, body: undefined });
        await transport.close();
        return { preflight, outcome, secure };
      };
      const accepted = await through(mine());
      expect(accepted.preflight).toBe('reached');
      expect(accepted.outcome.response?.status, accepted.outcome.failure?.message).toBe(401);
      expect(accepted.secure.tunnels).toEqual([new URL(origin).host, new URL(origin).host]);
      expectServerNames(accepted.secure, false);
      const refused = await through(other());
      expect(refused.preflight).toBe(`TLS error with the proxy ${refused.secure.url} (--proxy): certificate does not match the IP address`);
      expect(refused.outcome.failure?.message).toMatch(/Secure Proxy Connection failed/);
      expect(refused.secure.tunnels).toEqual([]);
    });
  }
});
