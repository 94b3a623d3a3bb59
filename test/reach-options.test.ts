/**
 * The options that reach staging, as pure functions: which proxy curl's rules choose, which
 * gateway headers are refused and why, how flags, environment and config file combine, what a
 * record keeps of a gateway header or a proxy credential, and what the client certificate check
 * says. The processes and real servers are in reach.test.ts and http-proxy.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chooseProxy, noProxyMatches, parseProxyUrl, proxyUseOf } from '../src/http/proxy-route.js';
import { GATEWAY_VALUE, gatewayHeaderProblem, mergeGatewayHeaders, parseHeaderLine } from '../src/http/gateway-headers.js';
import { ExchangeRecorder } from '../src/http/recorder.js';
import type { PreparedRequest } from '../src/http/prepare.js';
import { toCurl } from '../src/http/curl.js';
import { rebuildRequest } from '../src/replay/request.js';
import { exchangeEvidence } from '../src/report/evidence.js';
import { parseCommandLine, UsageError, type RunOptions } from '../src/cli/args.js';
import { CONFIG_FILE_NAMES, editDistance, nearestName } from '../src/cli/config-file.js';
import { resolveOptions, ConformanceUsageError } from '../src/api/options.js';
import { reachNote } from '../src/cli/reach-note.js';
import { clientIdentity } from '../src/api/client-identity.js';
import { selfSignedCertificate } from '../fixtures/hostile/tls.js';
import { tempDirs } from './support/temp-dirs.js';

const tempDir = tempDirs();

const HTTPS = 'https://staging.example.com/v1';
const HTTP = 'http://staging.example.com:8080/v1';
const SECRET = 'gw-secret-3a9c7e1f5b2d';

describe('proxies as Node\'s ecosystem reads the variables', () => {
  type Expected = { variable?: string; ignored?: { variable: string; because: 'cgi' | 'scheme' }; bypassedBy?: string };
  const P = (name: string): string => `http://${name.toLowerCase()}.proxy.test:3128`;
  it.each<[string, string, Record<string, string>, Expected]>([
    // Both cases set: the lower case wins, for every pair.
    ['https target: https_proxy over HTTPS_PROXY', HTTPS, { https_proxy: P('lower'), HTTPS_PROXY: P('upper') }, { variable: 'https_proxy' }],
    ['http target: http_proxy over HTTP_PROXY', HTTP, { http_proxy: P('lower'), HTTP_PROXY: P('upper') }, { variable: 'http_proxy' }],
    ['all_proxy over ALL_PROXY', HTTPS, { all_proxy: P('lower'), ALL_PROXY: P('upper') }, { variable: 'all_proxy' }],
    // Each alone.
    ['https target: https_proxy alone', HTTPS, { https_proxy: P('lower') }, { variable: 'https_proxy' }],
    ['https target: HTTPS_PROXY alone', HTTPS, { HTTPS_PROXY: P('upper') }, { variable: 'HTTPS_PROXY' }],
    ['http target: http_proxy alone', HTTP, { http_proxy: P('lower') }, { variable: 'http_proxy' }],
    ['http target: HTTP_PROXY alone', HTTP, { HTTP_PROXY: P('upper') }, { variable: 'HTTP_PROXY' }],
    ['ALL_PROXY alone', HTTP, { ALL_PROXY: P('upper') }, { variable: 'ALL_PROXY' }],
    // An empty variable counts as unset: the other case is read.
    ['https target: an empty https_proxy', HTTPS, { https_proxy: ' ', HTTPS_PROXY: P('upper') }, { variable: 'HTTPS_PROXY' }],
    ['http target: an empty http_proxy', HTTP, { http_proxy: '', HTTP_PROXY: P('upper') }, { variable: 'HTTP_PROXY' }],
    // The scheme's variables before ALL_PROXY, whatever their case.
    ['https target: HTTPS_PROXY over all_proxy', HTTPS, { HTTPS_PROXY: P('upper'), all_proxy: P('all') }, { variable: 'HTTPS_PROXY' }],
    ['http target: HTTP_PROXY over all_proxy', HTTP, { HTTP_PROXY: P('upper'), all_proxy: P('all') }, { variable: 'HTTP_PROXY' }],
    // A target never takes the other scheme's variable; the https target's goes direct and says which it passed over.
    ['https target: http_proxy is not for it', HTTPS, { http_proxy: P('lower') }, { ignored: { variable: 'http_proxy', because: 'scheme' } }],
    ['https target: HTTP_PROXY is not for it', HTTPS, { HTTP_PROXY: P('upper') }, { ignored: { variable: 'HTTP_PROXY', because: 'scheme' } }],
    ['https target: http_proxy passed over for all_proxy, silently', HTTPS, { http_proxy: P('lower'), all_proxy: P('all') }, { variable: 'all_proxy' }],
    ['http target: HTTPS_PROXY is not for it', HTTP, { HTTPS_PROXY: P('upper'), https_proxy: P('lower') }, {}],
    // REQUEST_METHOD (a CGI request, httpoxy): HTTP_PROXY in capitals is never read, set or empty; the rest is.
    ['CGI: HTTP_PROXY ignored', HTTP, { HTTP_PROXY: P('upper'), REQUEST_METHOD: 'GET' }, { ignored: { variable: 'HTTP_PROXY', because: 'cgi' } }],
    ['CGI: HTTP_PROXY ignored while REQUEST_METHOD is set and empty', HTTP, { HTTP_PROXY: P('upper'), REQUEST_METHOD: '' }, { ignored: { variable: 'HTTP_PROXY', because: 'cgi' } }],
    ['CGI: ALL_PROXY read past the ignored HTTP_PROXY, which is still named', HTTP, { HTTP_PROXY: P('upper'), ALL_PROXY: P('all'), REQUEST_METHOD: 'POST' }, { variable: 'ALL_PROXY', ignored: { variable: 'HTTP_PROXY', because: 'cgi' } }],
    ['CGI: http_proxy still read', HTTP, { http_proxy: P('lower'), HTTP_PROXY: P('upper'), REQUEST_METHOD: 'GET' }, { variable: 'http_proxy' }],
    ['CGI: HTTPS_PROXY still read for an https target', HTTPS, { HTTPS_PROXY: P('upper'), REQUEST_METHOD: 'GET' }, { variable: 'HTTPS_PROXY' }],
    // NO_PROXY against no_proxy: the lower case wins both ways; an empty one counts as unset.
    ['no_proxy over NO_PROXY: no_proxy covers the target', HTTP, { HTTP_PROXY: P('upper'), no_proxy: '.example.com', NO_PROXY: 'other.test' }, { bypassedBy: 'no_proxy' }],
    ['no_proxy over NO_PROXY: NO_PROXY would, no_proxy does not', HTTP, { HTTP_PROXY: P('upper'), no_proxy: 'other.test', NO_PROXY: '*' }, { variable: 'HTTP_PROXY' }],
    ['NO_PROXY alone', HTTPS, { HTTPS_PROXY: P('upper'), NO_PROXY: 'staging.example.com' }, { bypassedBy: 'NO_PROXY' }],
    ['no_proxy alone', HTTPS, { https_proxy: P('lower'), no_proxy: 'example.com' }, { bypassedBy: 'no_proxy' }],
    ['an empty no_proxy: NO_PROXY is read', HTTP, { http_proxy: P('lower'), no_proxy: ' ', NO_PROXY: '*' }, { bypassedBy: 'NO_PROXY' }],
    ['NO_PROXY covering an https target: nothing said of http_proxy', HTTPS, { http_proxy: P('lower'), NO_PROXY: '*' }, {}],
  ])('%s', (_title, target, env, expected) => {
    const choice = chooseProxy(target, { env });
    const route = choice.route;
    expect({
      ...(route === undefined ? {} : { variable: 'variable' in route.source ? route.source.variable : 'an option' }),
      ...(choice.ignored === undefined ? {} : { ignored: choice.ignored }),
      ...(choice.bypassedBy === undefined ? {} : { bypassedBy: choice.bypassedBy }),
    }).toEqual(expected);
    // The URL is the variable's, with its port: the run goes where the variable says.
    if (expected.variable !== undefined) expect(route?.url).toBe(env[expected.variable]);
  });

  it('an explicit proxy wins over the environment; an empty one disables it; the fallback comes last', () => {
    const env = { HTTPS_PROXY: 'http://env:1' };
    expect(chooseProxy(HTTPS, { explicit: 'http://flag:2', env }).route?.url).toBe('http://flag:2');
    const disabled = chooseProxy(HTTPS, { explicit: '', env });
    expect(disabled.route).toBeUndefined();
    expect(proxyUseOf(disabled)).toEqual({ direct: true });
    expect(chooseProxy(HTTPS, { fallback: 'http://file:3', env }).route?.url).toBe('http://env:1');
    expect(chooseProxy(HTTPS, { fallback: 'http://file:3', env: {} }).route?.url).toBe('http://file:3');
    // HTTP_PROXY is the environment's like any other: `--proxy ''` must make a curl line go direct past it too.
    expect(proxyUseOf(chooseProxy(HTTP, { explicit: '', env: { HTTP_PROXY: 'http://env:1' } }))).toEqual({ direct: true });
    // In a CGI request HTTP_PROXY is no proxy of the environment's: the config file's proxy is used.
    expect(chooseProxy(HTTP, { fallback: 'http://file:3', env: { HTTP_PROXY: 'http://env:1', REQUEST_METHOD: 'GET' } }).route?.url).toBe('http://file:3');
  });

  it('NO_PROXY sends the target direct, an explicit proxy included (curl since 7.53)', () => {
    const choice = chooseProxy(HTTPS, { explicit: 'http://flag:2', env: { NO_PROXY: '.example.com' } });
    expect(choice).toEqual({ bypassedBy: 'NO_PROXY' });
  });

  it('a variable passed over is named only where the environment decides: never beside an explicit proxy, nor through the config file\'s for the other scheme', () => {
    expect(chooseProxy(HTTP, { explicit: 'http://flag:2', env: { HTTP_PROXY: 'http://p:1', REQUEST_METHOD: 'GET' } }).ignored).toBeUndefined();
    expect(chooseProxy(HTTP, { explicit: '', env: { HTTP_PROXY: 'http://p:1', REQUEST_METHOD: 'GET' } }).ignored).toBeUndefined();
    expect(chooseProxy(HTTPS, { explicit: 'http://flag:2', env: { http_proxy: 'http://p:1' } }).ignored).toBeUndefined();
    expect(chooseProxy(HTTPS, { fallback: 'http://file:3', env: { http_proxy: 'http://p:1' } }).ignored).toBeUndefined();
    expect(chooseProxy(HTTP, { fallback: 'http://file:3', env: { HTTP_PROXY: 'http://p:1', REQUEST_METHOD: 'GET' } }).ignored).toEqual({ variable: 'HTTP_PROXY', because: 'cgi' });
  });

  it('the first line names the variable used, without its password; a variable passed over gets a warning line that says what to set', () => {
    const note = (baseUrl: string, env: NodeJS.ProcessEnv): ReturnType<typeof reachNote> => reachNote({ baseUrl, headers: [] }, env);
    const through = note(HTTP, { HTTP_PROXY: 'http://ci:pw-0a7e3c9f1b5d@proxy.corp:3128' });
    expect(through).toEqual({ suffix: '; through proxy http://proxy.corp:3128 (HTTP_PROXY, with credentials)', warnings: [] });
    expect(note(HTTP, { HTTP_PROXY: 'http://proxy.corp:3128', REQUEST_METHOD: 'GET' })).toEqual({
      suffix: '',
      warnings: ['warning: HTTP_PROXY is ignored while REQUEST_METHOD is set (in a CGI request it may come from a client\'s Proxy: header, "httpoxy"); set http_proxy (lower case) to use a proxy'],
    });
    expect(note(HTTPS, { http_proxy: 'http://proxy.corp:3128' })).toEqual({
      suffix: '',
      warnings: ['warning: http_proxy names a proxy for http targets only: this https target is reached direct; set HTTPS_PROXY (or https_proxy) to go through a proxy'],
    });
  });

  it('the curl line of a run through HTTP_PROXY names it: curl itself never reads HTTP_PROXY', () => {
    const choice = chooseProxy(HTTP, { env: { HTTP_PROXY: 'http://user:pw-5c1e9a3f7b2d@proxy.corp:3128' } });
    expect(proxyUseOf(choice)).toEqual({ variable: 'HTTP_PROXY' });
    expect(choice.route?.url).toBe('http://proxy.corp:3128');
    expect(choice.route?.secrets).toContain('pw-5c1e9a3f7b2d');
  });

  it.each([
    ['*', 'https://a.b/v1', true],
    [' * ', 'https://a.b/v1', true],
    ['*.example.com', 'https://www.example.com/v1', false],
    ['example.com', 'https://example.com/v1', true],
    ['example.com', 'https://api.staging.example.com/v1', true],
    ['.example.com', 'https://example.com/v1', true],
    ['example.com.', 'https://www.EXAMPLE.com/v1', true],
    ['ample.com', 'https://example.com/v1', false],
    ['example.com', 'https://example.com.org/v1', false],
    ['foo, bar baz,,example.com', 'https://x.example.com/v1', true],
    ['example.com:8443', 'https://example.com:8443/v1', true],
    ['example.com:8443', 'https://example.com/v1', false],
    ['example.com:443', 'https://example.com/v1', true],
    ['10.0.0.1', 'http://10.0.0.1:8080/v1', true],
    ['10.0.0.0/8', 'http://10.20.30.40/v1', true],
    ['10.0.0.0/8', 'http://11.0.0.1/v1', false],
    ['localhost', 'http://127.0.0.1/v1', false],
    ['127.0.0.1:9000', 'http://127.0.0.1:9000/v1', true],
    ['::1', 'http://[::1]:9000/v1', true],
    ['[::1]:9000', 'http://[::1]:9000/v1', true],
    ['fd00::/8', 'http://[fd12::5]/v1', true],
    ['fd00::/8', 'http://[fe80::1]/v1', false],
  ])('NO_PROXY=%j for %s: %s', (list, target, expected) => {
    expect(noProxyMatches(target, list)).toBe(expected);
  });

  it('proxy URLs as curl reads them: no scheme is http, no port is 1080 (https: 443), credentials never in the URL kept', () => {
    expect(parseProxyUrl('proxy.corp', { option: '--proxy' }).url).toBe('http://proxy.corp:1080');
    expect(parseProxyUrl('https://proxy.corp', { option: '--proxy' }).url).toBe('https://proxy.corp:443');
    expect(parseProxyUrl('http://proxy.corp:80', { option: '--proxy' }).url).toBe('http://proxy.corp:80');
    const route = parseProxyUrl(`http://ci%40corp:${encodeURIComponent('p@ss:w0rd/x')}@proxy.corp:3128`, { variable: 'HTTPS_PROXY' });
    expect(route.url).toBe('http://proxy.corp:3128');
    expect(route.authorization).toBe(`Basic ${Buffer.from('ci@corp:p@ss:w0rd/x').toString('base64')}`);
    expect(route.secrets).toContain('p@ss:w0rd/x');
    expect(proxyUseOf({ route })).toEqual({ variable: 'HTTPS_PROXY' });
  });

  it('an unusable proxy URL is refused without quoting it: it may hold a password', () => {
    for (const raw of ['socks5://u:hunter2hunter2@p:1', 'http://u:hunter2hunter2@:1', 'http://u:hunter2hunter2@p:99999']) {
      let message = '';
      try {
        parseProxyUrl(raw, { variable: 'HTTPS_PROXY' });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, raw).toMatch(/HTTPS_PROXY/);
      expect(message).not.toContain('hunter2');
    }
  });
});

describe('gateway headers', () => {
  it.each(['Authorization', 'content-type', 'ACCEPT', 'Content-Length', 'host', 'Transfer-Encoding'])('%s would change what is tested: refused', (name) => {
    expect(gatewayHeaderProblem({ name, value: SECRET }, '--header')).toMatch(new RegExp(`^--header: ${name} cannot be set, because it would change what is tested: `));
  });

  it.each(['Connection', 'keep-alive', 'Upgrade', 'TE', 'Expect', 'Proxy-Authorization'])('%s belongs to the transport or the proxy: refused', (name) => {
    expect(gatewayHeaderProblem({ name, value: 'x' }, 'PETSTORE_HEADERS')).toMatch(new RegExp(`^PETSTORE_HEADERS: ${name} cannot be set, because`));
  });

  it('a bad name, an empty value, a line break: refused without quoting the value', () => {
    expect(gatewayHeaderProblem({ name: 'X Bad', value: SECRET }, 'h')).toMatch(/not a valid header name/);
    expect(gatewayHeaderProblem({ name: 'X-A', value: ' ' }, 'h')).toMatch(/empty value/);
    const broken = gatewayHeaderProblem({ name: 'X-A', value: `${SECRET}\r\nX-Injected: 1` }, 'h');
    expect(broken).toMatch(/characters a header cannot carry/);
    expect(broken).not.toContain(SECRET);
  });

  it('"Name: value" lines as curl reads them; flags, then environment, then file, by name; twice in one place is a mistake', () => {
    expect(parseHeaderLine('X-Tenant:  acme  ')).toEqual({ name: 'X-Tenant', value: 'acme' });
    expect(parseHeaderLine('X-Token: a:b:c')).toEqual({ name: 'X-Token', value: 'a:b:c' });
    expect(parseHeaderLine('no colon')).toBeUndefined();
    const merged = mergeGatewayHeaders([
      { where: '--header', headers: [{ name: 'x-tenant', value: 'flag' }] },
      { where: 'PETSTORE_HEADERS', headers: [{ name: 'X-Tenant', value: 'env' }, { name: 'X-Route', value: 'env' }] },
      { where: 'file', headers: [{ name: 'X-Route', value: 'file' }, { name: 'X-Other', value: 'file' }] },
    ]);
    expect(merged).toEqual([{ name: 'x-tenant', value: 'flag' }, { name: 'X-Route', value: 'env' }, { name: 'X-Other', value: 'file' }]);
    expect(() => mergeGatewayHeaders([{ where: '--header', headers: [{ name: 'X-A', value: '1' }, { name: 'x-a', value: '2' }] }])).toThrow(/--header: x-a is given twice/);
  });

  const prepared = (headers: Record<string, string>): PreparedRequest => ({
    method: 'GET',
    mode: 'none',
    target: '/pets',
    path: '/v1/pets',
    headers,
    body: undefined,
    purpose: 'AUTH-001',
    paced: true,
    retryOn429: true,
    exactRetryAfter: false,
    authTemplate: undefined,
  });

  it('a record holds the header by name only, and the value nowhere: echoed in a response, cut by the body cap, in an error', () => {
    const recorder = new ExchangeRecorder('pc-key-7d2b9e4a1c6f', 'https://staging.example.com', {
      gatewayHeaders: [{ name: 'X-Gateway-Token', value: SECRET }, { name: 'X-Route', value: 'eu' }],
      proxySecrets: ['proxy-password-1b3d5f'],
    });
    const body = JSON.stringify({ seen: SECRET, route: 'eu' });
    const ex = recorder.toExchange(
      prepared({ accept: 'application/json', 'x-gateway-token': SECRET, 'x-route': 'eu' }),
      { response: { status: 200, headers: { 'x-echo': SECRET }, bodyText: `${body}${SECRET.slice(0, 10)}`, truncated: true, headersMs: 1 } },
      { seq: 1, sentAt: 0, elapsedMs: 1, retryOf: undefined },
    );
    expect(ex.request.headers).toEqual({ accept: 'application/json', 'x-gateway-token': GATEWAY_VALUE, 'x-route': GATEWAY_VALUE });
    expect(ex.response?.headers['x-echo']).toBe(GATEWAY_VALUE);
    expect(JSON.stringify(ex)).not.toContain(SECRET.slice(0, 10));
    // A two-letter value is hidden in the request only: searched for everywhere, it would rewrite the bodies the checks judge.
    expect(ex.response?.bodyText).toContain('"route":"eu"');
    const failed = recorder.toExchange(prepared({}), { failure: { kind: 'other', message: 'proxy says proxy-password-1b3d5f is wrong' } }, { seq: 2, sentAt: 0, elapsedMs: 1, retryOf: undefined });
    expect(failed.error?.message).toBe('proxy says <proxy credentials> is wrong');
    // The curl line shows the placeholder; a replay sends the replay's own header instead.
    expect(toCurl(ex)).toContain(`-H 'X-Gateway-Token: ${GATEWAY_VALUE}'`);
    const rebuilt = rebuildRequest(exchangeEvidence(ex), { baseUrl: 'https://staging.example.com/v1', apiKey: 'k', purpose: 'replay' });
    expect(rebuilt.ok && rebuilt.request.headers).toEqual({ accept: 'application/json' });
  });
});

describe('the command line, the environment and the config file', () => {
  async function dir(files: Record<string, string> = {}): Promise<string> {
    const made = await tempDir('reach-options');
    for (const [name, text] of Object.entries(files)) await writeFile(join(made, name), text);
    return made;
  }
  const run = (argv: string[], env: NodeJS.ProcessEnv, cwd: string): RunOptions => {
    const parsed = parseCommandLine(argv, env, cwd);
    if (parsed.command !== 'run') throw new Error(parsed.command);
    return parsed;
  };
  const refusal = (argv: string[], env: NodeJS.ProcessEnv, cwd: string): string => {
    try {
      parseCommandLine(argv, env, cwd);
    } catch (error) {
      expect(error).toBeInstanceOf(ConformanceUsageError);
      return (error as Error).message;
    }
    throw new Error('accepted');
  };

  it('--header (repeatable) and PETSTORE_HEADERS (one a line, # comments) reach the run options; a line without a colon is named, not quoted', async () => {
    const cwd = await dir();
    const options = run(['--header', 'X-A: 1', '--header', 'X-B: 2'], { PETSTORE_HEADERS: '# gateway\nX-C: 3\n\nX-A: env\n' }, cwd);
    expect(options.headers).toEqual([{ name: 'X-A', value: '1' }, { name: 'X-B', value: '2' }, { name: 'X-C', value: '3' }]);
    const message = refusal([], { PETSTORE_HEADERS: `X-C: 3\n${SECRET}` }, cwd);
    expect(message).toBe('PETSTORE_HEADERS line 2 must be "Name: value"');
    expect(refusal(['--header', 'Authorization: Bearer x'], {}, cwd)).toMatch(/^--header: Authorization cannot be set, because it would change what is tested/);
  });

  it('the config file: found by its name, flags then environment then file, paths relative to it, the key only by its variable', async () => {
    const cwd = await dir({
      'petstore-conformance.config.yaml': [
        'baseUrl: https://file.example.com/v1',
        'apiKeyEnv: STAGING_KEY',
        'plan: free',
        'only: [LIST, 4.1]',
        'maxRequests: 90',
        'timeout: 2000',
        'maxWait: 30',
        'deadline: 600',
        'readOnly: true',
        'dedicatedKey: true',
        'reportDir: out',
        'reporters: [junit, html]',
        'ca: certs/ca.pem',
        'clientCert: certs/client.pem',
        'clientKey: certs/client.key',
        'proxy: http://file-proxy:3128',
        'headers:',
        '  X-Tenant: acme',
        '  X-Token: { env: GW_TOKEN }',
      ].join('\n'),
    });
    const options = run([], { STAGING_KEY: 'k-from-file-variable', GW_TOKEN: SECRET }, cwd);
    expect(options).toMatchObject({
      baseUrl: 'https://file.example.com/v1',
      apiKey: 'k-from-file-variable',
      plan: 'free',
      only: ['LIST', '4.1'],
      maxRequests: 90,
      timeoutMs: 2000,
      maxWaitMs: 30_000,
      deadlineMs: 600_000,
      readOnly: true,
      dedicatedKey: true,
      reportDir: join(cwd, 'out'),
      reporters: ['json', 'junit', 'html'],
      caFile: join(cwd, 'certs', 'ca.pem'),
      clientCertFile: join(cwd, 'certs', 'client.pem'),
      clientKeyFile: join(cwd, 'certs', 'client.key'),
      proxy: { value: 'http://file-proxy:3128', from: "petstore-conformance.config.yaml's proxy" },
      headers: [{ name: 'X-Tenant', value: 'acme' }, { name: 'X-Token', value: SECRET }],
      configFile: 'petstore-conformance.config.yaml',
    });
    // The environment wins over the file, flags over both.
    const env = { PETSTORE_BASE_URL: 'https://env.example.com/v1', PETSTORE_API_KEY: 'k-env', GW_TOKEN: SECRET, HTTPS_PROXY: 'http://env-proxy:1' };
    expect(run([], env, cwd)).toMatchObject({ baseUrl: 'https://env.example.com/v1', apiKey: 'k-env' });
    expect(run([], env, cwd).proxy).toBeUndefined(); // the environment's proxy, read by the library, wins over the file's
    const flags = run(['--base-url', 'https://flag.example.com/v1', '--api-key', 'k-flag', '--max-requests', '50', '--reporter', 'json', '--proxy', ''], env, cwd);
    expect(flags).toMatchObject({ baseUrl: 'https://flag.example.com/v1', apiKey: 'k-flag', maxRequests: 50, reporters: ['json'], proxy: { value: '', from: '--proxy' } });
    // The key's variable unset: said by its name, which is a name.
    expect(refusal([], { GW_TOKEN: SECRET }, cwd)).toBe("an API key is required for a remote target: petstore-conformance.config.yaml's apiKeyEnv names STAGING_KEY, which is not set (or set PETSTORE_API_KEY)");
    expect(refusal([], { STAGING_KEY: 'k' }, cwd)).toBe('petstore-conformance.config.yaml: header X-Token takes its value from GW_TOKEN, which is not set');
  });

  it('--config names another file; two files by the documented name are a mistake; JSON works too', async () => {
    const cwd = await dir({ [CONFIG_FILE_NAMES[0]]: 'seed: 1\n', [CONFIG_FILE_NAMES[2]]: '{"seed": 2}' });
    expect(refusal([], {}, cwd)).toMatch(/^several config files in .*: petstore-conformance\.config\.yaml, petstore-conformance\.config\.json; keep one, or choose one with --config <file>$/);
    expect(run(['--config', CONFIG_FILE_NAMES[2]], {}, cwd).seed).toBe(2);
    expect(refusal(['--config', 'missing.yaml'], {}, cwd)).toBe('--config: no file "missing.yaml"');
  });

  it.each([
    ['apiKey: sk_live_abc', /must not hold the API key \("apiKey"\): name the environment variable that holds it instead/],
    ['api-key: sk_live_abc', /must not hold the API key \("api-key"\)/],
    ['reporter: html', /unknown key "reporter"; did you mean "reporters"\?$/],
    ['basUrl: https://x/v1', /unknown key "basUrl"; did you mean "baseUrl"\?$/],
    ['maxRequests: many', /: maxRequests must be integer \(see schemas\/config\.schema\.json\)$/],
    ['headers:\n  X-A: { value: secret-value-123 }', /: headers\.X-A must be string/],
    ['timeout: 0', /timeout must be >= 1/],
    ['- a list', /must hold a mapping of options/],
    ['baseUrl: [unclosed', /is not valid YAML/],
  ])('%j is refused in one line, no value quoted', async (text, pattern) => {
    const cwd = await dir({ 'petstore-conformance.config.yaml': text });
    const message = refusal([], {}, cwd);
    expect(message).toMatch(pattern);
    expect(message).not.toContain('sk_live_abc');
    expect(message).not.toContain('secret-value-123');
  });

  it('the nearest name by edit distance', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(nearestName('proxi', ['plan', 'proxy', 'only'])).toBe('proxy');
    expect(nearestName('ClientKey', ['clientCert', 'clientKey'])).toBe('clientKey');
  });

  it('--proxy with an unusable URL is refused before anything runs, without the URL', async () => {
    expect(refusal(['--proxy', 'ftp://u:hunter2hunter2@p:21'], {}, await dir())).toBe('the proxy in --proxy uses ftp://, which is not supported: use an http:// or https:// proxy');
  });
});

describe('the library', () => {
  it('resolves the route: explicit proxy, headers checked, the embedded server never through the environment', () => {
    const env = { HTTPS_PROXY: 'http://env:1', http_proxy: 'http://env:1' };
    expect(resolveOptions({ env }).proxy).toEqual({});
    expect(resolveOptions({ baseUrl: HTTPS, apiKey: 'k', env }).proxy.route?.url).toBe('http://env:1');
    expect(resolveOptions({ proxy: 'http://explicit:2', proxySource: '--proxy', env }).proxy.route?.source).toEqual({ option: '--proxy' });
    expect(resolveOptions({ headers: { 'X-A': '1' } }).gatewayHeaders).toEqual([{ name: 'X-A', value: '1' }]);
    expect(() => resolveOptions({ headers: [['Host', 'x']] })).toThrow(/headers: Host cannot be set/);
    expect(() => resolveOptions({ clientKey: 'x' })).toThrow(/clientKey needs clientCert/);
    expect(() => resolveOptions({ clientCert: 'not a certificate' })).toThrow(ConformanceUsageError);
    expect(UsageError.prototype).toBeInstanceOf(ConformanceUsageError);
  });
});

describe('client certificates', () => {
  const names = { cert: '--client-cert', key: '--client-key', passphrase: 'PETSTORE_CLIENT_KEY_PASSPHRASE' };

  it('a certificate and its key, in two files or in one; what the report shows of it', async () => {
    const made = await selfSignedCertificate(await tempDir('reach-identity'), { name: 'client', altNames: { dns: ['ci.invalid'] } });
    const identity = clientIdentity({ cert: made.cert, key: made.key }, names);
    expect(identity?.subject).toBe('CN=client');
    expect(identity?.fingerprint256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(clientIdentity({ cert: `${made.cert}\n${made.key}` }, names)?.key).toBe(`${made.cert}\n${made.key}`);
    expect(clientIdentity({}, names)).toBeUndefined();
  });

  it('each mistake is one line naming what to fix', async () => {
    const dir = await tempDir('reach-identity');
    const one = await selfSignedCertificate(dir, { name: 'one', altNames: { dns: ['one.invalid'] } });
    const other = await selfSignedCertificate(dir, { name: 'other', altNames: { dns: ['other.invalid'] } });
    const refusal = (input: Parameters<typeof clientIdentity>[0], now?: Date): string => {
      try {
        clientIdentity(input, names, now);
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(refusal({ cert: one.cert })).toBe('--client-cert needs --client-key, the certificate\'s private key (PEM)');
    expect(refusal({ key: one.key })).toBe('--client-key needs --client-cert, the certificate it belongs to');
    expect(refusal({ cert: one.key, key: one.key })).toBe('--client-cert is not a PEM certificate');
    expect(refusal({ cert: one.cert, key: one.cert })).toBe('--client-key is not a PEM private key');
    expect(refusal({ cert: one.cert, key: other.key })).toBe('--client-cert and --client-key do not belong together: the key is not the certificate\'s');
    expect(refusal({ cert: one.cert, key: one.key }, new Date(Date.now() + 10 * 86_400_000))).toMatch(/^--client-cert expired on \d{4}-/);
  });
});
