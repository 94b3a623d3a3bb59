/**
 * The package as a user gets it: `npm pack`, installed into an empty project with production
 * dependencies only, then the CLI (--help, a full embedded run), the library import and its
 * type declarations, all from there. Needs the registry (or npm's cache) for the dependencies.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportSchemaErrors } from './support/report-schema.js';
import type { Report } from '../src/report/types.js';
import { RUN_TIMEOUT_MS } from './support/hang-guard.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const run = promisify(execFile);

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

async function sh(command: string, args: readonly string[], cwd: string, timeout = RUN_TIMEOUT_MS): Promise<Ran> {
  try {
    const { stdout, stderr } = await run(command, [...args], { cwd, timeout, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('installed from the packed tarball with --omit=dev', { timeout: RUN_TIMEOUT_MS }, () => {
  let temp: string;
  let project: string;

  beforeAll(async () => {
    temp = await mkdtemp(join(tmpdir(), 'pc-install-'));
    // dist/ is built by `npm test` before any test runs; packing must not rebuild it concurrently.
    const packed = await sh('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', temp], ROOT);
    expect(packed.code, packed.stderr).toBe(0);
    const tarball = (await readdir(temp)).find((f) => f.endsWith('.tgz'));
    expect(tarball).toBeDefined();
    project = join(temp, 'project');
    await mkdir(project);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'empty-project', version: '1.0.0', private: true, type: 'module' }));
    const installed = await sh('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', join(temp, tarball ?? '')], project);
    expect(installed.code, installed.stderr).toBe(0);
  }, 2 * RUN_TIMEOUT_MS);

  afterAll(async () => {
    if (temp !== undefined) await rm(temp, { recursive: true, force: true });
  });

  it('ships only what an installed package needs', async () => {
    const installed = join(project, 'node_modules', 'petstore-conformance');
    const top = (await readdir(installed)).sort();
    expect(top).toEqual(expect.arrayContaining(['dist', 'package.json', 'schemas']));
    for (const absent of ['src', 'test', 'bench', 'fixtures', 'node_modules']) expect(top).not.toContain(absent);
    expect((await readdir(join(installed, 'dist', 'fixtures'))).sort()).toEqual(['reference-server']);
    // Dev-only tools stay out of a production install.
    const modules = await readdir(join(project, 'node_modules'));
    for (const dev of ['playwright-core', 'typescript', 'eslint']) expect(modules).not.toContain(dev);
  });

  it('npx petstore-conformance --help', async () => {
    const help = await sh('npx', ['--no-install', 'petstore-conformance', '--help'], project);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: petstore-conformance/);
  });

  it('npx petstore-conformance: a full run against the embedded server, a valid report, exit 0', async () => {
    const full = await sh('npx', ['--no-install', 'petstore-conformance', '--report-dir', 'out', '--reporter', 'json,junit,markdown,html,earl'], project);
    expect(full.code, full.stderr).toBe(0);
    const report = JSON.parse(await readFile(join(project, 'out', 'report.json'), 'utf8')) as Report;
    expect(reportSchemaErrors(report)).toEqual([]);
    expect(report.summary.fail).toBe(0);
    expect(report.requests).toBeGreaterThan(20);
    expect((await readdir(join(project, 'out'))).sort()).toEqual(['earl.jsonld', 'junit.xml', 'report.html', 'report.json', 'summary.md']);
  });

  it('attest and verify the run\'s report.json from the installed package (its schema ships)', async () => {
    // Uses the report of the full run above.
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    await writeFile(join(project, 'signing.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
    await writeFile(join(project, 'signing.pub.pem'), publicKey.export({ type: 'spki', format: 'pem' }));
    const attest = await sh('npx', ['--no-install', 'petstore-conformance', 'attest', 'out/report.json', '--key', 'signing.pem'], project);
    expect(attest.code, attest.stderr).toBe(0);
    const verify = await sh('npx', ['--no-install', 'petstore-conformance', 'verify', 'out/report.json', '--envelope', 'out/report.intoto.jsonl', '--public-key', 'signing.pub.pem'], project);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/^verified: /);
  });

  it("import('petstore-conformance').runConformance({}) resolves to a report that validates, printing nothing", async () => {
    const script = "import('petstore-conformance').then(async (m) => { const r = await m.runConformance({}); process.stdout.write(JSON.stringify(r)); })";
    const lib = await sh(process.execPath, ['-e', script], project);
    expect(lib.code, lib.stderr).toBe(0);
    expect(lib.stderr).toBe('');
    const report = JSON.parse(lib.stdout) as Report;
    expect(reportSchemaErrors(report)).toEqual([]);
    expect(report.target.embedded).toBe(true);
    expect(report.summary.fail).toBe(0);
  });

  it('examples/library/check-staging.mjs runs from the installed package and writes its reports', async () => {
    await copyFile(join(ROOT, 'examples', 'library', 'check-staging.mjs'), join(project, 'check-staging.mjs'));
    const ran = await sh(process.execPath, ['check-staging.mjs'], project);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^\d+ pass, 0 fail, \d+ inconclusive; .*report\.json, .*summary\.md\n$/);
    const report = JSON.parse(await readFile(join(project, 'conformance-report', 'report.json'), 'utf8')) as Report;
    expect(reportSchemaErrors(report)).toEqual([]);
  });

  it('the type declarations resolve for a TypeScript consumer (both entries)', async () => {
    await writeFile(
      join(project, 'consumer.mts'),
      [
        "import { runConformance, exitCodeOf, renderMarkdown, loadReport, ConformanceUsageError, attestReport, verifyAttestation, type Report, type VerificationResult } from 'petstore-conformance';",
        "import { defineConformanceSuite } from 'petstore-conformance/vitest';",
        'const report: Report = await runConformance({ baseUrl: "http://localhost:8080/v1", apiKey: "k", only: ["LIST"] });',
        'const code: 0 | 1 | 2 | 129 | 130 | 143 = exitCodeOf(report);',
        'const verified: VerificationResult = verifyAttestation({ report: "{}", envelope: attestReport({ report: "{}", privateKey: "pem" }).envelope, publicKey: "pem" });',
        'export const used = [code, renderMarkdown(report), loadReport, ConformanceUsageError, defineConformanceSuite, verified];',
        '// @ts-expect-error: an unknown option is a type error',
        'await runConformance({ baseURL: "x" });',
      ].join('\n'),
    );
    const typeRoots = join(ROOT, 'node_modules', '@types');
    const checked = await sh(process.execPath, [TSC, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', '--typeRoots', typeRoots, 'consumer.mts'], project);
    expect(checked.code, checked.stdout).toBe(0);
  });
});
