/**
 * The model-based sequences (suites/model-sequences.ts) in whole runs of the CLI: they catch the
 * mutants of fixtures/variants/sequences.ts, which no fixed case sees (on a Free key, whose window
 * has no room for sequences, each passes), the failing sequence reads as steps in every format,
 * and `replay` sends it again: "still failing" on the mutant, "fixed" on a correct server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startReferenceServer, type RunningReferenceServer } from '../fixtures/reference-server/index.js';
import { SEQUENCE_VARIANTS } from '../fixtures/variants/sequences.js';
import { SHORT_WINDOWS } from '../fixtures/variants/server-options.js';
import type { Variant } from '../fixtures/variants/index.js';
import type { Report } from '../src/report/types.js';
import { runCli, type CliResult } from './support/cli.js';
import { tempDirs } from './support/temp-dirs.js';

const tempDir = tempDirs();
const RUN_TIMEOUT_MS = 150_000;

function variant(name: string): Variant {
  const found = SEQUENCE_VARIANTS.find((v) => v.name === name);
  if (found === undefined) throw new Error(`no variant ${name}`);
  return found;
}

const failing = (r: Report): string[] => r.requirements.filter((x) => x.status === 'fail').map((x) => x.id).sort();

async function run(server: RunningReferenceServer, plan: 'free' | 'pro', dir: string, extra: readonly string[] = []): Promise<{ cli: CliResult; report: Report }> {
  const cli = await runCli(['--base-url', server.baseUrl, '--plan', plan, '--seed', '24', '--report-dir', dir, '--reporter', 'json,html,markdown,junit', ...extra], { PETSTORE_API_KEY: server.keys[plan] }, RUN_TIMEOUT_MS);
  return { cli, report: JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report };
}

describe('a status index that creations do not update, on a Pro key', () => {
  const stale = variant('stale-status-index');
  let broken: RunningReferenceServer;
  let fixed: RunningReferenceServer;
  let dir: string;
  let first: { cli: CliResult; report: Report };

  beforeAll(async () => {
    broken = await startReferenceServer(stale.server);
    fixed = await startReferenceServer({ windowSeconds: 3 });
    dir = await tempDir('sequences');
    first = await run(broken, 'pro', dir, stale.args);
  }, RUN_TIMEOUT_MS);

  afterAll(async () => {
    await broken.close();
    await fixed.close();
  });

  it('fails LIST-005 alone, with the shrunk sequence as numbered steps and the commands replay sends', () => {
    expect(first.cli.code).toBe(1);
    expect(failing(first.report)).toEqual(['LIST-005']);
    const sequence = first.report.requirements.find((r) => r.id === 'LIST-005')?.sequence;
    // The fixed sequence, shrunk: a creation, the read that shows the pet, the filtered listing that misses it. (The
    // listing before the creation goes too when the server's index was already built, by the unshrunk sequence.)
    const operations = sequence?.steps.map((s) => s.operation) ?? [];
    expect(operations.slice(-3)).toEqual(['createPet', 'getPet', 'listPets']);
    expect(operations.length).toBeLessThanOrEqual(4);
    expect(sequence?.label).toBe('fixed sequence read-after-write (shrunk)');
    expect(sequence?.steps.map((s) => s.violations?.length ?? 0)).toEqual([...Array(operations.length - 1).fill(0), 1]);
    expect(sequence?.steps.at(-1)?.violations?.[0]).toMatch(/^Received \d+ pets for status=\w+ \(fewer than the limit of 100\) without pet \d+ \(status "\w+"\), created by this sequence and already shown by a read/);
    for (const step of sequence?.steps ?? []) {
      expect(step.curl).toHaveLength(1);
      expect(step.curl[0]).toContain('$PETSTORE_API_KEY');
      expect(step.curl[0]).not.toContain(broken.keys.pro);
    }
    expect(sequence?.commands.map((c) => c.op)).toEqual(operations);
    // The other requirements the sequences judge say what ran.
    const observed = first.report.observations.filter((o) => o.message.startsWith('model-based sequences:')).map((o) => o.requirement).sort();
    expect(observed).toEqual(['CREATE-002', 'LIST-003', 'LIST-005', 'PET-002']);
  });

  it('shows the steps in the console, summary.md, junit.xml and report.html', async () => {
    expect(first.cli.stdout).toMatch(/^ {4}Failing sequence: fixed sequence read-after-write \(shrunk\), [34] steps/m);
    expect(first.cli.stdout).toMatch(/^ {4}[34]\. listPets: GET \/pets\?status=\w+&limit=100$/m);
    expect(first.cli.stdout).toMatch(/^ {7}VIOLATION: Received/m);
    expect(await readFile(join(dir, 'summary.md'), 'utf8')).toMatch(/^[34]\. \*\*listPets\*\* .*\*\*violation\*\*/m);
    expect(await readFile(join(dir, 'junit.xml'), 'utf8')).toMatch(/^[34]\. listPets: GET \/pets\?status=\w+&amp;limit=100$/m);
    const html = await readFile(join(dir, 'report.html'), 'utf8');
    const steps = html.match(/<li data-outcome="(as-expected|violation)">/g) ?? [];
    expect(steps.at(-1)).toBe('<li data-outcome="violation">');
    expect(steps.slice(0, -1).every((li) => li === '<li data-outcome="as-expected">')).toBe(true);
    for (const text of [first.cli.stdout, html]) expect(text).not.toContain(broken.keys.pro);
  });

  it('replay sends the sequence again: "still failing" on the same server', async () => {
    const result = await runCli(['replay', join(dir, 'report.json'), '--base-url', broken.baseUrl, '--report-dir', await tempDir('sequences-again'), '--reporter', 'json'], { PETSTORE_API_KEY: broken.keys.pro }, RUN_TIMEOUT_MS);
    expect(result.stdout).toMatch(/^ {2}LIST-005 +still failing$/m);
    expect(result.stdout).toMatch(/re-run: replayed sequence, step ([34]) of \1: Received/);
    expect(result.code).toBe(1);
  });

  it('replay on a correct server: "fixed"', async () => {
    const result = await runCli(['replay', join(dir, 'report.json'), '--base-url', fixed.baseUrl, '--report-dir', await tempDir('sequences-fixed'), '--reporter', 'json'], { PETSTORE_API_KEY: fixed.keys.pro }, RUN_TIMEOUT_MS);
    expect(result.stdout).toMatch(/^ {2}LIST-005 +fixed$/m);
    expect(result.stdout).toMatch(/the failing sequence \([34] steps\), sent again, met every expectation of the model/);
    expect(result.code).toBe(0);
  });
});

describe('the fixed cases alone do not see these defects', () => {
  for (const mutant of SEQUENCE_VARIANTS.filter((v) => v.kind === 'mutant')) {
    it(`${mutant.name} passes on a Free key, whose window leaves no room for sequences`, { timeout: RUN_TIMEOUT_MS }, async () => {
      // Short windows: a Free key's run then waits seconds, not minutes.
      const server = await startReferenceServer({ ...mutant.server, ...SHORT_WINDOWS });
      try {
        const { cli, report } = await run(server, 'free', await tempDir(`sequences-free-${mutant.name}`));
        expect(failing(report), cli.stdout).toEqual([]);
        expect(report.observations.filter((o) => o.message.startsWith('model-based sequences:'))).toEqual([]);
      } finally {
        await server.close();
      }
    });
  }
});
