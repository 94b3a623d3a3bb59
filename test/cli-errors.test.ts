import { describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { closedPort } from './support/ports.js';

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
    expectOneLineUsageError(await runCli(['--plan', 'gold']), /--plan must be one of/);
    expectOneLineUsageError(await runCli(['--reporter', 'pdf']), /unknown reporter "pdf"/);
    expectOneLineUsageError(await runCli(['--reporter', 'junit,,html']), /--reporter has an empty item in "junit,,html"/);
    expectOneLineUsageError(await runCli(['--only', 'NOPE-999']), /NOPE-999/);
    expectOneLineUsageError(await runCli(['--max-requests', 'lots']), /--max-requests must be an integer/);
  });

  it('refuses --exhaust-daily-quota with a budget below the plan\'s daily quota plus the run', async () => {
    expectOneLineUsageError(await runCli(['--exhaust-daily-quota']), /--exhaust-daily-quota on the free plan needs --max-requests of at least 1400/);
    expectOneLineUsageError(await runCli(['--exhaust-daily-quota', '--plan', 'pro', '--max-requests', '5000']), /at least 10400 .* got 5000/);
  });

  it('reports an unreachable target without spending a request', async () => {
    const port = await closedPort();
    const result = await runCli(['--base-url', `http://127.0.0.1:${port}/v1`], { PETSTORE_API_KEY: 'secret-key-for-test' });
    expectOneLineUsageError(result, /target unreachable: connection refused/);
    expect(result.stderr + result.stdout).not.toContain('secret-key-for-test');
  });

  it('reports a host that does not resolve', async () => {
    const result = await runCli(['--base-url', 'http://no-such-host.invalid/v1', '--api-key', 'k']);
    expectOneLineUsageError(result, /target unreachable/);
  });
});

describe('CLI informational flags', () => {
  it('prints help with exit code 0', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/--base-url/);
    expect(result.stdout).toMatch(/Exit codes/);
  });

  it('prints the package version', async () => {
    const result = await runCli(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
