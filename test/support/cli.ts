/**
 * Runs the built CLI (dist/) as a child process, the way a user or CI would, and captures
 * everything it prints. `npm test` builds first.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { RUN_TIMEOUT_MS } from './hang-guard.js';

export const CLI = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
/** Runs a program and writes its peak memory and CPU time to a file: `runCli(..., [RESOURCE_USAGE, file])`, read by readResourceUsage. */
export const RESOURCE_USAGE = fileURLToPath(new URL('../../scripts/resource-usage.mjs', import.meta.url));

/** What scripts/resource-usage.mjs wrote. */
export async function readResourceUsage(file: string): Promise<{ maxRssKiB: number; userMs: number; systemMs: number }> {
  return JSON.parse(await readFile(file, 'utf8')) as { maxRssKiB: number; userMs: number; systemMs: number };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment every CLI run of the tests starts from: no colours, and nothing of the test
 * process's own (a CI's GITHUB_STEP_SUMMARY, a user's PETSTORE_API_KEY). TMPDIR passes through so
 * the CLI's own temporary files land where the run's leftover check looks.
 */
export function cliEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env['PATH'], NO_COLOR: '1', ...(process.env['TMPDIR'] === undefined ? {} : { TMPDIR: process.env['TMPDIR'] }) };
}

/**
 * `before`: what node runs with the CLI as its program, e.g. [RESOURCE_USAGE, file] to measure its memory;
 * `cwd`: where it runs (a config file's directory).
 * A run still going after `timeoutMs` (a hang guard, support/hang-guard.ts) is killed: its code is then null.
 */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}, timeoutMs = RUN_TIMEOUT_MS, before: readonly string[] = [], cwd?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...before, CLI, ...args], {
      env: { ...cliEnv(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(cwd === undefined ? {} : { cwd }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** What a user sees on the console, stdout and stderr together, line by line (blank lines dropped). */
export function consoleLines(result: Pick<CliResult, 'stdout' | 'stderr'>): string[] {
  return `${result.stdout}\n${result.stderr}`.split('\n').filter((line) => line.trim() !== '');
}

/** The line a run writes to a CI log for a wait of 2 s or more (src/cli/progress.ts); how many waits that long a run makes is the machine's speed. */
const WAIT_LINE = /^waiting \d+ s on the target's rate limit \(.+\)$/;

/** What a run printed on stderr besides its progress lines: the errors and warnings a run without either must not print. */
export function stderrBesidesProgress(result: Pick<CliResult, 'stderr'>): string[] {
  return result.stderr.split('\n').filter((line) => line !== '' && !WAIT_LINE.test(line));
}
