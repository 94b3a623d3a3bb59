/**
 * examples/vitest-project, an implementer's project, runs the conformance suite inside its own
 * vitest run (petstore-conformance/vitest). It is run here as a user would run it, without an
 * npm install: the package resolves through a symlink to this repository, made and removed here.
 */
import { execFile } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_TIMEOUT_MS } from './support/hang-guard.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLE = join(ROOT, 'examples', 'vitest-project');
const LINK = join(EXAMPLE, 'node_modules', 'petstore-conformance');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');

interface AssertionResult {
  title: string;
  status: 'passed' | 'failed' | 'skipped' | 'pending' | 'todo';
  failureMessages: string[];
}

interface ExampleRun {
  code: number;
  output: string;
  tests: AssertionResult[];
}

async function runExample(variant?: string): Promise<ExampleRun> {
  const dir = await mkdtemp(join(tmpdir(), 'pc-example-'));
  const out = join(dir, 'results.json');
  try {
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
      // A clean environment: the variables of this vitest run must not reach the example's.
      const env = { PATH: process.env['PATH'], HOME: process.env['HOME'], NO_COLOR: '1', ...(variant === undefined ? {} : { EXAMPLE_VARIANT: variant }) };
      execFile(process.execPath, [VITEST, 'run', '--reporter=json', `--outputFile=${out}`], { cwd: EXAMPLE, env, timeout: RUN_TIMEOUT_MS }, (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, output: `${stdout}${stderr}` });
      });
    });
    const json = JSON.parse(await readFile(out, 'utf8')) as { testResults: Array<{ assertionResults: AssertionResult[] }> };
    return { code, output, tests: json.testResults.flatMap((f) => f.assertionResults) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
function byId(run: ExampleRun, id: string): AssertionResult {
  const found = run.tests.find((t) => t.title.startsWith(`${id} `));
  if (found === undefined) throw new Error(`no test for ${id}`);
  return found;
}

describe('the vitest integration, in the example project', { timeout: RUN_TIMEOUT_MS }, () => {
  let made = false;
  beforeAll(async () => {
    const exists = await lstat(LINK).then(() => true, () => false);
    if (!exists) {
      await mkdir(join(EXAMPLE, 'node_modules'), { recursive: true });
      await symlink(ROOT, LINK, 'dir');
      made = true;
    }
  });
  afterAll(async () => {
    if (made) await rm(join(EXAMPLE, 'node_modules'), { recursive: true, force: true });
  });

  it('passes against the reference server: one test per requirement, undecided ones skipped with the reason', async () => {
    const run = await runExample();
    expect(run.code, run.output).toBe(0);
    expect(run.tests.find((t) => t.title === 'the conformance run could be made')?.status).toBe('passed');
    expect(byId(run, 'LIST-002').status).toBe('passed');
    expect(run.tests.filter((t) => /^[A-Z]+-\d{3} /.test(t.title)).length).toBeGreaterThanOrEqual(30);
    expect(run.tests.filter((t) => t.status === 'failed')).toEqual([]);
    expect(byId(run, 'RATE-007').status).toBe('skipped');
  });

  it('fails against a mutant, naming the requirement it breaks and showing the evidence', async () => {
    const run = await runExample('default-page-10');
    expect(run.code, run.output).toBe(1);
    const failed = run.tests.filter((t) => t.status === 'failed').map((t) => t.title.split(' ')[0]);
    expect(failed).toEqual(['LIST-002']);
    const message = byId(run, 'LIST-002').failureMessages.join('\n');
    expect(message).toMatch(/LIST-002 \(must, § 4\.1\)/);
    expect(message).toMatch(/reproduce: curl /);
  });
});
