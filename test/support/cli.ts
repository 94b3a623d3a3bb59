/**
 * Runs the built CLI (dist/) as a child process, the way a user or CI would, and captures
 * everything it prints. `npm test` builds first.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
/** Runs a program and writes its peak memory (KiB) to a file: `runCli(..., [MAX_RSS, file])`. */
export const MAX_RSS = fileURLToPath(new URL('../../scripts/max-rss.mjs', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * The environment every CLI run of the tests starts from: no colours, and nothing of the test
 * process's own (a CI's GITHUB_STEP_SUMMARY, a user's PETSTORE_API_KEY). TMPDIR passes through so
 * the CLI's own temporary files land where the run's leftover check looks.
 */
export function cliEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env['PATH'], NO_COLOR: '1', ...(process.env['TMPDIR'] === undefined ? {} : { TMPDIR: process.env['TMPDIR'] }) };
}

/** `before`: what node runs with the CLI as its program, e.g. [MAX_RSS, file] to measure its memory; `cwd`: where it runs (a config file's directory). */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 120_000, before: readonly string[] = [], cwd?: string): Promise<CliResult> {
  const started = performance.now();
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
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
  });
}

/** What a user sees on the console, stdout and stderr together, line by line (blank lines dropped). */
export function consoleLines(result: Pick<CliResult, 'stdout' | 'stderr'>): string[] {
  return `${result.stdout}\n${result.stderr}`.split('\n').filter((line) => line.trim() !== '');
}
