import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleLines, runCli, type CliResult } from './support/cli.js';
import { closedPort } from './support/ports.js';
import { reportSchemaErrors } from './support/report-schema.js';
import { startReferenceServer, type RunningReferenceServer } from '../fixtures/reference-server/index.js';
import { SHORT_WINDOWS } from '../fixtures/variants/index.js';
import type { Report } from '../src/report/types.js';

function expectOneLineUsageError(result: { code: number | null; stdout: string; stderr: string }, pattern: RegExp): void {
  expect(result.code).toBe(2);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
}

describe('CLI usage errors answer with one line and exit code 2', () => {
  it('rejects an unknown flag', async () => {
    expectOneLineUsageError(await runCli(['--frobnicate']), /unknown option '--frobnicate'/i);
  });

  it('rejects a malformed base URL', async () => {
    expectOneLineUsageError(await runCli(['--base-url', 'not a url', '--api-key', 'k']), /not a valid URL/);
  });

  it('rejects a non-http scheme', async () => {
    expectOneLineUsageError(await runCli(['--base-url', 'ftp://example.test/v1', '--api-key', 'k']), /http or https/);
  });

  it('requires a key for a remote target, from flag or environment', async () => {
    expectOneLineUsageError(await runCli(['--base-url', 'http://127.0.0.1:9/v1']), /API key is required/);
  });

  it('rejects an unknown plan, reporter, requirement and a bad integer', async () => {
    expectOneLineUsageError(await runCli(['--plan', 'gold']), /--plan must be free, pro, business or custom:PER_MINUTE\/PER_DAY \(for example custom:500\/50000\), got "gold"$/);
    expectOneLineUsageError(await runCli(['--reporter', 'pdf']), /unknown reporter "pdf"/);
    expectOneLineUsageError(await runCli(['--reporter', 'junit,,html']), /--reporter has an empty item in "junit,,html"/);
    expectOneLineUsageError(await runCli(['--only', 'NOPE-999']), /NOPE-999/);
    expectOneLineUsageError(await runCli(['--max-requests', 'lots']), /--max-requests must be an integer/);
  });

  it('rejects a malformed custom plan, showing the expected form', async () => {
    for (const plan of ['custom:abc', 'custom:', 'custom:0/10', 'custom:10/5']) {
      expectOneLineUsageError(await runCli(['--plan', plan]), /custom:PER_MINUTE\/PER_DAY \(for example custom:500\/50000\)/);
    }
  });

  it('refuses --exhaust-daily-quota with a --max-requests below the plan\'s daily quota plus the run, naming the number', async () => {
    expectOneLineUsageError(await runCli(['--exhaust-daily-quota', '--max-requests', '1000']), /--exhaust-daily-quota on the free plan needs --max-requests of at least 1400 .* got 1000/);
    expectOneLineUsageError(await runCli(['--exhaust-daily-quota', '--plan', 'pro', '--max-requests', '5000']), /at least 10400 .* got 5000/);
    expectOneLineUsageError(await runCli(['--exhaust-daily-quota', '--base-url', 'http://127.0.0.1:9/v1'], { PETSTORE_API_KEY: 'k' }), /on a remote target needs --plan/);
  });
});

/** Runs the CLI with a temporary --report-dir and reads the report.json it wrote (undefined: none). */
async function runWithReport(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<{ result: CliResult; report: Report | undefined }> {
  const dir = await mkdtemp(join(tmpdir(), 'pc-cli-errors-'));
  try {
    const result = await runCli([...args, '--report-dir', dir, '--reporter', 'json'], env);
    const text = await readFile(join(dir, 'report.json'), 'utf8').catch(() => undefined);
    const report = text === undefined ? undefined : (JSON.parse(text) as Report);
    if (report !== undefined) expect(reportSchemaErrors(report)).toEqual([]);
    return { result, report };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Nothing could be judged: what was tested, the reason and its fix, where the reports are; no table. */
function expectShortConsole(result: CliResult, reportLine = /^NOT VERIFIED: nothing was judged \(\d+ requests? sent\); every requirement, with the reason, in .*report\.json$/): void {
  expect(result.code).toBe(2);
  const lines = consoleLines(result);
  expect(lines.length, lines.join('\n')).toBeLessThanOrEqual(3);
  const out = result.stdout.trimEnd().split('\n');
  expect(out[0]).toMatch(/^petstore-conformance \d+\.\d+\.\d+: testing /);
  expect(out.at(-1)).toMatch(reportLine);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stdout).not.toMatch(/INCONCLUSIVE/);
}

function expectHaltedReport(report: Report | undefined, reason: NonNullable<Report['halted']>['reason']): void {
  expect(report?.halted?.reason).toBe(reason);
  expect(report?.halted?.unjudged).toContain('LIST-001');
  expect(report?.requirements.every((r) => r.status === 'inconclusive')).toBe(true);
  expect(report?.requirements.find((r) => r.id === 'LIST-001')?.reason).toContain(report?.halted?.message);
}

describe('the run could not be made: one line, exit 2, and still a report.json with the reason', () => {
  let server: RunningReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer({ ...SHORT_WINDOWS });
  });
  afterAll(async () => {
    await server.close();
  });

  it('a rejected key stops the run within 2 requests, before the suites spend the budget', async () => {
    const before = server.requests;
    const { result, report } = await runWithReport(['--base-url', server.baseUrl], { PETSTORE_API_KEY: 'pc-mistyped-key' });
    const sent = server.requests - before;
    expectOneLineUsageError(result, /^petstore-conformance: the API key was rejected \(401\): check PETSTORE_API_KEY$/);
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThanOrEqual(2);
    expect(report?.requests).toBe(sent);
    expectHaltedReport(report, 'bad-key');
    expect(report?.halted?.message).toBe('the API key was rejected (401): check PETSTORE_API_KEY');
    expect(result.stdout + result.stderr + JSON.stringify(report)).not.toContain('pc-mistyped-key');
    expectShortConsole(result);
  });

  it('a rejected key given with --api-key says to check --api-key, not the environment', async () => {
    const { result, report } = await runWithReport(['--base-url', server.baseUrl, '--api-key', 'pc-mistyped-key'], {});
    expectOneLineUsageError(result, /^petstore-conformance: the API key was rejected \(401\): check --api-key$/);
    expectHaltedReport(report, 'bad-key');
  });

  it('a base URL without /v1 stops with the corrected URL when <base>/v1/pets answers', async () => {
    const base = server.baseUrl.replace(/\/v1$/, '');
    const before = server.requests;
    const { result, report } = await runWithReport(['--base-url', base], { PETSTORE_API_KEY: server.keys.free });
    expect(result.code).toBe(2);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/answers 404 while .*\/v1\/pets answers 200: use --base-url http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(lines.at(-1)).toContain(`--base-url ${server.baseUrl}`);
    expect(server.requests - before).toBe(2);
    expectHaltedReport(report, 'wrong-base-url');
    expectShortConsole(result);
    expect(lines).toHaveLength(1);
  });

  it.each([
    // /v1/pets/pets is getPet's path for the id "pets": 400, not 404.
    ['a prefix the server does not serve', '/api/v1', 404],
    ["the operation's path given with the base", '/v1/pets', 400],
  ])('a base URL with %s (%s) stops in one line, within 10 requests, naming the base that answers', async (_what, path, came) => {
    const origin = new URL(server.baseUrl).origin;
    const before = server.requests;
    const { result, report } = await runWithReport(['--base-url', `${origin}${path}`], { PETSTORE_API_KEY: server.keys.free });
    expect(result.code).toBe(2);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(`petstore-conformance: ${origin}${path}/pets answers ${came} while ${origin}/v1/pets answers 200: use --base-url ${origin}/v1`);
    expect(report?.requests).toBe(server.requests - before);
    expect(report?.requests).toBeLessThanOrEqual(10);
    expectHaltedReport(report, 'wrong-base-url');
    expectShortConsole(result);
  });

  it('a server that lists pets but answers 404 to getPet for every id is judged: its mistake, not the user\'s', async () => {
    const lost = await startReferenceServer({ ...SHORT_WINDOWS, behaviour: { findPet: () => undefined } });
    try {
      const { result, report } = await runWithReport(['--base-url', lost.baseUrl, '--only', 'GET-001'], { PETSTORE_API_KEY: lost.keys.free });
      expect(report?.halted).toBeUndefined();
      expect(report?.requirements.find((r) => r.id === 'GET-001')?.status).toBe('fail');
      expect(result.code).toBe(1);
    } finally {
      await lost.close();
    }
  });

  it('an unreachable target: no request, and a report.json for the CI artifact', async () => {
    const port = await closedPort();
    const { result, report } = await runWithReport(['--base-url', `http://127.0.0.1:${port}/v1`], { PETSTORE_API_KEY: 'secret-key-for-test' });
    expectOneLineUsageError(result, /target unreachable: connection refused by 127\.0\.0\.1:\d+; check --base-url and that the server is running and reachable from here$/);
    expect(result.stderr + result.stdout + JSON.stringify(report)).not.toContain('secret-key-for-test');
    expectHaltedReport(report, 'unreachable');
    expect(report?.requests).toBe(0);
    expectShortConsole(result, /^NOT VERIFIED: nothing was judged \(0 requests sent\); every requirement, with the reason, in .*report\.json$/);
  });

  it('an unreachable target with --exhaust-daily-quota: the cost shares the first line, still three lines at most', async () => {
    const port = await closedPort();
    const { result, report } = await runWithReport(['--base-url', `http://127.0.0.1:${port}/v1`, '--exhaust-daily-quota', '--plan', 'free'], { PETSTORE_API_KEY: 'k' });
    expect(result.stdout.split('\n')[0]).toMatch(/; RATE-007 \(--exhaust-daily-quota\): using up the free plan's daily quota, up to 1,000 requests, .*; request budget 1400$/);
    expectHaltedReport(report, 'unreachable');
    expectShortConsole(result);
  });

  it('a host that does not resolve: the same', async () => {
    const { result, report } = await runWithReport(['--base-url', 'http://no-such-host.invalid/v1', '--api-key', 'k']);
    expectOneLineUsageError(result, /target unreachable/);
    expectHaltedReport(report, 'unreachable');
    expectShortConsole(result);
  });
});

describe('CLI informational flags', () => {
  it('prints help with exit code 0', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/--base-url/);
    expect(result.stdout).toMatch(/Exit codes/);
    expect(result.stdout).toMatch(/custom:PER_MINUTE\/PER_DAY/);
  });

  it('uses the README\'s words for the verdicts: a choice is "not exercised", never "inconclusive"', async () => {
    const help = (await runCli(['--help'])).stdout;
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    for (const flag of ['--read-only', '--only', '--plan', '--exhaust-daily-quota']) {
      const line = help.split('\n').findIndex((l) => l.trimStart().startsWith(flag));
      const text = help.split('\n').slice(line, line + 3).join(' ');
      expect(text, flag).toMatch(/not exercised/);
      expect(text, flag).not.toMatch(/inconclusive/);
    }
    for (const word of ['pass', 'fail', 'inconclusive', 'not exercised']) expect(readme).toContain(`**${word}**`);
    expect(help).toMatch(/Verdicts: pass, fail, inconclusive \(tried and could not tell\), not exercised \(left out by choice\)/);
  });

  it('prints the package version', async () => {
    const result = await runCli(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
