/**
 * The implementer's loop: a run fails, `replay` re-sends the failing cases (the shrunk input of a
 * property failure exactly) and says fixed or still failing; `report` re-renders a saved report.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { referenceBehaviour, startReferenceServer, invalid, type RunningReferenceServer } from '../fixtures/reference-server/index.js';
import type { Report } from '../src/report/types.js';
import { runCli, type CliResult } from './support/cli.js';

const KEY = 'pc-replay-key-5d1c9a';
const keys = { [KEY]: 'free' as const };

let broken: RunningReferenceServer;
let fixedServer: RunningReferenceServer;
let dir: string;
let first: CliResult;
let report: Report;
const postedNames: string[] = [];

beforeAll(async () => {
  // Two faults: a default page of 10 (LIST-002), and names with a non-ASCII character refused
  // (a CREATE-001 property failure with a shrunk counterexample).
  broken = await startReferenceServer({
    windowSeconds: 1,
    keys,
    behaviour: {
      limit: (raw, ctx) => (raw === null ? { ok: true, value: 10 } : referenceBehaviour.limit(raw, ctx)),
      validateNewPet: (body, ctx) => {
        const result = referenceBehaviour.validateNewPet(body, ctx);
        if (result.ok) postedNames.push(result.value.name);
        // eslint-disable-next-line no-control-regex
        return result.ok && /[^\u0000-\u007f]/.test(result.value.name) ? invalid('ASCII names only') : result;
      },
    },
  });
  fixedServer = await startReferenceServer({ windowSeconds: 1, keys });
  dir = await mkdtemp(join(tmpdir(), 'pc-replay-'));
  first = await runCli(['--base-url', broken.baseUrl, '--plan', 'free', '--report-dir', dir, '--reporter', 'json,markdown', '--seed', '42'], {
    PETSTORE_API_KEY: KEY,
  });
  report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report;
});

afterAll(async () => {
  await broken.close();
  await fixedServer.close();
});

const failing = (r: Report): string[] => r.requirements.filter((x) => x.status === 'fail').map((x) => x.id).sort();

describe('replay', () => {
  it('the first run fails exactly the two broken requirements, with a shrunk input for the property', () => {
    expect(first.code).toBe(1);
    expect(failing(report)).toEqual(['CREATE-001', 'LIST-002']);
    const property = report.requirements.find((r) => r.id === 'CREATE-001')?.property;
    expect(property?.counterexample).toMatch(/name/);
    expect(property?.path).not.toBe('');
  });

  it('says "still failing" against the same broken server, re-sending only the shrunk input', async () => {
    postedNames.length = 0;
    const out = await mkdtemp(join(tmpdir(), 'pc-replay-out-'));
    const result = await runCli(['replay', join(dir, 'report.json'), '--base-url', broken.baseUrl, '--report-dir', out, '--reporter', 'json'], {
      PETSTORE_API_KEY: KEY,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/CREATE-001\s+still failing/);
    expect(result.stdout).toMatch(/LIST-002\s+still failing/);
    // One POST for CREATE-001 (the counterexample) plus none for the three status examples.
    expect(postedNames).toHaveLength(1);
    // The same shrunk name, but for the request's own marker (pc-<run id>-<n>-), which fills the
    // counterexample's <marker> slot.
    const withoutMarker = (name: string): string => name.replace(/^(pc-[a-z0-9]+-[0-9]+-|<marker>)/, '');
    const shrunk = /"name":"(<marker>[^"]*)"/.exec(report.requirements.find((r) => r.id === 'CREATE-001')?.property?.counterexample ?? '')?.[1];
    expect(shrunk).toBeDefined();
    expect(withoutMarker(postedNames[0] ?? '')).toBe(withoutMarker(shrunk ?? 'x'));
    const again = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
    expect(again.seed).toBe(42);
  });

  it('says "fixed" against a correct server, with exit code 0', async () => {
    const out = await mkdtemp(join(tmpdir(), 'pc-replay-fixed-'));
    const result = await runCli(['replay', join(dir, 'report.json'), '--base-url', fixedServer.baseUrl, '--report-dir', out, '--reporter', 'json'], {
      PETSTORE_API_KEY: KEY,
    });
    expect(result.stdout).toMatch(/CREATE-001\s+fixed/);
    expect(result.stdout).toMatch(/LIST-002\s+fixed/);
    expect(result.code).toBe(0);
  });
});

describe('report', () => {
  it('re-renders a saved report.json exactly as the run rendered it', async () => {
    const out = await mkdtemp(join(tmpdir(), 'pc-render-'));
    const result = await runCli(['report', join(dir, 'report.json'), '--reporter', 'markdown', '--report-dir', out]);
    expect(result.code).toBe(0);
    expect(await readFile(join(out, 'summary.md'), 'utf8')).toBe(await readFile(join(dir, 'summary.md'), 'utf8'));
  });

  it('refuses a file that is not a report, in one line with exit code 2', async () => {
    const result = await runCli(['report', join(dir, 'nope.json')]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
