/**
 * Reaching staging as a CI runner does, with real parts on loopback: a forward proxy from npm
 * (the `proxy` package) that may demand credentials, an access gateway that refuses any request
 * without its header, a TLS front that requires a client certificate, and the reference server
 * behind them. The CLI runs as a child process (support/cli.ts), with the environment a CI job
 * would give it. Every run's every output (stdout, stderr, every report file) is searched for
 * the proxy's password, the gateway's header values, the client key's passphrase and the API key.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startReferenceServer } from '../fixtures/reference-server/index.js';
import { SHORT_WINDOWS } from '../fixtures/variants/server-options.js';
import * as tls from '../fixtures/hostile/tls.js';
import { consoleLines, runCli } from './support/cli.js';
import { closedPort } from './support/ports.js';
import { expectOneLine, reachRunner, undecided } from './support/reach-run.js';
import { startForwardProxy, startGateway, startRefusingProxy, type ForwardProxy, type Gateway } from './support/reach-servers.js';
import { tempDirs } from './support/temp-dirs.js';
import { servedUntilAfterAll } from './support/served.js';

const KEY = 'pc-reach-key-5d1e9a7c3b2f4e6a';
const PROXY_USER = 'ci-runner';
const PROXY_PASSWORD = 'proxy-pass-8c2e5f1a9d7b';
const GATEWAY = { 'CF-Access-Client-Id': 'gw-client-id-4f8a2c6e1b9d', 'CF-Access-Client-Secret': 'gw-client-secret-7e3b9d1f5a2c' };
const PASSPHRASE = 'key-passphrase-2a6c8e4f0b1d';
const SECRETS = [KEY, PROXY_PASSWORD, PASSPHRASE, ...Object.values(GATEWAY)];
const ALL_FORMATS = 'json,junit,markdown,html,earl,har';

const tempDir = tempDirs();
const serve = servedUntilAfterAll();

const run = reachRunner(tempDir, SECRETS);

let server: tls.Certificate;
let client: tls.Certificate;
let stranger: tls.Certificate;
/** The client key encrypted with PASSPHRASE. */
let encryptedKeyFile: string;
let reference: { baseUrl: string };
let gateway: Gateway;
/** https in front of the gateway, requiring `client`'s certificate. */
let mutualTls: { baseUrl: string; readonly requests: number };
let proxy: ForwardProxy;
let proxyUrl: string;

beforeAll(async () => {
  const dir = await tempDir('reach-certs');
  server = await tls.selfSignedCertificate(dir, { name: 'server', altNames: { ip: ['127.0.0.1'] } });
  client = await tls.selfSignedCertificate(dir, { name: 'client', altNames: { dns: ['ci-runner.invalid'] } });
  stranger = await tls.selfSignedCertificate(dir, { name: 'stranger', altNames: { dns: ['stranger.invalid'] } });
  encryptedKeyFile = join(dir, 'client-encrypted.key');
  await writeFile(encryptedKeyFile, createPrivateKey(client.key).export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: PASSPHRASE }));
  // Windows of 5 s at least: RATE-005's burst opens a tunnel and a mutual-TLS handshake per
  // connection, which a busy machine makes slower than the pace the run's sequential requests set.
  reference = await serve(startReferenceServer({ ...SHORT_WINDOWS, windowSeconds: 5, keys: { [KEY]: 'free' } }));
  gateway = await serve(startGateway(reference.baseUrl, GATEWAY));
  mutualTls = await serve(tls.start({ target: gateway.baseUrl, certificate: server, clientCa: client.cert }));
  proxy = await serve(startForwardProxy({ credentials: `${PROXY_USER}:${PROXY_PASSWORD}` }));
  proxyUrl = `http://${PROXY_USER}:${PROXY_PASSWORD}@${new URL(proxy.url).host}`;
});

const gatewayLines = Object.entries(GATEWAY).map(([name, value]) => `${name}: ${value}`).join('\n');

describe('through a real proxy, a gateway and mutual TLS', () => {
  it('a whole run through HTTPS_PROXY (with credentials) to an https target behind mutual TLS and a gateway conforms', async () => {
    const refusedBefore = gateway.refused;
    const result = await run(
      ['--base-url', mutualTls.baseUrl, '--ca', server.certFile, '--client-cert', client.certFile, '--client-key', encryptedKeyFile, '--reporter', ALL_FORMATS],
      { PETSTORE_API_KEY: KEY, HTTPS_PROXY: proxyUrl, PETSTORE_HEADERS: gatewayLines, PETSTORE_CLIENT_KEY_PASSPHRASE: PASSPHRASE },
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.report?.verdict, undecided(result.report)).toBe('conforms');
    // The first line says how the target is reached, never with a secret.
    expect(result.stdout.split('\n')[0]).toContain(`through proxy ${proxy.url} (HTTPS_PROXY, with credentials); gateway headers CF-Access-Client-Id, CF-Access-Client-Secret; client certificate`);
    // Every request went through the tunnel, the mutual TLS and the gateway: none was refused, the unauthenticated probes included.
    const target = new URL(mutualTls.baseUrl).host;
    expect(proxy.tunnels.filter((t) => t === target).length).toBeGreaterThan(0);
    expect(mutualTls.requests).toBeGreaterThan(0);
    expect(gateway.refused - refusedBefore).toBe(0);
    expect(result.report?.requestsByKey?.withoutKey).toBeGreaterThan(0);
    expect(result.report?.target.access).toEqual({
      proxy: { url: proxy.url, from: 'HTTPS_PROXY', credentials: true },
      headers: ['CF-Access-Client-Id', 'CF-Access-Client-Secret'],
      clientCertificate: { subject: 'CN=client', fingerprint256: expect.stringMatching(/^[0-9A-F:]{95}$/) as unknown as string },
    });
    // The HAR shows the gateway headers by name, their values replaced.
    const har = JSON.parse(result.files.get('exchanges.har') ?? '{}') as { log: { entries: Array<{ request: { headers: Array<{ name: string; value: string }> } }> } };
    const sent = har.log.entries[0]?.request.headers ?? [];
    expect(sent.find((h) => h.name.toLowerCase() === 'cf-access-client-secret')?.value).toBe('<gateway header value>');
    expect(result.files.get('summary.md')).toContain('Reached through the proxy');
  });

  it('an http target through http_proxy, with options from a config file (apiKeyEnv, headers from the environment): the AUTH suite conforms through the gateway', async () => {
    const dir = await tempDir('reach-config');
    const open = await serve(startForwardProxy());
    const refusedBefore = gateway.refused;
    await writeFile(
      join(dir, 'petstore-conformance.config.yaml'),
      [
        '# yaml-language-server: $schema=../schemas/config.schema.json',
        `baseUrl: ${gateway.baseUrl}`,
        'apiKeyEnv: STAGING_PETSTORE_KEY',
        'only: [AUTH]',
        'reporters: [json, markdown]',
        'reportDir: reports',
        'headers:',
        '  CF-Access-Client-Id: { env: GW_ID }',
        '  CF-Access-Client-Secret: { env: GW_SECRET }',
        '',
      ].join('\n'),
    );
    const result = await run([], { STAGING_PETSTORE_KEY: KEY, http_proxy: open.url, GW_ID: GATEWAY['CF-Access-Client-Id'], GW_SECRET: GATEWAY['CF-Access-Client-Secret'] }, { cwd: dir, reportDir: join(dir, 'reports') });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const report = result.report;
    if (report === undefined) throw new Error('no report.json in the config file\'s reportDir');
    expect(report.verdict, undecided(report)).toBe('conforms');
    expect(report.summary.pass).toBeGreaterThan(0);
    expect(result.stdout.split('\n')[0]).toContain('options from petstore-conformance.config.yaml');
    // The unauthenticated probes (no key, wrong keys) carried the gateway's headers too.
    expect(gateway.refused - refusedBefore).toBe(0);
    expect(open.tunnels).toContain(new URL(gateway.baseUrl).host);
    expect(report.target.access?.proxy).toEqual({ url: open.url, from: 'http_proxy', credentials: false });
    expect([...result.files.keys()].sort()).toEqual(['report.json', 'summary.md']);
  });

  it('NO_PROXY covering the target: the run goes direct, and the proxy sees nothing', async () => {
    const watching = await serve(startForwardProxy());
    const result = await run(['--base-url', reference.baseUrl, '--only', '4.1', '--reporter', 'json'], { PETSTORE_API_KEY: KEY, http_proxy: watching.url, HTTPS_PROXY: watching.url, NO_PROXY: 'example.invalid, .localhost,127.0.0.0/8' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.report?.verdict).toBe('conforms');
    expect(watching.seen).toBe(0);
    expect(result.report?.target.access).toEqual({ noProxy: 'NO_PROXY' });
    expect(result.stdout.split('\n')[0]).toContain('direct (NO_PROXY)');
  });

  it('HTTP_PROXY=http://user:pass@host:port alone sends an http target\'s requests through the proxy; no output holds the password; the curl lines name $HTTP_PROXY and replay through it', async () => {
    const tunnelsBefore = proxy.tunnels.length;
    const result = await run(['--base-url', reference.baseUrl, '--only', 'LIST-001', '--reporter', ALL_FORMATS], { PETSTORE_API_KEY: KEY, HTTP_PROXY: proxyUrl });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.report?.verdict, undecided(result.report)).toBe('conforms');
    expect(result.stderr).toBe('');
    expect(result.stdout.split('\n')[0]).toContain(`through proxy ${proxy.url} (HTTP_PROXY, with credentials)`);
    expect(result.report?.target.access?.proxy).toEqual({ url: proxy.url, from: 'HTTP_PROXY', credentials: true });
    const tunnels = proxy.tunnels.slice(tunnelsBefore);
    expect(tunnels.length).toBeGreaterThan(0);
    expect(new Set(tunnels)).toEqual(new Set([new URL(reference.baseUrl).host]));
    // curl never reads HTTP_PROXY: each line names it, so that it replays through the same proxy.
    const exchanges = (result.report?.requirements ?? []).flatMap((r) => r.evidence.flatMap((e) => (e.exchange === undefined ? [] : [e.exchange])));
    expect(exchanges.length).toBeGreaterThan(0);
    for (const { curl } of exchanges) expect(curl).toMatch(/^curl -i --proxy "\$HTTP_PROXY" --proxytunnel 'http:\/\/127\.0\.0\.1:\d+\/v1\//);
    const [first] = exchanges;
    const replayed = await promisify(execFile)('bash', ['-c', `${first?.curl ?? ''} --silent --output /dev/null --write-out '%{http_code}'`], { env: { PATH: process.env['PATH'], PETSTORE_API_KEY: KEY, HTTP_PROXY: proxyUrl } });
    expect(replayed.stdout).toBe(String(first?.response?.status));
    expect(proxy.tunnels.length).toBe(tunnelsBefore + tunnels.length + 1);
  });

  it('HTTP_PROXY while REQUEST_METHOD is set (a CGI request, httpoxy): ignored with a one-line warning, and the proxy sees nothing', async () => {
    const watching = await serve(startForwardProxy());
    const result = await run(['--base-url', reference.baseUrl, '--only', 'LIST-001', '--reporter', 'json'], { PETSTORE_API_KEY: KEY, HTTP_PROXY: watching.url, REQUEST_METHOD: 'GET' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.report?.verdict, undecided(result.report)).toBe('conforms');
    expectOneLine(result, /^warning: HTTP_PROXY is ignored while REQUEST_METHOD is set \(in a CGI request it may come from a client's Proxy: header, "httpoxy"\); set http_proxy \(lower case\) to use a proxy$/);
    expect(result.report?.target.access?.proxy).toBeUndefined();
    expect(watching.seen).toBe(0);
  });
});

describe.concurrent('a proxy that cannot be used: exit 2, one line, never a verdict on the server', () => {
  it('a proxy nobody listens on', async () => {
    const result = await run(['--base-url', reference.baseUrl, '--proxy', `http://127.0.0.1:${await closedPort()}`], { PETSTORE_API_KEY: KEY });
    expect(result.code).toBe(2);
    expectOneLine(result, /^petstore-conformance: proxy http:\/\/127\.0\.0\.1:\d+ \(--proxy\) unreachable: connection refused by 127\.0\.0\.1:\d+; check the proxy URL/);
    expect(result.report?.halted?.reason).toBe('unreachable');
    expect(result.report?.requests).toBe(0);
    expect(result.report?.summary.fail).toBe(0);
  });

  it('a proxy that demands credentials, given none: 407', async () => {
    const result = await run(['--base-url', reference.baseUrl], { PETSTORE_API_KEY: KEY, http_proxy: proxy.url });
    expect(result.code).toBe(2);
    expectOneLine(result, /^petstore-conformance: the proxy http:\/\/127\.0\.0\.1:\d+ \(http_proxy\) demands credentials \(407 Proxy Authentication Required\): give them in its URL/);
  });

  it('a proxy that refuses its credentials: 407, the password never shown', async () => {
    const result = await run(['--base-url', reference.baseUrl], { PETSTORE_API_KEY: KEY, http_proxy: `http://${PROXY_USER}:wrong-${PROXY_PASSWORD}@${new URL(proxy.url).host}` });
    expect(result.code).toBe(2);
    expectOneLine(result, /^petstore-conformance: the proxy http:\/\/127\.0\.0\.1:\d+ \(http_proxy, with credentials\) refused its credentials \(407/);
  });

  it('a proxy that refuses the tunnel: 403', async () => {
    const refusing = await serve(startRefusingProxy());
    const result = await run(['--base-url', reference.baseUrl], { PETSTORE_API_KEY: KEY, HTTPS_PROXY: refusing.url, http_proxy: refusing.url });
    expect(result.code).toBe(2);
    expectOneLine(result, /^petstore-conformance: the proxy http:\/\/127\.0\.0\.1:\d+ \(http_proxy\) refused to open a tunnel to 127\.0\.0\.1:\d+ \(403 Forbidden\); ask for the target to be let through the proxy, or list it in NO_PROXY/);
  });

  it('a proxy URL with a scheme the suite does not speak', async () => {
    const result = await run(['--base-url', reference.baseUrl, '--proxy', `socks5://${PROXY_USER}:${PROXY_PASSWORD}@127.0.0.1:1080`], { PETSTORE_API_KEY: KEY });
    expect(result.code).toBe(2);
    expectOneLine(result, /^petstore-conformance: the proxy in --proxy uses socks5:\/\/, which is not supported/);
  });
});

describe.concurrent('client certificates: every mistake is exit 2 in one line', () => {
  const base = (): string[] => ['--base-url', mutualTls.baseUrl, '--ca', server.certFile];
  const env = { PETSTORE_API_KEY: KEY, PETSTORE_HEADERS: gatewayLines };

  it('a missing file', async () => {
    const result = await run([...base(), '--client-cert', join(await tempDir('none'), 'client.crt'), '--client-key', client.keyFile], env);
    expect(result.code).toBe(2);
    expectOneLine(result, /^petstore-conformance: cannot read --client-cert file ".*client\.crt": ENOENT$/);
  });

  it('an encrypted key without its passphrase, and with a wrong one', async () => {
    const missing = await run([...base(), '--client-cert', client.certFile, '--client-key', encryptedKeyFile], env);
    expect(missing.code).toBe(2);
    expectOneLine(missing, /^petstore-conformance: --client-key is encrypted: set PETSTORE_CLIENT_KEY_PASSPHRASE to its passphrase$/);
    const wrong = await run([...base(), '--client-cert', client.certFile, '--client-key', encryptedKeyFile], { ...env, PETSTORE_CLIENT_KEY_PASSPHRASE: `not-${PASSPHRASE}` });
    expect(wrong.code).toBe(2);
    expectOneLine(wrong, /^petstore-conformance: --client-key cannot be decrypted with the passphrase in PETSTORE_CLIENT_KEY_PASSPHRASE: wrong passphrase$/);
  });

  it('a certificate and a key that do not belong together', async () => {
    const result = await run([...base(), '--client-cert', client.certFile, '--client-key', stranger.keyFile], env);
    expect(result.code).toBe(2);
    expectOneLine(result, /^petstore-conformance: --client-cert and --client-key do not belong together/);
  });

  it('a certificate the server refuses, and none at all: nothing sent to the gateway', async () => {
    const forwardedBefore = gateway.forwarded;
    const refused = await run([...base(), '--client-cert', stranger.certFile, '--client-key', stranger.keyFile], env);
    expect(refused.code).toBe(2);
    expectOneLine(refused, /^petstore-conformance: TLS error with 127\.0\.0\.1:\d+: the server refused the client certificate \(\w+\); check --client-cert/);
    expect(refused.report?.halted?.reason).toBe('unreachable');
    const none = await run(base(), env);
    expect(none.code).toBe(2);
    expectOneLine(none, /^petstore-conformance: TLS error with 127\.0\.0\.1:\d+: the server asks for a client certificate \(\w+\); pass --client-cert and --client-key$/);
    expect(gateway.forwarded).toBe(forwardedBefore);
  });
});

describe.concurrent('gateway headers and the config file: mistakes are exit 2 in one line, no value shown', () => {
  it('a header that would change what is tested is refused (each such name: reach-options.test.ts)', async () => {
    const result = await runCli(['--header', `Authorization: ${GATEWAY['CF-Access-Client-Secret']}`], {});
    expect(result.code).toBe(2);
    expectOneLine(result, /^petstore-conformance: --header: Authorization cannot be set, because it would change what is tested: the suite sends the API key in it/);
    expect(result.stderr).not.toContain(GATEWAY['CF-Access-Client-Secret']);
  });

  it('an API key in the config file, and an unknown key with the nearest valid name', async () => {
    const dir = await tempDir('reach-config');
    const file = join(dir, 'staging.json');
    await writeFile(file, JSON.stringify({ baseUrl: reference.baseUrl, apiKey: KEY }));
    const keyed = await runCli(['--config', file], {});
    expect(keyed.code).toBe(2);
    expectOneLine(keyed, /^petstore-conformance: .*staging\.json must not hold the API key \("apiKey"\): name the environment variable that holds it instead, e.g. apiKeyEnv: /);
    expect(keyed.stderr).not.toContain(KEY);
    await writeFile(file, JSON.stringify({ baseUrl: reference.baseUrl, maxRequest: 50 }));
    const misspelt = await runCli(['--config', file], {});
    expect(misspelt.code).toBe(2);
    expectOneLine(misspelt, /^petstore-conformance: .*staging\.json: unknown key "maxRequest"; did you mean "maxRequests"\?$/);
  });
});

it('the console of a refused run is at most three lines', async () => {
  const result = await run(['--base-url', reference.baseUrl], { PETSTORE_API_KEY: KEY, http_proxy: proxy.url });
  expect(consoleLines(result).length).toBeLessThanOrEqual(3);
});
