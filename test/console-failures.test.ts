/**
 * The console's failure block shows what summary.md shows: received and expected, what was sent, a
 * curl line, and, where the catalog knows a stack default that breaks the requirement, how stacks
 * fix it. Unknown flags get a "did you mean".
 */
import { describe, expect, it } from 'vitest';
import { renderSummary } from '../src/cli/terminal.js';
import { nearestFlag, parseCommandLine } from '../src/cli/args.js';
import { commonCausesOf, loadCatalog } from '../src/catalog.js';
import { exchange, finish, mixedReport, requirement } from './support/report-factory.js';
import type { Report } from '../src/report/types.js';

function withCreateFailure(): Report {
  const report = mixedReport();
  const created = exchange({
    seq: 9,
    request: { method: 'POST', url: 'https://staging.petstore.example/v1/pets', headers: {}, body: '{"name":"Rex","categoryId":9007199254740993}' },
    response: { status: 201, headers: {}, body: '{"id":1,"name":"Rex","categoryId":9007199254740992}', truncated: false },
    curl: "curl -sS -i -X POST --data-raw '{\"name\":\"Rex\",\"categoryId\":9007199254740993}' 'https://staging.petstore.example/v1/pets'",
  });
  const failing = requirement({
    id: 'CREATE-001',
    section: '4.2',
    status: 'fail',
    evidence: [
      { kind: 'violation', message: '2 kinds of valid NewPet mishandled: categoryId-2^53+1 (answered 201), categoryId-INT64_MAX (answered 201)' },
      { kind: 'violation', message: 'categoryId-2^53+1: Created pet does not echo the request: categoryId: received 9007199254740992, expected 9007199254740993', exchange: created },
      { kind: 'violation', message: 'categoryId-INT64_MAX: Received 201 for a valid NewPet / Expected 201 with the categoryId', exchange: { ...created, seq: 10 } },
      { kind: 'violation', message: 'categoryId-INT64_MIN: Received 500 for a valid NewPet / Expected 201', exchange: { ...created, seq: 11 } },
    ],
  });
  return finish({ ...report, requirements: [...report.requirements.filter((r) => r.id !== 'CREATE-001'), failing] });
}

describe('the console failure block', () => {
  const text = renderSummary(withCreateFailure(), [], { colour: false });
  const block = text.slice(text.indexOf('Failures:')).slice(text.slice(text.indexOf('Failures:')).indexOf('  CREATE-001'));

  it('gives the summary line, then each shown violation with received, expected, what was sent and a curl line', () => {
    expect(block).toContain('2 kinds of valid NewPet mishandled: categoryId-2^53+1 (answered 201)');
    expect(block).toContain('categoryId: received 9007199254740992, expected 9007199254740993');
    expect(block).toMatch(/categoryId-INT64_MAX:\n\s+received: 201 for a valid NewPet\n\s+expected: 201 with the categoryId/);
    expect(block).toContain('sent:      POST https://staging.petstore.example/v1/pets');
    expect(block).toContain("reproduce: curl -sS -i -X POST --data-raw '{\"name\":\"Rex\",\"categoryId\":9007199254740993}'");
    expect(block).toContain('… and 1 more (summary.md and report.json list each)');
  });

  it('says how stacks fix the common cause the catalog knows', () => {
    expect(block).toMatch(/common cause: JSON integers parsed into doubles/);
    expect(block).toMatch(/how stacks fix it: Parse integers exactly/);
  });
});

describe('common causes in the catalog', () => {
  it('each names a requirement, and its pattern compiles and matches the message its check writes', () => {
    const withCauses = loadCatalog().requirements.filter((r) => (r.commonCauses ?? []).length > 0);
    expect(withCauses.map((r) => r.id).sort()).toEqual(['AUTH-002', 'CREATE-001', 'CREATE-003', 'RATE-001']);
    expect(commonCausesOf('CREATE-003', ['status-number: Received 201 for an invalid NewPet / Expected 400'])).toHaveLength(1);
    expect(commonCausesOf('CREATE-003', ['categoryId-fraction: Received 201 for an invalid NewPet / Expected 400'])[0]?.fix).toContain('ACCEPT_FLOAT_AS_INT');
    expect(commonCausesOf('AUTH-002', ['listPets with the bearer token constructor: received 200 / expected 401'])).toHaveLength(1);
    expect(commonCausesOf('RATE-001', ['Received no X-RateLimit-Remaining / Expected a non-negative integer'])).toHaveLength(1);
    expect(commonCausesOf('CREATE-001', ['empty-name: Received 400 for a valid NewPet / Expected 201'])).toHaveLength(1);
    expect(commonCausesOf('CREATE-001', ['long-unicode-name: Received 500 for a valid NewPet / Expected 201'])).toEqual([]);
  });
});

describe('an unknown flag', () => {
  it('gets the flag it most likely meant', () => {
    expect(nearestFlag('--baseurl')).toBe('--base-url');
    expect(nearestFlag('--sed')).toBe('--seed');
    expect(nearestFlag('--dedicated')).toBe('--dedicated-key');
    expect(nearestFlag('--frobnicate')).toBeUndefined();
    expect(() => parseCommandLine(['--baseurl', 'http://x/v1'], {})).toThrow("Unknown option '--baseurl'; did you mean --base-url? (see --help)");
  });
});
