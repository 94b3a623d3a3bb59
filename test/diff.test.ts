/**
 * `diff`: the pure comparison on pairs of reports (regression, fix, no change, target differs),
 * its renderings, and the CLI's exit codes (1 on a must regression, 2 on unreadable input).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { diffExitCode, diffReports, hasRegression, incomparable } from '../src/report/diff.js';
import { renderDiffMarkdown, renderDiffText } from '../src/report/render/diff.js';
import type { Report, RequirementResult } from '../src/report/types.js';
import { finish, mixedReport, passingReport } from './support/report-factory.js';
import { runCli } from './support/cli.js';

/** The report with one requirement's result changed, summary and verdict recomputed. */
function withRequirement(report: Report, id: string, change: Partial<RequirementResult>): Report {
  return finish({ ...report, requirements: report.requirements.map((r) => (r.id === id ? { ...r, ...change } : r)) });
}

const failWith = (message: string): Partial<RequirementResult> => ({ status: 'fail', evidence: [{ kind: 'violation', message }] });

describe('diffReports', () => {
  it('finds nothing between a report and itself', () => {
    const diff = diffReports(mixedReport(), mixedReport());
    expect(diff).toEqual({ regressed: [], lost: [], fixed: [], otherStatus: [], levelChanged: [], evidenceChanged: [], context: [] });
    expect(diffExitCode(diff)).toBe(0);
    expect(renderDiffText(diff)).toBe('NO REGRESSION; 0 fixed; 0 lost\n');
  });

  it('reports pass → fail of a must-requirement as a regression (exit 1)', () => {
    const old = passingReport();
    const diff = diffReports(old, withRequirement(old, 'LIST-003', failWith('limit=7 returned 1 pet')));
    expect(diff.regressed.map((c) => [c.id, c.before, c.after])).toEqual([['LIST-003', 'pass', 'fail']]);
    expect(hasRegression(diff)).toBe(true);
    expect(diffExitCode(diff)).toBe(1);
    expect(renderDiffText(diff)).toMatch(/^REGRESSION: 1 must-requirement\(s\) went from pass to fail/);
    expect(renderDiffText(diff)).toMatch(/Regressed \(pass → fail\):\n {2}requirement +level +status +title +now\n {2}LIST-003 +must +pass → fail +limit between 1 and 100 is honoured +limit=7 returned 1 pet\n/);
  });

  it('shows a should-requirement going pass → fail as a warning that does not fail the gate', () => {
    const old = passingReport();
    const diff = diffReports(old, withRequirement(old, 'GET-005', failWith('no Sunset header')));
    expect(diff.regressed.map((c) => c.id)).toEqual(['GET-005']);
    expect(diffExitCode(diff)).toBe(0);
    expect(renderDiffText(diff)).toMatch(/NO REGRESSION; 1 should-requirement\(s\) regressed \(warnings\)/);
    expect(renderDiffText(diff)).toMatch(/GET-005 +should \(warning\)/);
  });

  it('lists a fix, and pass → inconclusive as lost rather than regressed', () => {
    const old = withRequirement(passingReport(), 'PET-001', failWith('/id must be integer'));
    const now = withRequirement(passingReport(), 'LIST-001', { status: 'inconclusive', reason: 'budget exhausted' });
    const diff = diffReports(old, now);
    expect(diff.fixed.map((c) => [c.id, c.before, c.after])).toEqual([['PET-001', 'fail', 'pass']]);
    expect(diff.lost.map((c) => [c.id, c.before, c.after, c.detail])).toEqual([['LIST-001', 'pass', 'inconclusive', 'budget exhausted']]);
    expect(diff.regressed).toEqual([]);
    expect(diffExitCode(diff)).toBe(0);
  });

  it('compares statuses as strings, so a renamed status is a change but not a regression', () => {
    // Whichever of the two words this version's type allows, the other comes from an older or newer report.
    const withStatus = (status: string): Report => {
      const report = passingReport();
      return { ...report, requirements: report.requirements.map((r) => (r.id === 'AUTH-001' ? ({ ...r, status, reason: 'deselected by --only' } as RequirementResult) : r)) };
    };
    const old = withStatus('skipped');
    const now = withStatus('not-exercised');
    const diff = diffReports(old, now);
    expect(diff.otherStatus.map((c) => [c.id, c.before, c.after])).toEqual([['AUTH-001', 'skipped', 'not-exercised']]);
    expect(diffExitCode(diff)).toBe(0);
  });

  it('lists requirements present in only one report, level changes and changed violations', () => {
    const old = withRequirement(passingReport(), 'LIST-003', failWith('limit=7 returned 1 pet'));
    const now = finish({
      ...withRequirement(old, 'LIST-003', failWith('limit=9 returned 2 pets')),
      requirements: [
        ...withRequirement(old, 'LIST-003', failWith('limit=9 returned 2 pets')).requirements.filter((r) => r.id !== 'AUTH-001').map((r) => (r.id === 'GET-005' ? { ...r, level: 'must' as const } : r)),
      ],
    });
    const diff = diffReports(old, now);
    expect(diff.otherStatus.map((c) => [c.id, c.before, c.after])).toEqual([['AUTH-001', 'pass', undefined]]);
    expect(diff.levelChanged).toEqual([{ id: 'GET-005', before: 'should', after: 'must' }]);
    expect(diff.evidenceChanged).toEqual([{ id: 'LIST-003', level: 'must', gone: ['limit=7 returned 1 pet'], added: ['limit=9 returned 2 pets'] }]);
    expect(renderDiffText(diff)).toMatch(/AUTH-001 +must +pass → \(absent\)/);
  });

  it('says when the target, plan, tool or spec differ', () => {
    const old = passingReport();
    const now: Report = {
      ...old,
      target: { ...old.target, baseUrl: 'https://prod.petstore.example/v1', plan: 'pro' },
      tool: { ...old.tool, version: '0.2.0' },
      spec: { ...old.spec, version: '1.1.0' },
    };
    const diff = diffReports(old, now);
    expect(diff.context.map((c) => c.field)).toEqual(['target.baseUrl', 'target.plan', 'tool', 'spec']);
    expect(diff.context[0]).toEqual({ field: 'target.baseUrl', before: 'https://staging.petstore.example/v1', after: 'https://prod.petstore.example/v1' });
    expect(diffExitCode(diff)).toBe(0);
  });

  it('says when one run took the key as dedicated and the other as shared (a report without a key mode reads as shared)', () => {
    const old = passingReport();
    const { keyUse: _dropped, ...legacy } = old;
    const dedicated: Report = { ...old, keyUse: { mode: 'dedicated' } };
    expect(diffReports(legacy, dedicated).context).toEqual([{ field: 'keyUse.mode', before: 'shared', after: 'dedicated' }]);
    expect(diffReports({ ...old, keyUse: { mode: 'shared', otherConsumption: 'another client used 3' } }, legacy).context).toEqual([]);
  });

  it('renders Markdown tables whose cells cannot break the table', () => {
    const old = passingReport();
    const diff = diffReports(old, withRequirement(old, 'LIST-003', { ...failWith('a|b'), title: 'pipes | in | title' }));
    const md = renderDiffMarkdown(diff);
    expect(md).toContain('### Regressed (pass → fail)');
    expect(md).toContain('| requirement | level | status | title | now |');
    expect(md).toContain('| LIST-003 | must | pass → fail | pipes \\| in \\| title | a\\|b |');
  });
});

describe('petstore-conformance diff', () => {
  let dir: string;
  let oldFile: string;
  let newFile: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pc-diff-'));
    oldFile = join(dir, 'old.json');
    newFile = join(dir, 'new.json');
    const old = passingReport();
    await writeFile(oldFile, JSON.stringify(old));
    await writeFile(newFile, JSON.stringify(withRequirement(old, 'LIST-003', failWith('limit=7 returned 1 pet'))));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('exits 1 on a regression and prints the table', async () => {
    const result = await runCli(['diff', oldFile, newFile]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/LIST-003 +must +pass → fail/);
  });

  it('exits 0 when nothing regressed (the fixed direction)', async () => {
    const result = await runCli(['diff', newFile, oldFile]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Fixed \(fail → pass\):/);
  });

  it('writes Markdown to --output', async () => {
    const out = join(dir, 'diff.md');
    const result = await runCli(['diff', oldFile, newFile, '--format', 'markdown', '--output', out]);
    expect(result.code).toBe(1);
    expect(await readFile(out, 'utf8')).toMatch(/^## Conformance report diff\n/);
  });

  it('refuses to compare a replay with a run, in one line with exit 2, either way round; two replays compare', async () => {
    const replayOf = { digest: 'ab'.repeat(32), path: 'conformance-report/report.json', requirements: ['LIST-003'], findingsResent: [], cannotDecide: [] };
    const replayFile = join(dir, 'replay.json');
    await writeFile(replayFile, JSON.stringify({ ...passingReport(), replayOf }));
    for (const args of [['diff', newFile, replayFile], ['diff', replayFile, newFile]]) {
      const result = await runCli(args);
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/cannot compare a (run|replay).* with a (replay|run)/);
    }
    expect(incomparable(passingReport(), passingReport())).toBeUndefined();
    const replays = await runCli(['diff', replayFile, replayFile]);
    expect(replays.code).toBe(0);
  });

  it('exits 2 in one line on unreadable input and on bad usage', async () => {
    for (const args of [['diff', oldFile, join(dir, 'missing.json')], ['diff', oldFile], ['diff', oldFile, newFile, '--format', 'html']]) {
      const result = await runCli(args);
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
