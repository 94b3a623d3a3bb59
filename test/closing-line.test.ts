/**
 * The closing line CI reads must never say "0 failed" when vitest failed: a file that failed to
 * load, a hook error and an unhandled error each count as a failure.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closingCounts, formatClosingLine, type ModuleLike, type TestLike } from './support/closing-line.js';
import { newEntries } from './support/temp-guard.js';

function test(fullName: string, state: string, note?: string): TestLike {
  return { fullName, result: () => (note === undefined ? { state } : { state, note }) };
}

function module(id: string, tests: TestLike[], errors: string[] = [], suiteErrors: string[] = []): ModuleLike {
  return {
    relativeModuleId: id,
    errors: () => errors.map((message) => ({ message })),
    children: { allTests: () => tests, allSuites: () => [{ errors: () => suiteErrors.map((message) => ({ message })) }] },
  };
}

describe('closing line', () => {
  it('counts tests by state', () => {
    const counts = closingCounts([module('a.test.ts', [test('one', 'passed'), test('two', 'failed'), test('three', 'skipped', 'why')])], []);
    expect(formatClosingLine(counts)).toBe('1 passed, 1 failed, 1 skipped');
    expect(counts.details).toEqual(['skipped: a.test.ts > three (why)']);
  });

  it('a file that failed to load is a failure, though it has no test', () => {
    const counts = closingCounts([module('ok.test.ts', [test('one', 'passed')]), module('broken.test.ts', [], ['Cannot find module x\n  at stack'])], []);
    expect(formatClosingLine(counts)).toBe('1 passed, 1 failed, 0 skipped');
    expect(counts.details).toEqual(['error in broken.test.ts: Cannot find module x']);
  });

  it('a failing beforeAll (suite error), an unhandled error and a run-level failure each count', () => {
    const counts = closingCounts([module('a.test.ts', [test('one', 'skipped')], [], ['beforeAll failed'])], [{ message: 'boom' }], ['left behind by a test: /tmp/x']);
    expect(formatClosingLine(counts)).toBe('0 passed, 3 failed, 1 skipped');
    expect(counts.details).toContain('error in the run (unhandled): boom');
    expect(counts.details).toContain('left behind by a test: /tmp/x');
  });
});

describe('temporary entries', () => {
  it('only new entries with our prefix, not the run root itself', () => {
    expect(newEntries(new Set(['pc-old', 'other']), ['pc-old', 'other', 'pc-new-b', 'pc-new-a', 'pc-test-run-1', 'someone-else'], 'pc-test-run-1')).toEqual(['pc-new-a', 'pc-new-b']);
  });
});

describe('a real vitest run with our reporter', () => {
  it('a file that fails to load and a leaked temporary directory: "1 passed, 2 failed, 1 skipped", exit code 1', async () => {
    const root = resolve(import.meta.dirname, '..');
    const vitest = join(root, 'node_modules/vitest/vitest.mjs');
    // Not as CI: there, new pc- entries outside the run's root would count, and others may make some meanwhile.
    const { CI: _ci, ...env } = process.env;
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((done, reject) => {
      const child = spawn(process.execPath, [vitest, 'run', '--config', 'test/fixtures-closing-line/vitest.config.ts'], {
        cwd: root,
        env: { ...env, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.on('error', reject);
      child.on('close', (c) => done({ code: c, stdout: out }));
    });
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('1 passed, 2 failed, 1 skipped');
    expect(stdout).toContain('error in test/fixtures-closing-line/broken.fixture.ts: this file fails to load');
    expect(stdout).toMatch(/left behind by a test: .*pc-leaked-/);
    expect(stdout).toContain('skipped: test/fixtures-closing-line/leaks.fixture.ts > is skipped');
    expect(code).toBe(1);
  });
});
