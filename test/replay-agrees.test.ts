/**
 * A replay says one thing everywhere: the console's per-requirement verdict, report.json's status
 * of that requirement, its verdict line, summary.md, report.html and junit.xml agree, and the
 * verdict line is the replay's own (what it replayed, re-sent and judged), never "CONFORMS" on the
 * few requirements a replay re-runs.
 */
import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { alignedWindowLimiter, startReferenceServer } from '../fixtures/reference-server/index.js';
import { variantServerOptions } from '../fixtures/variants/index.js';
import { DESELECTED, NOT_REPLAYED } from '../src/conformance/reasons.js';
import { renderJunit } from '../src/report/render/junit.js';
import { renderMarkdown } from '../src/report/render/markdown.js';
import { REPLAY_WORDS, REPLAYED_STATUSES } from '../src/report/replay-banner.js';
import { specCoverageOf } from '../src/report/spec-coverage.js';
import type { Report, RequirementResult } from '../src/report/types.js';
import { VERDICT_WORDS, verdictLineWithin } from '../src/report/verdict-line.js';
import { asReplayReport, replayOfRecord } from '../src/replay/replay-of.js';
import { replayExitCode, statusOfReplay, type RequirementReplay, type ReplayVerdict } from '../src/replay/verdict.js';
import { finish, requirement } from './support/report-factory.js';
import { runCli } from './support/cli.js';
import { tempDirs } from './support/temp-dirs.js';
import { variantNamed, VARIANT_SEED } from './support/variant-run.js';

const tempDir = tempDirs();

/** The testcase of `id` in junit.xml: whether it holds a <failure>. */
function junitFails(xml: string, id: string): boolean {
  const testcase = new RegExp(`<testcase name="${id} [^>]*>([\\s\\S]*?)</testcase>`).exec(xml);
  if (testcase === null) throw new Error(`junit.xml has no testcase ${id}`);
  return (testcase[1] ?? '').includes('<failure');
}

/** No conformance verdict word starts a replay's line: it judged only what failed. */
function expectNoRunVerdict(line: string): void {
  for (const word of Object.values(VERDICT_WORDS)) expect(line.startsWith(`${word}:`), line).toBe(false);
  expect(line).toMatch(/^REPLAY, /);
}

/**
 * The re-run's report of a replay of a RATE-002 failure: RATE-002 passed there (the re-run sends
 * only a few requests), and LIST-004 ran beside it as the sender of the exchanges behind it.
 */
function rerunReport(rate002: RequirementResult['status']): Report {
  const requirements = [
    requirement({ id: 'LIST-004', section: '4.1' }),
    requirement({ id: 'CREATE-001', section: '4.2', status: 'not-exercised', reason: DESELECTED }),
    requirement({ id: 'RATE-002', section: '8', status: rate002, ...(rate002 === 'inconclusive' ? { reason: 'no window to judge' } : {}) }),
  ];
  const base = finish({
    schemaVersion: 2,
    tool: { name: 'petstore-conformance', version: '0.1.0' },
    spec: { title: 'Pet Store Service Interface Specification', version: '1.0.0' },
    target: { baseUrl: 'http://127.0.0.1:1/v1', embedded: false },
    seed: 7,
    runId: 'r1',
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 1000,
    requests: 21,
    rateLimitWaitMs: 0,
    options: { readOnly: false, maxRequests: 400, timeoutMs: 10_000, only: ['RATE-002', 'LIST-004'] },
    requirements,
    observations: [],
    notTested: [],
    createdPetIds: [],
    runErrors: [],
    specCoverage: specCoverageOf([{ id: 'S8-01', section: '8', text: 'Remaining falls.', requirements: ['RATE-002'] }], requirements),
  });
  return base;
}

function replayed(rate002: RequirementResult['status'], verdict: ReplayVerdict): { report: Report; results: RequirementReplay[] } {
  const details = verdict === 'still failing' ? ['re-sent #59 (GET /pets/1) x6, #61 (GET /pets/2) x6, #59: X-RateLimit-Remaining stayed at 59'] : ['re-run: pass'];
  const results: RequirementReplay[] = [{ id: 'RATE-002', level: 'must', verdict, details }];
  const record = replayOfRecord({ digest: 'a'.repeat(64), path: 'report.json', results, resent: new Map([['RATE-002', [{}]]]), leftOut: new Map(), exchangesResent: 13 });
  return { report: asReplayReport(rerunReport(rate002), record, results), results };
}

describe('a replay report records the replay verdict of each replayed requirement', () => {
  it('every replay verdict has one status, read back as the same word', () => {
    for (const status of REPLAYED_STATUSES) expect(statusOfReplay(REPLAY_WORDS[status])).toBe(status);
  });

  it('still failing on the re-sent sequence while the re-run passed: fail in report.json, JUnit and summary.md, and a STILL FAILING line', () => {
    const { report, results } = replayed('pass', 'still failing');
    const rate = report.requirements.find((r) => r.id === 'RATE-002');
    expect(rate?.status).toBe('fail');
    expect(rate?.evidence.filter((e) => e.kind === 'violation').map((e) => e.message)).toEqual([`replay: ${results[0]?.details[0] ?? ''}`]);
    expect(report.verdict).toBe('does-not-conform');
    expect(replayExitCode(results)).toBe(1);
    expect(report.summary).toMatchObject({ pass: 1, fail: 1, notExercised: 1 });
    expect(report.specCoverage?.[0]?.requirements).toEqual([{ id: 'RATE-002', status: 'fail' }]);
    expectNoRunVerdict(report.verdictLine);
    expect(report.verdictLine).toBe(
      'REPLAY, STILL FAILING: 1 still failing (RATE-002) of 1 replayed; 13 exchanges re-sent; re-run beside them: 1 pass (LIST-004); 1 not replayed',
    );
    // The console fits the same line to its width from the same facts, the replayed requirement named at every width.
    expect(verdictLineWithin(report, 1000)).toBe(report.verdictLine);
    expect(verdictLineWithin(report, 70)).toBe('REPLAY, STILL FAILING: 1 still failing (RATE-002) of 1 replayed');
    expect(junitFails(renderJunit(report), 'RATE-002')).toBe(true);
    expect(junitFails(renderJunit(report), 'LIST-004')).toBe(false);
    expect(renderMarkdown(report)).toContain(report.verdictLine);
    expect(report.requirements.find((r) => r.id === 'CREATE-001')?.reason).toBe(NOT_REPLAYED);
  });

  it('could not tell while the re-run passed: inconclusive with the reason, a COULD NOT TELL line, exit 2', () => {
    const { report, results } = replayed('pass', 'could not tell');
    const rate = report.requirements.find((r) => r.id === 'RATE-002');
    expect(rate?.status).toBe('inconclusive');
    expect(rate?.reason).toBe('replay could not tell: re-run: pass');
    expect(report.verdict).toBe('not-verified');
    expect(replayExitCode(results)).toBe(2);
    expect(report.verdictLine).toMatch(/^REPLAY, COULD NOT TELL: 1 could not tell \(RATE-002\) of 1 replayed;/);
  });

  it('fixed: pass, and a FIXED line that names what was replayed, never CONFORMS', () => {
    const { report, results } = replayed('pass', 'fixed');
    expect(report.requirements.find((r) => r.id === 'RATE-002')?.status).toBe('pass');
    expect(report.verdict).toBe('conforms');
    expect(replayExitCode(results)).toBe(0);
    expectNoRunVerdict(report.verdictLine);
    expect(report.verdictLine).toMatch(/^REPLAY, FIXED: 1 fixed \(RATE-002\) of 1 replayed;/);
  });
});

interface ReplayOutput {
  /** The run's own report.json, the record the replay read. */
  run: Report;
  stdout: string;
  code: number | null;
  report: Report;
  junit: string;
  markdown: string;
  html: string;
  results: RequirementReplay[];
}

/** A run of the variant on the reference's aligned windows of `windowSeconds`, and its replay against the same server. */
async function runAndReplay(name: string, windowSeconds: number): Promise<ReplayOutput> {
  const variant = variantNamed(name);
  const server = await startReferenceServer(variantServerOptions(variant, { windowSeconds, limiter: alignedWindowLimiter }));
  try {
    const plan = variant.plan ?? 'free';
    const env = { PETSTORE_API_KEY: server.keys[plan] };
    const common = ['--base-url', server.baseUrl, '--plan', plan];
    const dir = await tempDir(`agree-run-${name}`);
    const ran = await runCli([...common, '--reporter', 'json', '--seed', String(VARIANT_SEED), '--report-dir', dir], env);
    expect(ran.code, ran.stderr).toBe(1);
    const out = await tempDir(`agree-replay-${name}`);
    const replay = await runCli(['replay', join(dir, 'report.json'), ...common, '--reporter', 'json,junit,markdown,html', '--report-dir', out], env);
    const read = (file: string): Promise<string> => readFile(join(out, file), 'utf8');
    return {
      run: JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report,
      stdout: replay.stdout,
      code: replay.code,
      report: JSON.parse(await read('report.json')) as Report,
      junit: await read('junit.xml'),
      markdown: await read('summary.md'),
      html: await read('report.html'),
      results: (JSON.parse(await read('replay.json')) as { results: RequirementReplay[] }).results,
    };
  } finally {
    await server.close();
  }
}

describe('replay of a RATE-002 failure at 3 s windows: the console, report.json, summary.md, report.html and junit.xml agree', () => {
  // remaining-frozen: the re-run sends too few requests to show a Remaining that stands still; the re-sent sequences show it.
  for (const name of ['limits-per-operation', 'remaining-frozen']) {
    it(name, async () => {
      const out = await runAndReplay(name, 3);
      expect(out.results.map((r) => r.id)).toEqual(['RATE-002']);
      // The replay judges by the run's own rules (the rise rule, remaining-rise.ts): against the same
      // server the run failed, it never says fixed.
      expect(out.run.requirements.find((r) => r.id === 'RATE-002')?.status).toBe('fail');
      expect(out.results[0]?.verdict, out.results[0]?.details.join('; ')).not.toBe('fixed');
      for (const r of out.results) {
        const status = statusOfReplay(r.verdict);
        expect(out.stdout).toMatch(new RegExp(`\\n  ${r.id}\\s+${r.verdict}\\n`));
        expect(out.report.requirements.find((x) => x.id === r.id)?.status, `${r.id} ${r.verdict}`).toBe(status);
        expect(junitFails(out.junit, r.id)).toBe(status === 'fail');
      }
      expect(out.code).toBe(replayExitCode(out.results));
      expectNoRunVerdict(out.report.verdictLine);
      expect(out.report.verdictLine).toMatch(/^REPLAY, [A-Z ]+: 1 (still failing|fixed|could not tell) \(RATE-002\) of 1 replayed; \d+ exchanges? re-sent;/);
      // The console's line fits its 100 columns uncut, and names the replayed requirement.
      const consoleLine = verdictLineWithin(out.report, 100);
      expect(out.stdout.split('\n')).toContain(consoleLine);
      expect(consoleLine).not.toMatch(/…$/);
      expect(consoleLine).toContain('(RATE-002) of 1 replayed');
      expect(out.junit).toContain(`name="verdictLine" value="${out.report.verdictLine}"`);
      expect(out.markdown).toContain(out.report.verdictLine);
      expect(out.html).toContain(out.report.verdictLine);
      for (const word of Object.values(VERDICT_WORDS)) expect(out.stdout + out.markdown + out.html).not.toContain(`${word}: `);
    });
  }
});
