/**
 * report.json's specification coverage as the run builds it: every sentence of the map, each
 * requirement it names with that requirement's status in the report, kept in step when a halt
 * changes statuses after the build.
 */
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../src/catalog.js';
import { loadSpecMap } from '../src/spec-map.js';
import { buildReport, type RunInfo, type TestOutcome } from '../src/report/build.js';
import { haltedReport } from '../src/api/halt.js';
import type { Report } from '../src/report/types.js';
import { reportSchemaErrors } from './support/report-schema.js';

const info: RunInfo = {
  tool: { name: 'petstore-conformance', version: '0.1.0' },
  target: { baseUrl: 'http://127.0.0.1:1/v1', embedded: false },
  seed: 1,
  runId: 'abc',
  keyMode: 'shared',
  startedAt: new Date('2026-01-01T00:00:00Z'),
  durationMs: 10,
  options: { readOnly: false, maxRequests: 400, timeoutMs: 10_000, only: [] },
  runErrors: [],
};

function outcome(requirement: string, status: TestOutcome['status']): TestOutcome {
  return { requirement, name: `${requirement} test`, status, evidence: [], observations: [] };
}

function statusesIn(report: Report): Map<string, string> {
  return new Map((report.specCoverage ?? []).flatMap((s) => (s.requirements ?? []).map((c) => [`${s.id} ${c.id}`, c.status])));
}

describe('specCoverage in report.json', () => {
  const report = buildReport(loadCatalog(), [outcome('ERR-002', 'fail'), outcome('MEDIA-001', 'pass')], info);

  it('lists every sentence of the map, with its text, requirements or reason', () => {
    expect(reportSchemaErrors(report)).toEqual([]);
    const map = loadSpecMap();
    expect(report.specCoverage?.map((s) => s.id)).toEqual(map.sentences.map((s) => s.id));
    expect(report.specCoverage?.find((s) => s.id === 'S7-06')).toEqual({ id: 'S7-06', section: '7', text: 'The `status` field of the Error body equals the HTTP status code.', requirements: [{ id: 'ERR-002', status: 'fail' }] });
    expect(report.specCoverage?.find((s) => s.id === 'S5-05')?.untestable?.kind).toBe('permissive');
    expect(report.specCoverage?.find((s) => s.id === 'S5-05')?.requirements).toBeUndefined();
  });

  it('gives each named requirement its status in the report', () => {
    const status = new Map(report.requirements.map((r) => [r.id, r.status]));
    for (const [key, st] of statusesIn(report)) expect(st, key).toBe(status.get(key.split(' ')[1]!));
    expect(statusesIn(report).get('S1-07 MEDIA-001')).toBe('pass');
    // No test reached it: inconclusive, as the requirement itself.
    expect(statusesIn(report).get('S8-10 RATE-005')).toBe('inconclusive');
  });

  it('follows the statuses a halt sets afterwards', () => {
    const halted = haltedReport(report, { reason: 'bad-key', message: 'the key was refused' }, ['ERR-002']);
    expect(halted.requirements.find((r) => r.id === 'MEDIA-001')?.status).toBe('not-exercised');
    expect(statusesIn(halted).get('S1-07 MEDIA-001')).toBe('not-exercised');
    expect(statusesIn(halted).get('S7-06 ERR-002')).toBe('inconclusive');
    expect(reportSchemaErrors(halted)).toEqual([]);
  });
});
