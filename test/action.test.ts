/**
 * The GitHub Action (action.yml) as GitHub runs it: its one step's script, with the environment
 * a composite step gets (GITHUB_ACTION_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, one INPUT_*
 * per input, the key in PETSTORE_API_KEY), against the reference server and a broken one. The
 * declared inputs and outputs must be exactly what the script reads and writes, and the key must
 * appear nowhere.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceBehaviour, startReferenceServer, type RunningReferenceServer } from '../fixtures/reference-server/index.js';
import { SHORT_WINDOWS } from '../fixtures/variants/index.js';
import { closedPort } from './support/ports.js';
import { predicateErrors } from '../src/attestation/shape.js';
import { tempDirs } from './support/temp-dirs.js';
import { nearMissesOf, nearMissOf } from '../src/http/near-miss.js';
import { startGateway, startForwardProxy } from './support/reach-servers.js';
import { REPORTERS } from '../src/cli/args.js';
import { RUN_TIMEOUT_MS } from './support/hang-guard.js';

const ROOT = resolve(import.meta.dirname, '..');
const SCRIPT = join(ROOT, 'scripts/action/run.sh');
const BUILD_TOOLS = join(ROOT, 'scripts/action/build-tools');
const KEY = 'pc-action-secret-8e2b/q+z=';
const INPUTS = ['base-url', 'plan', 'only', 'read-only', 'rate-limit-sharing', 'risk-breaking-store', 'max-requests', 'report-dir', 'reporters', 'config', 'proxy', 'headers', 'client-cert', 'client-key'];
const OUTPUTS = ['verdict', 'exit-code', 'report-dir', 'predicate-path'];
const tempDir = tempDirs();

interface ActionStep {
  id?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
}

interface ActionFile {
  inputs: Record<string, { default?: string; description?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

const envName = (input: string): string => `INPUT_${input.toUpperCase().replace(/-/g, '_')}`;

interface ActionRun {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Map<string, string>;
  summary: string;
  reportDir: string;
  /** Every file in the report directory, by name. */
  files: Map<string, string>;
}

/**
 * While the step runs: `kill` sends a signal to the step's entry process alone, as the runner
 * does when the job is cancelled (SIGINT, then SIGTERM) or times out.
 */
type WhileRunning = (kill: (signal: NodeJS.Signals) => void) => Promise<void>;

/**
 * Runs the action's step in a fresh workspace (after `prepare`), as the composite would with these
 * inputs: with `whileRunning`, as the runner itself does, action.yml's `run` line in a script of
 * its own run by `bash --noprofile --norc -eo pipefail` (the entry process the runner signals).
 * `actionPath` is the action's checkout (GITHUB_ACTION_PATH): this one, with its dist/ built.
 */
async function runAction(inputs: Record<string, string>, prepare: (workspace: string) => Promise<void> = async () => {}, whileRunning?: WhileRunning, actionPath = ROOT): Promise<ActionRun> {
  const workspace = await tempDir('action');
  await prepare(workspace);
  const outputFile = join(workspace, 'github-output');
  const summaryFile = join(workspace, 'step-summary');
  await writeFile(outputFile, '');
  await writeFile(summaryFile, '');
  const inputEnv = Object.fromEntries(INPUTS.map((name) => [envName(name), inputs[name] ?? '']));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    ...(process.env['TMPDIR'] === undefined ? {} : { TMPDIR: process.env['TMPDIR'] }),
    NO_COLOR: '1',
    GITHUB_ACTIONS: 'true',
    GITHUB_ACTION_PATH: actionPath,
    GITHUB_WORKSPACE: workspace,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    PETSTORE_API_KEY: KEY,
    ...inputEnv,
  };
  let command = ['bash', join(actionPath, 'scripts/action/run.sh')];
  if (whileRunning !== undefined) {
    const action = parse(await readFile(join(actionPath, 'action.yml'), 'utf8')) as ActionFile;
    const step = join(workspace, 'step.sh');
    await writeFile(step, action.runs.steps[0]?.run ?? '');
    command = ['bash', '--noprofile', '--norc', '-eo', 'pipefail', step];
  }
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done, reject) => {
    const child = spawn(command[0] ?? 'bash', command.slice(1), { cwd: workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
    whileRunning?.((signal) => child.kill(signal)).catch(reject);
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (c) => done({ code: c, stdout: out, stderr: err }));
  });
  const outputs = new Map<string, string>();
  for (const line of (await readFile(outputFile, 'utf8')).split('\n').filter((l) => l !== '')) {
    const eq = line.indexOf('=');
    expect(eq, `"${line}" is a name=value line`).toBeGreaterThan(0);
    expect(outputs.has(line.slice(0, eq)), `${line.slice(0, eq)} written once`).toBe(false);
    outputs.set(line.slice(0, eq), line.slice(eq + 1));
  }
  const reportDir = resolve(workspace, inputs['report-dir'] ?? 'conformance-report');
  const files = new Map<string, string>();
  for (const name of await readdir(reportDir).catch(() => [])) files.set(name, await readFile(join(reportDir, name), 'utf8'));
  const run = { code, stdout, stderr, outputs, summary: await readFile(summaryFile, 'utf8'), reportDir, files };
  // The near misses of the key AUTH-002 sends are secrets too.
  const keyForms = [KEY, ...nearMissesOf(KEY).map((miss) => nearMissOf(KEY, miss))].flatMap((s) => [s, encodeURIComponent(s), Buffer.from(s).toString('base64').slice(0, -4)]);
  const texts: [string, string][] = [['stdout', stdout], ['stderr', stderr], ['outputs', [...outputs.values()].join('\n')], ['summary', run.summary], ...files];
  for (const [where, text] of texts) for (const form of keyForms) expect(text.includes(form), `the key leaked into ${where}`).toBe(false);
  return run;
}

function reportVerdict(run: ActionRun): unknown {
  const json = run.files.get('report.json');
  if (json === undefined) throw new Error(`no report.json (exit ${run.code}): ${run.stderr}`);
  return (JSON.parse(json) as { verdict: unknown }).verdict;
}

describe('action.yml', () => {
  let action: ActionFile;
  let script: string;
  beforeAll(async () => {
    action = parse(await readFile(join(ROOT, 'action.yml'), 'utf8')) as ActionFile;
    script = await readFile(SCRIPT, 'utf8');
  });

  it('declares the inputs and outputs, and no input for the key', () => {
    expect(Object.keys(action.inputs).sort()).toEqual([...INPUTS].sort());
    expect(Object.keys(action.outputs).sort()).toEqual([...OUTPUTS].sort());
    // No input takes a secret (inputs can be echoed in logs): client-key is the key file's path, its passphrase comes from the env.
    for (const name of Object.keys(action.inputs)) expect(name).not.toMatch(/api-?key|^key$|token|secret|passphrase|password/i);
  });

  it('is a composite whose one step runs the script and passes each input as INPUT_*', () => {
    expect(action.runs.using).toBe('composite');
    const [step, ...others] = action.runs.steps;
    expect(others).toEqual([]);
    expect(step?.shell).toBe('bash');
    expect(step?.run).toContain('$GITHUB_ACTION_PATH/scripts/action/run.sh');
    expect(step?.env).toEqual(Object.fromEntries(INPUTS.map((name) => [envName(name), `\${{ inputs.${name} }}`])));
  });

  it('the script reads exactly those INPUT_* variables and writes exactly the declared outputs', () => {
    const read = new Set(script.match(/INPUT_[A-Z_]+/g));
    expect([...read].sort()).toEqual(INPUTS.map(envName).sort());
    const written = new Set([...script.matchAll(/echo "([a-z-]+)=/g)].map((m) => m[1]));
    expect([...written].sort()).toEqual([...OUTPUTS].sort());
    for (const name of OUTPUTS) expect(action.outputs[name]?.value).toBe(`\${{ steps.${action.runs.steps[0]?.id ?? '?'}.outputs.${name} }}`);
  });

  it('the reporters input names every format the CLI writes', () => {
    const description = action.inputs['reporters']?.description ?? '';
    const named = description.match(/\(([a-z, ]+)\)/)?.[1]?.split(', ');
    expect(named).toEqual([...REPORTERS]);
  });

  it('builds with the TypeScript of the root lockfile, pinned by a lockfile of its own', async () => {
    const root = lockPackages(await readFile(join(ROOT, 'package-lock.json'), 'utf8'));
    const tools = lockPackages(await readFile(join(BUILD_TOOLS, 'package-lock.json'), 'utf8'));
    expect(Object.keys(tools).filter((path) => path !== '')).toEqual(['node_modules/typescript']);
    const [pinned, wanted] = [tools['node_modules/typescript'], root['node_modules/typescript']];
    expect({ version: pinned?.version, integrity: pinned?.integrity }).toEqual({ version: wanted?.version, integrity: wanted?.integrity });
    const manifest = JSON.parse(await readFile(join(BUILD_TOOLS, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(manifest.dependencies).toEqual({ typescript: wanted?.version });
  });
});

interface LockEntry {
  version?: string;
  integrity?: string;
  dev?: boolean;
}

function lockPackages(lockfile: string): Record<string, LockEntry> {
  return (JSON.parse(lockfile) as { packages: Record<string, LockEntry> }).packages;
}

const exists = (path: string): Promise<boolean> => stat(path).then(() => true, () => false);

/** A checkout of this action as GitHub makes one: the files git would commit, no dist/, no node_modules. */
async function checkout(): Promise<string> {
  const dir = await tempDir('action-checkout');
  const { stdout } = await promisify(execFile)('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  for (const file of stdout.split('\0').filter((f) => f !== '')) {
    // A file deleted in the work tree but still in the index is not part of the checkout.
    if (!(await exists(join(ROOT, file)))) continue;
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await copyFile(join(ROOT, file), join(dir, file));
  }
  return dir;
}

describe('the action run against servers', () => {
  let good: RunningReferenceServer;
  let broken: RunningReferenceServer;
  beforeAll(async () => {
    good = await startReferenceServer({ ...SHORT_WINDOWS, keys: { [KEY]: 'free' } });
    // A default page of 10 instead of 20: LIST-002 fails.
    broken = await startReferenceServer({
      ...SHORT_WINDOWS,
      keys: { [KEY]: 'free' },
      behaviour: { limit: (raw, ctx) => (raw === null ? { ok: true, value: 10 } : referenceBehaviour.limit(raw, ctx)) },
    });
  });
  afterAll(async () => {
    await Promise.all([good.close(), broken.close()]);
  });

  it('a conforming server: exit 0, outputs, one summary in the step summary', async () => {
    const run = await runAction({ 'base-url': good.baseUrl, plan: 'free', reporters: 'json,junit', 'report-dir': 'out/reports' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.outputs.get('exit-code')).toBe('0');
    expect(run.outputs.get('verdict')).toBe(reportVerdict(run));
    expect(run.outputs.get('verdict')).not.toBe('');
    expect(run.outputs.get('report-dir')).toBe(run.reportDir);
    expect([...run.files.keys()].sort()).toEqual(['junit.xml', 'report.json', 'report.predicate.json']);
    // The predicate for actions/attest: this run's, of this project's predicate type.
    expect(run.outputs.get('predicate-path')).toBe(join(run.reportDir, 'report.predicate.json'));
    const predicate = JSON.parse(run.files.get('report.predicate.json') ?? '{}') as { verdict: unknown; runId: unknown };
    const report = JSON.parse(run.files.get('report.json') ?? '{}') as { verdict: unknown; runId: unknown };
    expect(predicateErrors(predicate)).toEqual([]);
    // The job's summary names the SHA-256 of the report.json written beside it.
    expect(run.summary).toContain(`SHA-256 of report.json: \`${createHash('sha256').update(run.files.get('report.json') ?? '').digest('hex')}\``);
    expect({ verdict: predicate.verdict, runId: predicate.runId }).toEqual({ verdict: report.verdict, runId: report.runId });
    // Without the rate-limit-sharing input the key may be shared.
    expect((JSON.parse(run.files.get('report.json') ?? '{}') as { keyUse?: { mode: string } }).keyUse?.mode).toBe('shared');
    // The CLI appends the Markdown summary itself; the script must not add a second copy.
    const heading = run.summary.split('\n')[0] ?? '';
    expect(heading).toMatch(/^#/);
    expect(run.summary.split('\n').filter((line) => line === heading)).toHaveLength(1);
  });

  it('a server that breaks LIST-002, with only, read-only and rate-limit-sharing dedicated: exit 1, its verdict passed through', async () => {
    const run = await runAction({ 'base-url': broken.baseUrl, plan: 'free', only: 'LIST', 'read-only': 'true', 'rate-limit-sharing': 'dedicated' });
    expect(run.code, run.stderr).toBe(1);
    expect(run.outputs.get('exit-code')).toBe('1');
    const report = JSON.parse(run.files.get('report.json') ?? '{}') as { verdict: string; options: { readOnly: boolean; only: string[] }; requirements: { id: string; status: string }[] };
    expect(run.outputs.get('verdict')).toBe(report.verdict);
    expect(report.requirements.filter((r) => r.status === 'fail').map((r) => r.id)).toEqual(['LIST-002']);
    expect(report.options.only).toEqual(['LIST']);
    // Deselected requirements are listed too, but none outside LIST was judged.
    expect(report.requirements.filter((r) => r.status === 'pass' || r.status === 'fail').every((r) => r.id.startsWith('LIST-'))).toBe(true);
    expect(report.options.readOnly).toBe(true);
    expect((report as { keyUse?: { mode: string } }).keyUse?.mode).toBe('dedicated');
    expect(run.summary).toContain('LIST-002');
  });

  it('a target that is down: exit 2, the fresh report\'s verdict (not verified), a summary saying why; a stale report.json does not answer', async () => {
    const port = await closedPort();
    const stale = async (workspace: string): Promise<void> => {
      await mkdir(join(workspace, 'conformance-report'));
      await writeFile(join(workspace, 'conformance-report/report.json'), JSON.stringify({ verdict: 'pass' }));
    };
    const run = await runAction({ 'base-url': `http://127.0.0.1:${port}/v1`, 'max-requests': '20' }, stale);
    expect(run.code).toBe(2);
    expect(run.outputs.get('exit-code')).toBe('2');
    expect(run.outputs.get('verdict')).toBe('not-verified');
    expect(run.summary).toMatch(/NOT VERIFIED/);
    expect(run.summary).toMatch(/unreachable/);
  });

  it('a checkout without dist/: the step installs only what a run needs (no dev tools), builds, and runs', { timeout: RUN_TIMEOUT_MS }, async () => {
    const actionPath = await checkout();
    expect(await exists(join(actionPath, 'dist'))).toBe(false);
    const run = await runAction({ 'base-url': good.baseUrl, plan: 'free', only: 'AUTH', reporters: 'json' }, undefined, undefined, actionPath);
    expect(run.code, run.stderr).toBe(0);
    expect(run.outputs.get('verdict')).toBe(reportVerdict(run));
    const report = JSON.parse(run.files.get('report.json') ?? '{}') as { requirements: { id: string; status: string }[] };
    expect(report.requirements.filter((r) => r.id.startsWith('AUTH-') && r.status === 'pass').length).toBeGreaterThan(0);
    const modules = join(actionPath, 'node_modules');
    for (const dev of ['@stryker-mutator/core', '@stryker-mutator/api', 'eslint', 'typescript-eslint', '@sparticuz/chromium', 'playwright-core', 'typescript']) {
      expect(await exists(join(modules, dev)), `${dev} installed`).toBe(false);
    }
    // Nor anything else only the dev dependencies need.
    const devOnly = Object.entries(lockPackages(await readFile(join(actionPath, 'package-lock.json'), 'utf8'))).filter(([, entry]) => entry.dev === true);
    expect(devOnly.length).toBeGreaterThan(0);
    const installed: string[] = [];
    for (const [path] of devOnly) if (await exists(join(actionPath, path))) installed.push(path);
    expect(installed).toEqual([]);
    // What it built is what the published package ships: no test fixtures or mutation tooling.
    expect((await readdir(join(actionPath, 'dist', 'fixtures'))).sort()).toEqual(['reference-server']);
    expect(await exists(join(actionPath, 'dist', 'mutation'))).toBe(false);
  });

  it('a custom plan is passed through: an Enterprise key\'s limits checked and shown in the report', async () => {
    const run = await runAction({ 'base-url': good.baseUrl, plan: 'custom:60/1000', only: 'RATE-004', reporters: 'json' });
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.files.get('report.json') ?? '{}') as { target: { plan?: string }; requirements: { id: string; status: string }[] };
    expect(report.target.plan).toBe('custom:60/1000');
    expect(report.requirements.find((r) => r.id === 'RATE-004')?.status).toBe('pass');
  });

  it('a gateway in front of staging, through a proxy: the headers input (one a line) and the config input reach every request', async () => {
    const gateway = await startGateway(good.baseUrl, { 'X-Gateway-Id': 'gw-action-id-1f3a5c7e9b', 'X-Gateway-Secret': 'gw-action-secret-2e4b6d8f0a' });
    const proxy = await startForwardProxy();
    try {
      const config = async (workspace: string): Promise<void> => {
        await mkdir(join(workspace, 'ci'));
        await writeFile(join(workspace, 'ci/conformance.yaml'), `baseUrl: ${gateway.baseUrl}\nonly: [AUTH]\nreporters: json\n`);
      };
      const run = await runAction({ config: 'ci/conformance.yaml', proxy: proxy.url, headers: 'X-Gateway-Id: gw-action-id-1f3a5c7e9b\r\n\nX-Gateway-Secret: gw-action-secret-2e4b6d8f0a' }, config);
      expect(run.code, run.stderr).toBe(0);
      expect(gateway.refused).toBe(0);
      expect(gateway.forwarded).toBeGreaterThan(0);
      expect(proxy.tunnels.length).toBeGreaterThan(0);
      const report = JSON.parse(run.files.get('report.json') ?? '{}') as { options: { only: string[] }; target: { access?: { headers?: string[] } } };
      expect(report.options.only).toEqual(['AUTH']);
      expect(report.target.access?.headers).toEqual(['X-Gateway-Id', 'X-Gateway-Secret']);
      for (const text of [run.stdout, run.stderr, run.summary, ...run.files.values()]) expect(text).not.toMatch(/gw-action-(id|secret)-/);
    } finally {
      await Promise.all([gateway.close(), proxy.close()]);
    }
  });

  it('a malformed plan: exit 2 with one line showing the expected form', async () => {
    const run = await runAction({ 'base-url': good.baseUrl, plan: 'custom:abc' });
    expect(run.code).toBe(2);
    expect(run.outputs.get('exit-code')).toBe('2');
    expect(run.stderr.trim().split('\n')).toEqual(['petstore-conformance: --plan must be free, pro, business or custom:PER_MINUTE/PER_DAY (for example custom:500/50000), got "custom:abc"']);
  });

  it('a cancelled job (SIGINT to the step\'s entry process only, as the runner sends it): the CLI stops, writes its reports, and every output is still set (exit-code 130)', async () => {
    // The census, the run's first request, is held: the signal comes while it is in flight.
    let censusArrived = false;
    const held = await startReferenceServer({
      keys: { [KEY]: 'free' },
      behaviour: {
        delayMs: (ctx) => {
          if (ctx.operation !== 'listPets' || ctx.url.searchParams.get('limit') !== '100') return 0;
          censusArrived = true;
          return 3_600_000;
        },
      },
    });
    try {
      const run = await runAction({ 'base-url': held.baseUrl, plan: 'free', reporters: 'json,junit' }, undefined, async (kill) => {
        await expect.poll(() => censusArrived, { timeout: 120_000, interval: 20 }).toBe(true);
        kill('SIGINT');
      });
      expect(run.code, run.stderr).toBe(130);
      expect(run.outputs.get('exit-code')).toBe('130');
      expect(run.outputs.get('verdict')).toBe('not-verified');
      expect(run.outputs.get('report-dir')).toBe(run.reportDir);
      expect(run.outputs.get('predicate-path')).toBe(join(run.reportDir, 'report.predicate.json'));
      const report = JSON.parse(run.files.get('report.json') ?? '{}') as { halted?: { reason: string; signal?: string } };
      expect(report.halted).toMatchObject({ reason: 'interrupted', signal: 'SIGINT' });
      expect([...run.files.keys()].sort()).toEqual(['junit.xml', 'report.json', 'report.predicate.json']);
      expect(run.summary).toMatch(/NOT VERIFIED: .*the run was stopped by SIGINT/);
      expect(run.stderr).toContain('the partial report is');
    } finally {
      await held.close();
    }
  }, 240_000);

  it('a bad input: exit 2 with one line naming it, exit-code output 2', async () => {
    const run = await runAction({ 'read-only': 'yes' });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual(['petstore-conformance action: read-only must be true or false, got "yes"']);
    expect(run.outputs.get('exit-code')).toBe('2');
    const mode = await runAction({ 'rate-limit-sharing': 'private' });
    expect(mode.code).toBe(2);
    expect(mode.stderr.trim().split('\n')).toEqual(['petstore-conformance action: rate-limit-sharing must be shared or dedicated, got "private"']);
    const risk = await runAction({ 'risk-breaking-store': 'maybe' });
    expect(risk.stderr.trim().split('\n')).toEqual(['petstore-conformance action: risk-breaking-store must be true or false, got "maybe"']);
  });

  it('risk-breaking-store: refused beside rate-limit-sharing shared (exit 2, one line); otherwise passed on, CREATE-005 exercised on a dedicated key', async () => {
    const shared = await runAction({ 'risk-breaking-store': 'true', 'rate-limit-sharing': 'shared' });
    expect(shared.code).toBe(2);
    expect(shared.stderr.trim().split('\n')).toEqual([
      'petstore-conformance action: risk-breaking-store cannot be used with rate-limit-sharing: shared: others who use the key use the store it may break; leave rate-limit-sharing empty or set it to dedicated',
    ]);
    const run = await runAction({ 'base-url': good.baseUrl, plan: 'free', 'risk-breaking-store': 'true', only: 'CREATE-005' });
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.files.get('report.json') ?? '{}') as { keyUse?: { mode: string }; requirements?: Array<{ id: string; status: string }> };
    expect(report.requirements?.find((r) => r.id === 'CREATE-005')?.status).toBe('pass');
    expect(report.keyUse?.mode).toBe('dedicated');
  }, 240_000);
});
