import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RENDERERS } from '../src/report/renderers.js';
import { earlOutcome } from '../src/report/render/earl.js';
import { renderEarl } from '../src/report/render/earl.js';
import { renderHtml } from '../src/report/render/html.js';
import { renderJunit } from '../src/report/render/junit.js';
import { renderMarkdown } from '../src/report/render/markdown.js';
import { loadReport } from '../src/report/load.js';
import type { Report } from '../src/report/types.js';
import { BIG_BODY_CHARS, CONTROL_CHARS, SAMPLE_REPORTS, SCRIPT_BREAKOUT, hostileReport, mixedReport, passingReport } from './support/report-factory.js';
import { reportSchemaErrors } from './support/report-schema.js';
import { childrenNamed, parseXml, type XmlElement } from './support/xml.js';
import { xsdErrors } from './support/xsd.js';
import { tempDirs } from './support/temp-dirs.js';

const XSD = resolve(import.meta.dirname, '../schemas/junit.xsd');
const tempDir = tempDirs();
const samples = Object.entries(SAMPLE_REPORTS).map(([name, make]) => ({ name, report: make() }));

/** Characters no renderer may let through: XML 1.0 forbids them, HTML calls them parse errors. */
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('sample reports', () => {
  it.each(samples)('$name is a valid report.json', ({ report }) => {
    expect(reportSchemaErrors(report)).toEqual([]);
  });

  it('the committed fixture is the factory\'s mixed report and loads as a report', async () => {
    await expect(`${JSON.stringify(mixedReport(), null, 2)}\n`).toMatchFileSnapshot('fixtures-report/mixed.report.json');
    expect(await loadReport(resolve(import.meta.dirname, 'fixtures-report/mixed.report.json'))).toEqual(mixedReport());
  });

  it('a report of schema version 1 is refused with a line saying to run again', async () => {
    const file = join(await tempDir('report-render'), 'v1.report.json');
    await writeFile(file, JSON.stringify({ ...mixedReport(), schemaVersion: 1, verdict: 'fail' }));
    await expect(loadReport(file)).rejects.toThrow(/schema version 1 .* run again to get version 2/);
  });

  it('every format is wired in and renders every sample', async () => {
    for (const { report } of samples) {
      for (const renderer of Object.values(RENDERERS)) expect((await renderer.render(report)).length).toBeGreaterThan(100);
    }
  });

  it.each(samples)('$name renders with no unprintable characters in any format', async ({ report }) => {
    for (const render of [renderJunit, renderMarkdown, renderHtml]) expect(UNPRINTABLE.exec(await render(report))).toBeNull();
  });

  it.each(samples)('$name: the specification coverage carries this run\'s status of each requirement it names', ({ report }) => {
    const status = new Map(report.requirements.map((r) => [r.id, r.status]));
    const named = (report.specCoverage ?? []).flatMap((s) => s.requirements ?? []);
    expect(named.length).toBeGreaterThan(0);
    for (const c of named) expect(c.status, c.id).toBe(status.get(c.id));
  });

  it('a report written before the specification map renders without the appendix', async () => {
    const { specCoverage: _dropped, ...older } = mixedReport();
    expect(reportSchemaErrors(older)).toEqual([]);
    expect(renderMarkdown(older)).not.toContain('Specification coverage');
    expect(await renderHtml(older)).not.toContain('Specification coverage');
    expect(renderEarl(older)).not.toContain('dct:source');
  });

  it('renderers are pure: same report, same text', async () => {
    for (const render of [renderJunit, renderMarkdown, renderHtml, renderEarl]) expect(await render(mixedReport())).toBe(await render(mixedReport()));
  });
});

function suitesOf(root: XmlElement): XmlElement[] {
  return childrenNamed(root, 'testsuite');
}

function attrNumber(node: XmlElement, name: string): number {
  const value = node.attributes[name];
  if (value === undefined) throw new Error(`<${node.name}> has no ${name}`);
  return Number(value);
}

describe('junit.xml', () => {
  it.each(samples)('$name validates against schemas/junit.xsd', async ({ report }) => {
    await expect(xsdErrors(renderJunit(report), XSD)).resolves.toEqual([]);
  });

  it('the XSD check rejects a junit.xml the schema forbids', async () => {
    const broken = renderJunit(mixedReport()).replace(/<testsuite /, '<testsuite bogus="1" ');
    const errors = await xsdErrors(broken, XSD);
    expect(errors.join('\n')).toMatch(/bogus/);
  });

  it.each(samples)('$name: counts equal the report summary', ({ report }) => {
    const root = parseXml(renderJunit(report));
    expect(root.name).toBe('testsuites');
    const requirementSuites = suitesOf(root).filter((s) => s.attributes.name !== 'run');
    const cases = requirementSuites.flatMap((s) => childrenNamed(s, 'testcase'));
    const s = report.summary;
    expect(cases).toHaveLength(report.requirements.length);
    expect(requirementSuites.reduce((n, suite) => n + attrNumber(suite, 'tests'), 0)).toBe(s.pass + s.fail + s.inconclusive + s.notExercised);
    expect(requirementSuites.reduce((n, suite) => n + attrNumber(suite, 'failures'), 0)).toBe(s.fail);
    expect(requirementSuites.reduce((n, suite) => n + attrNumber(suite, 'skipped'), 0)).toBe(s.inconclusive + s.notExercised);
    expect(cases.filter((c) => childrenNamed(c, 'failure').length > 0)).toHaveLength(s.fail);
    expect(cases.filter((c) => childrenNamed(c, 'skipped').length > 0)).toHaveLength(s.inconclusive + s.notExercised);
    expect(cases.flatMap((c) => childrenNamed(c, 'failure')).filter((f) => f.attributes.type === 'warning')).toHaveLength(s.warnings);
    // Run errors are one errored testcase of their own, so CI shows them.
    expect(attrNumber(root, 'errors')).toBe(report.runErrors.length > 0 ? 1 : 0);
    expect(attrNumber(root, 'tests')).toBe(report.requirements.length + (report.runErrors.length > 0 ? 1 : 0));
    expect(attrNumber(root, 'failures')).toBe(s.fail);
  });

  it('one suite per section, named "§ n title", with the run properties', () => {
    const report = mixedReport();
    const root = parseXml(renderJunit(report));
    const names = suitesOf(root).map((s) => s.attributes.name);
    expect(names).toEqual(['§ 1 What the service does', '§ 2 Resources and their fields', '§ 4.1 List animals', '§ 4.2 Add an animal', '§ 4.3 Get an animal (deprecated)', '§ 4.4 Orders listing', '§ 5 Authentication', '§ 8 Limits', 'run']);
    const [first] = suitesOf(root);
    const props = Object.fromEntries(childrenNamed(childrenNamed(first as XmlElement, 'properties')[0] as XmlElement, 'property').map((p) => [p.attributes.name, p.attributes.value]));
    expect(props).toMatchObject({ 'tool.version': '0.1.0', target: report.target.baseUrl, seed: String(report.seed), runId: report.runId, verdict: 'does-not-conform', verdictLine: report.verdictLine, complete: 'false' });
  });

  it('testcases carry the id, section and title, a classname CI tools keep whole, and the verdict details', () => {
    const root = parseXml(renderJunit(mixedReport()));
    const cases = new Map(suitesOf(root).flatMap((s) => childrenNamed(s, 'testcase')).map((c) => [c.attributes.name?.split(' ')[0], c]));
    const list003 = cases.get('LIST-003');
    expect(list003?.attributes).toMatchObject({ name: 'LIST-003 (§ 4.1) limit between 1 and 100 is honoured', classname: 'petstore.s4_1' });
    expect(cases.get('AUTH-001')?.attributes.classname).toBe('petstore.s5');
    const failure = childrenNamed(list003 as XmlElement, 'failure')[0];
    expect(failure?.attributes).toMatchObject({ type: 'must', message: 'limit=7 returned 1 pet while 40 are available' });
    expect(failure?.text).toContain('GET https://staging.petstore.example/v1/pets?limit=7');
    expect(failure?.text).toContain('response: 200');
    expect(failure?.text).toContain("curl -sS -i -H \"Authorization: Bearer $PETSTORE_API_KEY\" 'https://staging.petstore.example/v1/pets?limit=7'");
    expect(failure?.text).toContain('counterexample: [7]');
    expect(failure?.text).toContain('seed: 1234567, path: 3:1:0');

    const pet001 = childrenNamed(cases.get('PET-001') as XmlElement, 'failure')[0];
    expect(pet001?.attributes.message).toBe('/id must be integer (got "7") (+1 more)');
    expect(pet001?.text).toContain('/status must be equal to one of the allowed values');

    expect(childrenNamed(cases.get('CREATE-003') as XmlElement, 'failure')[0]?.text).toContain('response: no response (UND_ERR_HEADERS_TIMEOUT');
    const warning = childrenNamed(cases.get('GET-005') as XmlElement, 'failure')[0];
    expect(warning?.attributes).toMatchObject({ type: 'warning', message: 'warning: no Deprecation header on GET /pets/{id}' });
    expect(childrenNamed(cases.get('LIST-002') as XmlElement, 'skipped')[0]?.attributes.message).toBe('inconclusive: the store holds 3 pets and writes are disabled (--read-only); 21 are needed');
    expect(childrenNamed(cases.get('CREATE-001') as XmlElement, 'skipped')[0]?.attributes.message).toBe('not exercised: deselected by --only');
    expect(childrenNamed(cases.get('RATE-007') as XmlElement, 'skipped')[0]?.attributes.message).toMatch(/^not exercised by choice: .*opt in with --exhaust-daily-quota/);
    expect(childrenNamed(cases.get('LIST-004') as XmlElement, 'failure')).toHaveLength(0);
  });

  it('hostile text survives as text: escaped, control characters made visible, XML stays well-formed', () => {
    const xml = renderJunit(hostileReport());
    const root = parseXml(xml);
    expect(xml).not.toContain('<img');
    expect(xml).not.toContain(']]>');
    const err001 = suitesOf(root).flatMap((s) => childrenNamed(s, 'testcase')).find((c) => c.attributes.name?.startsWith('ERR-001'));
    const failure = childrenNamed(err001 as XmlElement, 'failure')[0];
    expect(failure?.attributes.message).toContain(SCRIPT_BREAKOUT);
    expect(failure?.attributes.message).toContain(']]>');
    expect(failure?.attributes.message).toContain('\\u0000\\u0001');
    expect(failure?.attributes.message).toContain('\t\n\u000B'.replace('\u000B', '\\u000B'));
    expect(failure?.attributes.message).toContain('🐶🐈 \\uD800 end');
    // Long bodies are cut; report.json keeps them.
    expect(xml.length).toBeLessThan(BIG_BODY_CHARS);
  });
});

describe('summary.md', () => {
  it('matches the committed snapshot', async () => {
    await expect(renderMarkdown(mixedReport())).toMatchFileSnapshot('__snapshots__/summary-mixed.md');
    await expect(renderMarkdown(passingReport())).toMatchFileSnapshot('__snapshots__/summary-passing.md');
  });

  it('states the verdict and the counts in words', () => {
    const md = renderMarkdown(mixedReport());
    expect(md).toContain(`**${mixedReport().verdictLine}**`);
    expect(md).toContain('**DOES NOT CONFORM: 4 of 12 requirements fail (3 must, 1 should); 1 requirement inconclusive (LIST-002); the run reported 1 error;');
    expect(md).toContain('| Pass | Fail | Inconclusive | Not exercised | Warnings |');
    expect(md).toContain('| 4 | 4 | 1 | 3 | 1 |');
    expect(md).toContain('Not complete: some requirements meant to run could not be told (inconclusive).');
    expect(md).toContain('## Not exercised');
    expect(md).toContain('- RATE-007: not exercised by choice:');
    const passing = renderMarkdown(passingReport());
    expect(passing).toContain('**CONFORMS:');
    expect(passing).toContain('Complete: every requirement meant to run got pass or fail.');
    expect(md).not.toMatch(/[\u{1F300}-\u{1FAFF}\u2705\u274C\u26A0]/u);
  });

  it('has evidence for failures: message, request line, status, curl in a fence, counterexample and seed', () => {
    const md = renderMarkdown(mixedReport());
    const failures = md.slice(md.indexOf('## Failures'));
    expect(failures).toContain('### LIST-003 limit between 1 and 100 is honoured (must)');
    expect(failures).toContain('Request #31 `GET https://staging.petstore.example/v1/pets?limit=7` answered 200; replay:');
    expect(failures).toContain('Request #40 `POST https://staging.petstore.example/v1/pets` got no response (UND\\_ERR\\_HEADERS\\_TIMEOUT: no response headers within 10000 ms); replay:');
    // Two violations in one response: the exchange is shown once.
    expect(failures.match(/Request #12 /g)).toHaveLength(1);
    expect(failures).toContain("```sh\ncurl -sS -i -H \"Authorization: Bearer $PETSTORE_API_KEY\" 'https://staging.petstore.example/v1/pets?limit=7'\n```");
    expect(failures).toContain('Shrunk counterexample (seed 1234567, path `3:1:0`, 25 runs):');
    // Must-failures come before warnings.
    expect(failures.indexOf('CREATE-003')).toBeLessThan(failures.indexOf('GET-005'));
    expect(md).toContain('## Not tested');
    expect(md).toContain('## Run errors');
  });

  it('ends with the specification coverage: sentence, requirements with this run\'s verdicts, or why not testable', () => {
    const md = renderMarkdown(mixedReport());
    const appendix = md.slice(md.indexOf('## Specification coverage'));
    expect(md.indexOf('## Specification coverage')).toBeGreaterThan(md.indexOf('## Run errors'));
    expect(appendix).toContain("7 sentences of the specification's sections 1 to 9: 5 checked by requirements, 2 not testable by a client (1 permissive (\"may\"), 1 stated in the interface description).");
    expect(appendix).toContain('In this run, of the 5 checked: 0 with every requirement passed, 4 with a failed requirement (a should-requirement\'s failure is a warning), 1 with a requirement inconclusive or not exercised and none failed.');
    expect(appendix).toContain('| S4.1-03 | 4.1 | limit \\| integer \\| no \\| minimum 1, maximum 100, default 20 \\| Maximum number of animals returned. | LIST-002 INCONCLUSIVE, LIST-003 FAIL, LIST-004 PASS |   |');
    expect(appendix).toContain('| S4.3-08 | 4.3 | Deprecation: this endpoint is marked deprecated and is to be removed on 5 December 2030. | GET-005 WARNING | The mark itself is in the interface description; the headers are judged when present. |');
    expect(appendix).toContain('| S5-05 | 5 | A key that is used repeatedly after rate-limit rejections may be temporarily banned (see Limits). |   | permissive ("may"): A ban is allowed, not required; provoking one would harm the key under test. |');
    expect(appendix).toMatch(/^<details><summary>[^<]+<\/summary>$[\s\S]*^<\/details>$/m);
  });

  it.each(samples)('$name: every table row has exactly its columns (pipes in text are escaped)', ({ report }) => {
    const md = renderMarkdown(report);
    const rows = md.split('\n').filter((l) => l.startsWith('|'));
    expect(rows.length).toBeGreaterThan(report.requirements.length);
    for (const row of rows) {
      const unescaped = row.replace(/\\\\/g, '').replace(/\\\|/g, '').match(/\|/g) ?? [];
      // Both tables have five columns.
      expect(unescaped.length, row).toBe(6);
      expect(row.replace(/\\\\/g, '').replace(/\\`/g, ''), row).not.toContain('`');
    }
  });

  it('hostile text turns into no markup: no raw HTML, links or fence breaks outside code', () => {
    const md = renderMarkdown(hostileReport());
    // Code is shown literally by Markdown renderers; hostile text inside it is harmless.
    const outsideCode = md.replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gm, '').replace(/(?<![\\`])(`+) [^\n]*? \1(?!`)|(?<![\\`])(`+)[^`\n]+?\2(?!`)/g, '');
    expect(outsideCode).not.toMatch(/(^|[^\\])<(img|script|\/script)/);
    expect(outsideCode).not.toMatch(/(^|[^\\])\[click(\\_)?]\(/);
    // The hostile ``` in a curl line cannot close its block: the fence is longer.
    expect(md).toMatch(/^````sh$/m);
    expect(md.length).toBeLessThan(20_000);
    expect(md).toContain('\\u0000');
  });
});

describe('earl.jsonld', () => {
  interface Assertion {
    '@type': string;
    'earl:test': { '@id': string; 'dct:title': string; 'pc:section': string };
    'earl:result': { '@type': string; 'earl:outcome': { '@id': string }; 'dct:description': string; 'dct:date': { '@value': string } };
  }
  function assertions(report: Report): Assertion[] {
    const doc = JSON.parse(renderEarl(report)) as { '@context': Record<string, string>; '@graph': Array<{ '@type': string | string[] }> };
    expect(doc['@context']).toMatchObject({ earl: 'http://www.w3.org/ns/earl#', dct: 'http://purl.org/dc/terms/', foaf: 'http://xmlns.com/foaf/0.1/' });
    const types = doc['@graph'].flatMap((n) => n['@type']);
    expect(types).toContain('earl:Assertor');
    expect(types).toContain('earl:TestSubject');
    return doc['@graph'].filter((n): n is Assertion & { '@type': string } => n['@type'] === 'earl:Assertion') as Assertion[];
  }

  it.each(samples)('$name parses and has one assertion per requirement', ({ report }) => {
    const found = assertions(report);
    expect(found.map((a) => a['earl:test']['@id'])).toEqual(report.requirements.map((r) => `urn:petstore-conformance:req:${r.id}`));
    for (const a of found) {
      expect(a['earl:result']['@type']).toBe('earl:TestResult');
      expect(a['earl:result']['dct:date']['@value']).toBe(report.startedAt);
    }
  });

  it('maps verdicts to EARL outcomes', () => {
    const report = mixedReport();
    const outcome = Object.fromEntries(assertions(report).map((a) => [a['earl:test']['@id'].split(':').pop(), a['earl:result']['earl:outcome']['@id']]));
    expect(outcome).toMatchObject({
      'MEDIA-001': 'earl:passed',
      'PET-001': 'earl:failed',
      'GET-005': 'earl:failed',
      'LIST-002': 'earl:cantTell',
      'CREATE-001': 'earl:untested',
      'ORDERS-001': 'earl:untested',
      'RATE-007': 'earl:untested',
    });
    for (const r of report.requirements) expect(outcome[r.id]).toBe(earlOutcome(r));
  });

  it('describes results with the reason or the first violation, and carries title and section', () => {
    const byId = new Map(assertions(mixedReport()).map((a) => [a['earl:test']['@id'].split(':').pop(), a]));
    expect(byId.get('PET-001')?.['earl:result']['dct:description']).toBe('/id must be integer (got "7") (+1 more)');
    expect(byId.get('GET-005')?.['earl:result']['dct:description']).toBe('warning (should-requirement): no Deprecation header on GET /pets/{id}');
    expect(byId.get('LIST-002')?.['earl:result']['dct:description']).toContain('21 are needed');
    expect(byId.get('LIST-003')?.['earl:test']).toMatchObject({ 'dct:title': 'limit between 1 and 100 is honoured', 'pc:section': '4.1' });
  });

  it('gives each requirement the sentences it checks as test criteria, verbatim', () => {
    const doc = JSON.parse(renderEarl(mixedReport())) as { '@graph': Array<{ 'earl:test'?: { 'dct:identifier': string; 'dct:source'?: unknown } }> };
    const sources = new Map(doc['@graph'].flatMap((n) => (n['earl:test'] === undefined ? [] : [[n['earl:test']['dct:identifier'], n['earl:test']['dct:source']] as const])));
    expect(sources.get('LIST-003')).toEqual([
      {
        '@id': 'urn:petstore-conformance:spec:1.0.0:S4.1-03',
        '@type': 'earl:TestCriterion',
        'dct:identifier': 'S4.1-03',
        'dct:description': 'limit | integer | no | minimum 1, maximum 100, default 20 | Maximum number of animals returned.',
        'dct:isPartOf': 'Pet Store Service Interface Specification 1.0.0, § 4.1 List animals',
      },
    ]);
    expect((sources.get('MEDIA-001') as unknown[]).length).toBe(1);
    // A requirement no sentence of the report names gets no criterion, rather than an empty list.
    expect(sources.get('AUTH-001')).toBeUndefined();
  });

  it('hostile text stays valid JSON and intact', () => {
    const text = renderEarl(hostileReport());
    const doc = JSON.parse(text) as { '@graph': unknown[] };
    expect(doc['@graph'].length).toBe(3 + hostileReport().requirements.length);
    expect(text).toContain(JSON.stringify(SCRIPT_BREAKOUT).slice(1, -1));
  });
});

describe('report.html', () => {
  it('escapes hostile text everywhere: nothing becomes markup', async () => {
    const html = await renderHtml(hostileReport());
    expect(html).not.toMatch(/<img/i);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<\/script/i);
    expect(html).not.toContain('javascript:alert(1)](');
    expect(html).toContain('&lt;/script&gt;&lt;img src=x onerror=&quot;alert(1)&quot;&gt;');
    expect(html).toContain('\\u0000\\u0001');
    expect(html).toContain('🐶🐈 \\uD800 end');
    // Every attribute value is quoted report text or ours; no attribute can be broken out of.
    expect(html).not.toMatch(/="[^"]*<[^"]*"/);
    expect(html.length).toBeLessThan(120_000);
  });

  it('is self-contained: no external resource, a CSP that forbids loading any', async () => {
    const html = await renderHtml(mixedReport());
    expect(html).not.toMatch(/\b(src|href)="(?!#)/);
    expect(html).not.toMatch(/@import|url\(/);
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`);
    expect(html).toContain('@media print');
  });

  it('shows the run header, counts, every requirement with its details and the lists', async () => {
    const report = mixedReport();
    const html = await renderHtml(report);
    for (const key of ['pass', 'fail', 'inconclusive', 'notExercised'] as const) expect(html).toContain(`data-count="${key}">${report.summary[key]}<`);
    expect(html).toContain(`<div class="verdict" data-verdict="does-not-conform" role="status">\n<strong>${report.verdictLine.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</strong>`);
    expect(html).toContain('<h2 id="not-exercised">Not exercised</h2>');
    for (const r of report.requirements) expect(html).toContain(`id="req-${r.id}" data-status="${r.status}"`);
    for (const text of ['https://staging.petstore.example/v1', 'petstore-conformance 0.1.0', 'Pet Store Service Interface Specification, version 1.0.0', '2025-06-02T12:00:00.000Z', '1 min 23 s', '1234567', 'm3x9k2a7', 'sha256:0123456789ab', '187 (budget 600)', 'Not complete', 'Interpretation (where the spec is silent)', 'Shrunk smallest failing input after 25 runs', 'UND_ERR_HEADERS_TIMEOUT', '9007199254740993', 'Transitions between pet statuses.', 'request budget exhausted', 'Pets carry an extra field']) {
      expect(html).toContain(text);
    }
    expect(html).not.toContain('[redacted]x');
  });

  it('ends with the specification coverage appendix: each sentence with linked requirements and verdicts, or its reason', async () => {
    const html = await renderHtml(mixedReport());
    const appendix = html.slice(html.indexOf('<h2 id="spec-coverage">'));
    expect(html.indexOf('<h2 id="spec-coverage">Appendix: Specification coverage</h2>')).toBeGreaterThan(html.indexOf('<h2 id="run-errors">'));
    expect(appendix).toContain('<tr id="spec-S4_2e1-03" data-sentence="S4.1-03" data-covered="true"><td class="nowrap rid">S4.1-03</td><td class="nowrap">4.1</td><td class="wrap">limit | integer | no | minimum 1, maximum 100, default 20 | Maximum number of animals returned.</td>');
    expect(appendix).toContain('<span class="checked-by"><a class="rid" href="#req-LIST-003">LIST-003</a> <span class="badge" data-status="fail">FAIL</span></span>');
    expect(appendix).toContain('<a class="rid" href="#req-GET-005">GET-005</a> <span class="badge" data-status="fail" data-warning="true">WARNING</span>');
    expect(appendix).toContain('data-sentence="S9-04" data-covered="false"');
    expect(appendix).toContain('<span class="label">Not testable:</span> stated in the interface description: The marker is part of the interface description, not of any response.');
    expect(appendix).toContain('<span class="note">RATE-007 needs --exhaust-daily-quota.</span>');
  });
});

describe('control characters', () => {
  it('the hostile sample really contains every C0 control character', () => {
    expect(CONTROL_CHARS).toHaveLength(32);
    expect(JSON.stringify(hostileReport())).toContain('\\u0000');
  });
});

describe('the key\'s plan in every format', () => {
  const custom = (): Report => {
    const report = mixedReport();
    return { ...report, target: { ...report.target, plan: 'custom:500/50000' } };
  };

  it('report.json takes a published plan or custom:PER_MINUTE/PER_DAY, and nothing else', () => {
    expect(reportSchemaErrors(custom())).toEqual([]);
    for (const plan of ['gold', 'custom:0/10', 'custom:abc/1', 'custom:500', 'enterprise']) {
      const report = mixedReport();
      expect(reportSchemaErrors({ ...report, target: { ...report.target, plan } }), plan).not.toEqual([]);
    }
  });

  it('html, summary.md, junit.xml and earl.jsonld show it with its limits', async () => {
    const report = custom();
    const shown = 'custom:500/50000 (500 requests a minute, 50,000 a day)';
    expect(await renderHtml(report)).toContain(`<dt>Plan</dt><dd>${shown}</dd>`);
    expect(renderMarkdown(report)).toContain(`, plan ${shown}.`);
    const root = parseXml(renderJunit(report));
    const [first] = suitesOf(root);
    const props = Object.fromEntries(childrenNamed(childrenNamed(first as XmlElement, 'properties')[0] as XmlElement, 'property').map((p) => [p.attributes.name, p.attributes.value]));
    expect(props['plan']).toBe(shown);
    expect(renderEarl(report)).toContain(`key on the plan ${shown}`);
    expect(renderMarkdown(mixedReport())).toContain(', plan free (60 requests a minute, 1,000 a day).');
  });
});

describe('the key mode', () => {
  const observed = "another client used at least 28 of this window's 60 requests (X-RateLimit-Remaining fell that much faster than this run's requests)";
  const shared: Report = { ...passingReport(), keyUse: { mode: 'shared', otherConsumption: observed } };
  const dedicated: Report = { ...passingReport(), keyUse: { mode: 'dedicated' } };

  it('is valid report.json in both modes', () => {
    expect(reportSchemaErrors(shared)).toEqual([]);
    expect(reportSchemaErrors(dedicated)).toEqual([]);
  });

  it('and what other clients were seen to spend appear in every format', async () => {
    for (const text of [renderMarkdown(shared), await renderHtml(shared), renderJunit(shared), renderEarl(shared)]) {
      expect(text).toMatch(/shared/);
      expect(text).toContain('another client used at least 28 of this window');
    }
    expect(renderMarkdown(shared)).toContain('Key may be shared (the default): consumption the run did not cause is recorded, never held against the server; observed: another client');
    expect(renderMarkdown(dedicated)).toContain('Key dedicated (--dedicated-key): nobody else uses it');
    expect(renderJunit(dedicated)).toContain('<property name="keyMode" value="dedicated"/>');
    expect(renderEarl(dedicated)).toContain('"pc:keyMode": "dedicated"');
    expect(await renderHtml(dedicated)).toContain('<dt>Key use</dt><dd>Key dedicated (--dedicated-key)');
  });

  it('is left out of reports written before key modes, which say nothing about the key', () => {
    expect(renderMarkdown(passingReport())).not.toMatch(/Key (may be shared|dedicated)/);
    expect(renderJunit(passingReport())).not.toContain('keyMode');
  });
});
