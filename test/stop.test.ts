/**
 * A run stopped by a signal keeps what it found (issue 25). The built CLI runs as a process against
 * reference servers in this one, and is stopped by SIGINT or SIGTERM at a point the test sees it
 * reach, never after a fixed sleep: during the census (the server holds it), in a rate-limit wait
 * (the wait's line on stderr) and during the burst (the server sees two of its requests at once).
 * Each leaves a schema-valid report.json that says which signal stopped it, the reports asked for,
 * the exit code of that signal, no key in any output and no process of its own; a second signal
 * ends the process at once; `report` renders the saved report.json again.
 */
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cliEnv, runCli } from './support/cli.js';
import { tempDirs } from './support/temp-dirs.js';
import { reportSchemaErrors } from './support/report-schema.js';
import { xsdErrors } from './support/xsd.js';
import { nearMissesOf, nearMissOf } from '../src/http/near-miss.js';
import {
  perKeyWindowLimiter,
  referenceBehaviour,
  startReferenceServer,
  type RequestContext,
  type RunningReferenceServer,
} from '../fixtures/reference-server/index.js';
import type { Report, StopSignal } from '../src/report/types.js';

const KEY = 'pc-stop-secret-4f1a/x+y=';
const XSD = join(import.meta.dirname, '../schemas/junit.xsd');
/** A response held this long is one the run never gets: the stop's grace ends first. */
const HOLD_MS = 3_600_000;
/** Generous: a stopped run ends in seconds; a run that did not stop would wait an hour. */
const HANG_MS = 240_000;
/** Keyed requests a run's own tests never reach on a key of 400 a window: past it, the burst is sending. */
const BURST_MARK = 250;
const tempDir = tempDirs();

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Processes by pid and start time (so a pid used again later is not mistaken for one of ours). */
async function processTable(): Promise<Map<number, { ppid: number; start: string; state: string }>> {
  const table = new Map<number, { ppid: number; start: string; state: string }>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => undefined);
    if (stat === undefined) continue;
    // The command name may hold spaces and parentheses: the fields after it start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    table.set(Number(name), { state: fields[0] ?? '', ppid: Number(fields[1]), start: fields[19] ?? '' });
  }
  return table;
}

async function descendantsOf(pid: number): Promise<string[]> {
  const table = await processTable();
  const found: string[] = [];
  const walk = (parent: number): void => {
    for (const [child, entry] of table) {
      if (entry.ppid !== parent) continue;
      found.push(`${child}:${entry.start}`);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

/** Those of `seen` still running (a zombie has ended: its parent only has to reap it). */
async function stillRunning(seen: ReadonlySet<string>): Promise<string[]> {
  const table = await processTable();
  return [...seen].filter((id) => {
    const [pid, start] = id.split(':');
    const entry = table.get(Number(pid));
    return entry !== undefined && entry.start === start && entry.state !== 'Z';
  });
}

/** CLIs still running when a test gave up on them. */
const started = new Set<{ kill(signal: NodeJS.Signals): boolean }>();
afterAll(() => {
  for (const child of started) child.kill('SIGKILL');
});

/** The CLI as a process: its output so far, the processes it started, its end. */
function startCli(args: readonly string[]) {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...cliEnv(), PETSTORE_API_KEY: KEY }, stdio: ['ignore', 'pipe', 'pipe'] });
  started.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const seen = new Set<string>();
  let running = true;
  const watch = async (): Promise<void> => {
    while (running) {
      for (const id of await descendantsOf(child.pid ?? -1)) seen.add(id);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const watching = watch();
  const ended = new Promise<Ended>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      running = false;
      started.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return {
    kill: (signal: StopSignal) => child.kill(signal),
    stderr: () => stderr,
    /** Every process the CLI started while it ran. */
    descendants: async () => {
      await watching;
      return seen;
    },
    ended,
  };
}

/** Resolves once `condition` holds (a hook's beforeAll cannot use expect.poll); the test's own timeout bounds it. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + HANG_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const KEY_FORMS = [KEY, ...nearMissesOf(KEY).map((miss) => nearMissOf(KEY, miss))].flatMap((s) => [s, encodeURIComponent(s), Buffer.from(s).toString('base64').slice(0, -4)]);

function expectNoKey(texts: ReadonlyArray<[string, string]>): void {
  for (const [where, text] of texts) for (const form of KEY_FORMS) expect(text.includes(form), `the key leaked into ${where}`).toBe(false);
}

const STOPPED = (signal: StopSignal): string => `the run was stopped (${signal}) before this was judged`;

/** What every stopped run leaves, whatever the point: returns the report. */
async function expectStoppedRun(
  run: ReturnType<typeof startCli>,
  dir: string,
  signal: StopSignal,
  exitCode: number,
  files: readonly string[] = ['junit.xml', 'report.html', 'report.json', 'summary.md'],
): Promise<{ report: Report; ended: Ended }> {
  const ended = await run.ended;
  expect(ended.code, ended.stderr).toBe(exitCode);
  expect(await stillRunning(await run.descendants()), 'processes the run started, still running after it').toEqual([]);
  const written = new Map<string, string>();
  for (const name of await readdir(dir)) written.set(name, await readFile(join(dir, name), 'utf8'));
  expect([...written.keys()].sort()).toEqual([...files].sort());
  const report = JSON.parse(written.get('report.json') ?? '') as Report;
  expect(reportSchemaErrors(report)).toEqual([]);
  expect(report.halted).toMatchObject({ reason: 'interrupted', signal });
  expect(Number.isNaN(Date.parse(report.halted?.at ?? ''))).toBe(false);
  // Never "conforms": a failure already found stands, otherwise not verified.
  expect(report.verdict).not.toBe('conforms');
  expect(report.verdictLine).toContain(`the run was stopped by ${signal}`);
  const unjudged = report.requirements.filter((r) => r.reason === STOPPED(signal)).map((r) => r.id);
  expect(unjudged.length).toBeGreaterThan(0);
  expect(report.halted?.unjudged).toEqual(unjudged);
  for (const r of report.requirements.filter((x) => unjudged.includes(x.id))) expect(r.status).toBe('inconclusive');
  // The requested reports are this report.
  await expect(xsdErrors(written.get('junit.xml') ?? '', XSD)).resolves.toEqual([]);
  expect(written.get('junit.xml')).toContain(`the run was stopped by ${signal}`);
  expect(written.get('summary.md')).toContain(report.verdictLine);
  expect(written.get('report.html')).toContain(`the run was stopped by ${signal}`);
  // One line names the partial report; no line says the server conforms.
  const named = `${ended.stdout}\n${ended.stderr}`.split('\n').filter((line) => line.includes(`the partial report is ${join(dir, 'report.json')}`));
  expect(named).toHaveLength(1);
  expect(ended.stdout).not.toMatch(/^CONFORMS/m);
  expectNoKey([['stdout', ended.stdout], ['stderr', ended.stderr], ...written]);
  return { report, ended };
}

/** A keyed listing with this limit. */
const listing = (ctx: RequestContext, limit: string): boolean => ctx.operation === 'listPets' && ctx.url.searchParams.get('limit') === limit && ctx.auth !== undefined;

const servers: RunningReferenceServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function server(options: Parameters<typeof startReferenceServer>[0]): Promise<RunningReferenceServer> {
  const started = await startReferenceServer({ keys: { [KEY]: 'free' }, ...options });
  servers.push(started);
  return started;
}

/** The census is the run's first request: held, it is in flight when the signal comes, and never answered. */
async function censusHoldingServer(): Promise<{ server: RunningReferenceServer; arrived: () => boolean }> {
  let arrived = false;
  const held = await server({
    behaviour: {
      delayMs: (ctx) => {
        if (!listing(ctx, '100')) return 0;
        arrived = true;
        return HOLD_MS;
      },
    },
  });
  return { server: held, arrived: () => arrived };
}

const REPORTERS = ['--reporter', 'json,junit,markdown,html'];

describe('a run stopped by a signal', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('during the census, by %s: every requirement inconclusive with the stop, the census cut off after the grace, exit %i', async (signal, exitCode) => {
    const { server: target, arrived } = await censusHoldingServer();
    const dir = await tempDir('stop-census');
    const run = startCli(['--base-url', target.baseUrl, '--plan', 'free', '--report-dir', dir, ...REPORTERS]);
    await until(arrived, 'the census reached the server');
    run.kill(signal);
    const { report, ended } = await expectStoppedRun(run, dir, signal, exitCode);
    expect(report.verdict).toBe('not-verified');
    expect(report.summary.pass + report.summary.fail).toBe(0);
    // Only the census was sent, and nothing after the stop.
    expect(report.requests).toBe(1);
    expect(target.requests).toBe(1);
    // Nothing judged: the console says so in a few lines, not a table of one repeated reason.
    expect(ended.stdout).toMatch(/^NOT VERIFIED: nothing was judged \(1 request sent\)/m);
    expect(ended.stderr).toContain(`petstore-conformance: ${signal}: stopping the run`);
    // A choice stays a choice.
    expect(report.requirements.find((r) => r.id === 'RATE-007')?.status).toBe('not-exercised');
  }, HANG_MS);

  it('in a rate-limit wait, by SIGTERM: the wait (most of an hour) ends at once, a failure already found stands (DOES NOT CONFORM), exit 143', async () => {
    // A Free key whose window, started by the run's first request, lasts 50 minutes: the run's own
    // requests use it up and the next waits for it. The default page is 10, not 20: LIST-002 fails first.
    const target = await server({
      windowSeconds: 3_000,
      limiter: perKeyWindowLimiter,
      behaviour: { limit: (raw, ctx) => (raw === null ? { ok: true, value: 10 } : referenceBehaviour.limit(raw, ctx)) },
    });
    const dir = await tempDir('stop-wait');
    const run = startCli(['--base-url', target.baseUrl, '--plan', 'free', '--max-wait', '3600', '--report-dir', dir, ...REPORTERS]);
    await until(() => /^waiting \d+ s on the target's rate limit/m.test(run.stderr()), 'the run waits on the rate limit');
    const sentBeforeStop = target.requests;
    run.kill('SIGTERM');
    const { report } = await expectStoppedRun(run, dir, 'SIGTERM', 143);
    // Nothing was sent after the stop, and the report counts every request the server saw.
    expect(target.requests).toBe(sentBeforeStop);
    expect(report.requests).toBe(sentBeforeStop);
    expect(report.requirements.find((r) => r.id === 'LIST-002')?.status).toBe('fail');
    expect(report.verdict).toBe('does-not-conform');
    expect(report.verdictLine).toMatch(/^DOES NOT CONFORM: /);
    expect(report.rateLimitWaitMs).toBeLessThan(3_000_000);
  }, HANG_MS);

  describe('during the burst, by SIGINT', () => {
    let dir: string;
    let report: Report;
    beforeAll(async () => {
      // An Enterprise key of 400 a minute: the run's own requests (the property runs are capped at
      // 25 a kind) stay well under 250 of its window, the burst at the end spends the rest + 1. The
      // 250th keyed request is the burst's: from then on the server holds the answers, so the burst
      // is still in flight when the signal comes.
      const quota = { perWindow: 400, perDay: 10_000 };
      let keyed = 0;
      const target = await server({
        windowSeconds: 60,
        limiter: perKeyWindowLimiter,
        behaviour: {
          quota: (plan, ctx) => (ctx.auth?.key === KEY ? quota : referenceBehaviour.quota(plan, ctx)),
          delayMs: (ctx) => {
            if (ctx.auth === undefined) return 0;
            keyed += 1;
            return keyed >= BURST_MARK ? HOLD_MS : 0;
          },
        },
      });
      dir = await tempDir('stop-burst');
      const run = startCli(['--base-url', target.baseUrl, '--plan', 'custom:400/10000', '--max-requests', '1500', '--report-dir', dir, '--reporter', 'json,junit,markdown,html,har']);
      await until(() => keyed >= BURST_MARK, 'the burst started');
      run.kill('SIGINT');
      report = (await expectStoppedRun(run, dir, 'SIGINT', 130, ['exchanges.har', 'junit.xml', 'report.html', 'report.json', 'summary.md'])).report;
    }, HANG_MS);

    it('was stopped with the burst in flight: its requests were cut off after the grace', () => {
      const burst = (report.exchanges ?? []).filter((e) => e.purpose === 'RATE-005');
      expect(burst.length).toBeGreaterThan(0);
      expect(burst.filter((e) => e.error?.code === 'stopped').length).toBeGreaterThan(0);
      // Nothing after the stop: every request of the burst was sent before the held ones were cut off.
      expect(report.requests).toBe(report.exchanges?.length);
    });

    it('keeps every verdict reached before it: the suites before the burst pass, the burst\'s requirement is left to the stop', () => {
      const status = (id: string): string | undefined => report.requirements.find((r) => r.id === id)?.status;
      expect(report.verdict).toBe('not-verified');
      for (const id of ['LIST-001', 'LIST-002', 'CREATE-001', 'GET-001', 'AUTH-001']) expect(status(id), id).toBe('pass');
      // Judged on every response: the burst's answers cut off by the stop were never seen, so no pass (issue 47).
      expect(report.requirements.find((r) => r.id === 'RATE-001')).toMatchObject({ status: 'inconclusive', reason: STOPPED('SIGINT') });
      expect(report.requirements.find((r) => r.id === 'RATE-005')).toMatchObject({ status: 'inconclusive', reason: STOPPED('SIGINT') });
      expect(report.halted?.unjudged).toContain('RATE-005');
    });

    it('`report` renders the saved report.json again, in every format', async () => {
      const again = await tempDir('stop-rerender');
      const result = await runCli(['report', join(dir, 'report.json'), '--report-dir', again, '--reporter', 'junit,markdown,html']);
      expect(result.code, result.stderr).toBe(0);
      expect((await readdir(again)).sort()).toEqual(['junit.xml', 'report.html', 'summary.md']);
      for (const name of ['junit.xml', 'summary.md', 'report.html']) {
        expect(await readFile(join(again, name), 'utf8'), name).toBe(await readFile(join(dir, name), 'utf8'));
      }
    });
  });

  it('a second signal ends the process at once: exit 143 for a SIGTERM after SIGINT, and no report', async () => {
    const { server: target, arrived } = await censusHoldingServer();
    const dir = await tempDir('stop-twice');
    const run = startCli(['--base-url', target.baseUrl, '--report-dir', dir]);
    await until(arrived, 'the census reached the server');
    run.kill('SIGINT');
    await until(() => run.stderr().includes('petstore-conformance: SIGINT: stopping the run'), 'the first signal was taken');
    // The census is held and its grace not over: only a process that quits at once writes no report.
    run.kill('SIGTERM');
    const ended = await run.ended;
    expect(ended.code).toBe(143);
    expect(ended.stderr).toContain('petstore-conformance: SIGTERM again: quitting at once; no report is written');
    await expect(readdir(dir)).resolves.toEqual([]);
    expect(await stillRunning(await run.descendants())).toEqual([]);
    expectNoKey([['stdout', ended.stdout], ['stderr', ended.stderr]]);
  }, HANG_MS);
});
