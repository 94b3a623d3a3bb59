/**
 * The library face (src/index.ts): runConformance resolves to a schema-valid report, keeps the
 * key out of it, prints nothing, leaves the process's exit code alone, refuses bad options with
 * a typed error, and stops sending when its AbortSignal fires.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConformanceUsageError, exitCodeOf, runConformance, type ConformanceOptions } from '../src/index.js';
import { resolveOptions } from '../src/api/options.js';
import { referenceBehaviour, startReferenceServer, type RunningReferenceServer } from '../fixtures/reference-server/index.js';
import { reportSchemaErrors } from './support/report-schema.js';
import { SHORT_WINDOWS, VARIANTS, variantServerOptions } from '../fixtures/variants/index.js';
import { nearMissesOf, nearMissOf } from '../src/http/near-miss.js';

const KEY = 'pc-library-secret-key-7f3c';

let server: RunningReferenceServer;
beforeAll(async () => {
  server = await startReferenceServer({ ...SHORT_WINDOWS, keys: { [KEY]: 'free' } });
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('runConformance', () => {
  it('resolves to a valid report without the key, printing nothing and leaving process.exitCode alone', async () => {
    // A mutant, so that a must fails inside the run: vitest then marks the hosting process's exit code.
    const mutant = VARIANTS.find((v) => v.name === 'default-page-10');
    const broken = await startReferenceServer(variantServerOptions(mutant, { keys: { [KEY]: 'free' } }));
    const stdout = vi.spyOn(process.stdout, 'write');
    const stderr = vi.spyOn(process.stderr, 'write');
    const exitCode = process.exitCode;
    try {
      const report = await runConformance({ baseUrl: broken.baseUrl, apiKey: KEY, plan: 'free', only: ['LIST', 'AUTH'], seed: 7 });
      expect(reportSchemaErrors(report)).toEqual([]);
      for (const secret of [KEY, ...nearMissesOf(KEY).map((miss) => nearMissOf(KEY, miss))]) expect(JSON.stringify(report)).not.toContain(secret);
      expect(report.requirements.find((r) => r.id === 'AUTH-002')?.status).toBe('pass');
      expect(report.target.keyFingerprint).toMatch(/^sha256:[0-9a-f]{12}$/);
      expect(report.seed).toBe(7);
      expect(report.requirements.filter((r) => r.status === 'fail').map((r) => r.id)).toEqual(['LIST-002']);
      expect(exitCodeOf(report)).toBe(1);
      expect(stdout).not.toHaveBeenCalled();
      expect(stderr).not.toHaveBeenCalled();
      expect(process.exitCode).toBe(exitCode);
    } finally {
      await broken.close();
    }
  });

  it.each<[string, ConformanceOptions, RegExp]>([
    ['a non-http URL', { baseUrl: 'ftp://example.test/v1', apiKey: 'k' }, /http or https/],
    ['a remote target without a key', { baseUrl: 'http://127.0.0.1:9/v1' }, /API key is required/],
    ['an unknown requirement', { only: ['NOPE-999'] }, /NOPE-999/],
    ['a budget of zero', { maxRequests: 0 }, /maxRequests must be an integer between 1/],
    ['a fractional timeout', { timeoutMs: 1.5 }, /timeoutMs must be an integer/],
    ['an unknown plan', { plan: 'gold' as ConformanceOptions['plan'] }, /--plan must be free, pro, business or custom:PER_MINUTE\/PER_DAY/],
    ['a malformed custom plan', { plan: 'custom:abc/1' as ConformanceOptions['plan'] }, /got "custom:abc\/1"/],
    ['a custom plan object with a day below its minute', { plan: { perMinute: 500, perDay: 100 } }, /daily quota \(100\) is below the per-minute limit \(500\)/],
    ['the daily quota with a smaller budget than it needs', { exhaustDailyQuota: true, plan: 'free', maxRequests: 1_000 }, /needs --max-requests of at least 1400/],
  ])('refuses %s with ConformanceUsageError (exitCode 2) before sending anything', async (_name, options, message) => {
    const before = server.requests;
    const error: unknown = await runConformance(options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConformanceUsageError);
    expect((error as ConformanceUsageError).exitCode).toBe(2);
    expect((error as Error).message).toMatch(message);
    expect(server.requests).toBe(before);
  });

  it('an AbortSignal stops the run: nothing more is sent, the report is halted (aborted), exit code 2', async () => {
    const controller = new AbortController();
    // Aborted as the 10th request arrives, by the server itself: the same moment of the run however fast the machine is.
    const aborting = await startReferenceServer({
      ...SHORT_WINDOWS,
      keys: { [KEY]: 'free' },
      behaviour: {
        finalize: (response, ctx) => {
          if (aborting.requests >= 10) controller.abort();
          return referenceBehaviour.finalize(response, ctx);
        },
      },
    });
    try {
      const report = await runConformance({ baseUrl: aborting.baseUrl, apiKey: KEY, plan: 'free', signal: controller.signal, seed: 7 });
      const sentByRun = aborting.requests;
      expect(report.halted?.reason).toBe('aborted');
      expect(exitCodeOf(report)).toBe(2);
      expect(reportSchemaErrors(report)).toEqual([]);
      expect(report.runErrors).toEqual([]);
      expect(report.requests).toBe(sentByRun);
      // A full run sends about 80; the abort came after 10, with at most a request or two in flight.
      expect(sentByRun).toBeLessThan(30);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(aborting.requests).toBe(sentByRun);
      const undecided = report.requirements.filter((r) => r.status === 'inconclusive');
      expect(undecided.length).toBeGreaterThan(10);
      expect(report.halted?.unjudged).toEqual(undecided.map((r) => r.id));
    } finally {
      await aborting.close();
    }
  });

  it('an abort whose reason is a signal\'s name is that signal\'s stop: halted interrupted, its exit code, the verdicts reached kept, the embedded server closed, the caller\'s own signal handler left alone', async () => {
    const controller = new AbortController();
    const own = (): void => undefined;
    process.on('SIGTERM', own);
    let requests = 0;
    let listenersDuringRun: unknown[] = [];
    try {
      // The embedded reference server: stopped once the run has sent 40 requests.
      const report = await runConformance({
        signal: controller.signal,
        seed: 7,
        progress: {
          onProgress: (event) => {
            requests = event.requests;
            if (requests < 40 || controller.signal.aborted) return;
            listenersDuringRun = process.listeners('SIGTERM');
            controller.abort('SIGTERM');
          },
        },
      });
      expect(reportSchemaErrors(report)).toEqual([]);
      expect(report.halted).toMatchObject({ reason: 'interrupted', signal: 'SIGTERM', message: 'the run was stopped (SIGTERM); nothing more was sent' });
      expect(exitCodeOf(report)).toBe(143);
      expect(report.verdict).not.toBe('conforms');
      expect(report.summary.pass).toBeGreaterThan(0);
      const stopped = report.requirements.filter((r) => r.reason === 'the run was stopped (SIGTERM) before this was judged').map((r) => r.id);
      expect(stopped.length).toBeGreaterThan(0);
      expect(report.halted?.unjudged).toEqual(stopped);
      // While the run went on, vitest's own handler (which ends the process on SIGTERM) was not there; the caller's was.
      expect(listenersDuringRun).toEqual([own]);
      // The embedded server ended with the run: its address refuses connections.
      await expect(fetch(`${report.target.baseUrl}/pets`)).rejects.toThrow();
    } finally {
      process.off('SIGTERM', own);
    }
  });

  it('a signal aborted before the start: no request, a halted report', async () => {
    const before = server.requests;
    const report = await runConformance({ baseUrl: server.baseUrl, apiKey: KEY, signal: AbortSignal.abort() });
    expect(server.requests).toBe(before);
    expect(report.halted?.reason).toBe('aborted');
    expect(report.requests).toBe(0);
    expect(exitCodeOf(report)).toBe(2);
  });
});

describe('resolveOptions: the plan and the budget', () => {
  it('takes a custom plan as a string or as { perMinute, perDay }, both as the canonical string', () => {
    expect(resolveOptions({ plan: 'custom:500/50000' }).plan).toBe('custom:500/50000');
    expect(resolveOptions({ plan: { perMinute: 500, perDay: 50_000 } }).plan).toBe('custom:500/50000');
    expect(resolveOptions({ plan: 'free' }).plan).toBe('free');
  });

  it('exhaustDailyQuota alone raises the budget to the day plus the run', () => {
    expect(resolveOptions({}).maxRequests).toBe(400);
    expect(resolveOptions({ exhaustDailyQuota: true }).maxRequests).toBe(1_400);
    expect(resolveOptions({ exhaustDailyQuota: true, plan: { perMinute: 500, perDay: 50_000 }, baseUrl: 'http://h.test/v1', apiKey: 'k' }).maxRequests).toBe(50_400);
    expect(resolveOptions({ exhaustDailyQuota: true, maxRequests: 5_000 }).maxRequests).toBe(5_000);
  });
});
