/**
 * `npm start` as a user runs it: the whole suite against the embedded reference server must pass,
 * exercise every requirement of the catalog, and write a report.json valid against its schema.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCatalog } from '../src/catalog.js';
import type { Report } from '../src/report/types.js';
import { runCli, type CliResult } from './support/cli.js';
import { reportSchemaErrors } from './support/report-schema.js';

/** Not exercised unless opted into (--exhaust-daily-quota): exhausting a daily quota would harm the key (see the catalog). */
const NOT_EXERCISED_BY_CHOICE = ['RATE-007'];

let result: CliResult;
let report: Report;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'pc-reference-'));
  result = await runCli(['--report-dir', dir, '--reporter', 'json']);
  report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report;
});

describe('the full run against the embedded reference server', () => {
  it('exits 0 with a pass verdict', () => {
    expect(result.stderr).toBe('');
    expect(report.runErrors).toEqual([]);
    expect(result.code).toBe(0);
    expect(report.verdict).toBe('pass');
  });

  it('writes a report.json valid against schemas/report.schema.json', () => {
    expect(reportSchemaErrors(report)).toEqual([]);
  });

  it('exercises every requirement of the catalog, and every one passes', () => {
    const ids = loadCatalog().requirements.map((r) => r.id);
    expect(report.requirements.map((r) => r.id).sort()).toEqual([...ids].sort());
    for (const r of report.requirements) {
      expect(r.tests.length, `${r.id} has no test`).toBeGreaterThan(0);
      // 'skipped' is the status of a choice until the verdict vocabulary (not-exercised) is merged.
      const expected = NOT_EXERCISED_BY_CHOICE.includes(r.id) ? 'skipped' : 'pass';
      expect({ id: r.id, status: r.status, reason: r.reason }).toEqual({ id: r.id, status: expected, reason: r.reason });
    }
  });

  it('records the run: requests, seed, created pets, evidence for passes', () => {
    expect(report.requests).toBeGreaterThan(60);
    expect(report.requests).toBeLessThanOrEqual(report.options.maxRequests);
    expect(report.createdPetIds.length).toBeGreaterThan(0);
    for (const r of report.requirements.filter((x) => x.status === 'pass')) {
      expect(r.evidence.length, `${r.id} passed without evidence`).toBeGreaterThan(0);
    }
  });

  it('prints a verdict line and the report path', () => {
    expect(result.stdout).toMatch(/0 fail/);
    expect(result.stdout).toMatch(/report: .*report\.json/);
  });
});
