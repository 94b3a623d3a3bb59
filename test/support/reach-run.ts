/**
 * CLI runs of the reach tests (reach.test.ts, reach-by-address.test.ts): each in a fresh report
 * directory, every output (stdout, stderr, every report file) searched for the run's secrets in
 * every form they could leak in, report.json checked against its schema.
 */
import { expect } from 'vitest';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Report } from '../../src/report/types.js';
import { runCli, type CliResult } from './cli.js';
import { reportSchemaErrors } from './report-schema.js';

export interface ReachRun extends CliResult {
  report: Report | undefined;
  files: Map<string, string>;
}

/** A secret as it could leak: raw, percent-encoded, and inside base64 (a Basic credential, at each alignment). */
function leakForms(secret: string): string[] {
  const forms = [secret, encodeURIComponent(secret)];
  for (let offset = 0; offset < 3; offset++) {
    const b64 = Buffer.concat([Buffer.alloc(offset, 'x'), Buffer.from(secret)]).toString('base64');
    forms.push(b64.slice(Math.ceil((offset * 4) / 3) + 1, -3));
  }
  return forms;
}

export type ReachRunner = (args: readonly string[], env: NodeJS.ProcessEnv, options?: { cwd?: string; reportDir?: string }) => Promise<ReachRun>;

/**
 * A runner of the CLI that fails the test when any of `secrets` shows anywhere. Each run writes to
 * a fresh directory from `tempDir`, unless a config file in `cwd` names one (`reportDir`).
 */
export function reachRunner(tempDir: (name: string) => Promise<string>, secrets: readonly string[]): ReachRunner {
  const leaks = secrets.flatMap(leakForms);
  return async (args, env, options = {}) => {
    const reportDir = options.reportDir ?? (await tempDir('reach'));
    const result = await runCli(options.reportDir === undefined ? [...args, '--report-dir', reportDir] : args, env, 120_000, [], options.cwd);
    const files = new Map<string, string>();
    for (const name of await readdir(reportDir).catch(() => [])) files.set(name, await readFile(join(reportDir, name), 'utf8'));
    expect(result.stderr, 'no stack trace').not.toMatch(/\n\s+at /);
    for (const [where, text] of [['stdout', result.stdout], ['stderr', result.stderr], ...files] as const) {
      for (const form of leaks) expect(text.includes(form), `a secret (as "${form}") leaked into ${where}`).toBe(false);
    }
    const json = files.get('report.json');
    const report = json === undefined ? undefined : (JSON.parse(json) as Report);
    if (report !== undefined) expect(reportSchemaErrors(report)).toEqual([]);
    return { ...result, report, files };
  };
}

/** What a run left undecided, and why: the message of a failed conformance expectation. */
export function undecided(report: Report | undefined): string {
  return (report?.requirements ?? []).filter((r) => r.status !== 'pass' && r.status !== 'not-exercised').map((r) => `${r.id} ${r.status}: ${r.reason ?? ''}`).join('\n');
}

/** stderr is exactly one line, and it matches. */
export function expectOneLine(result: CliResult, pattern: RegExp): void {
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}
