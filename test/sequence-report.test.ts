/**
 * A failing model-based sequence reads as steps a person can follow in every format: numbered,
 * each with what was sent, what came back, what the model expected, the violation where the
 * sequence broke, and a curl line with the key as $PETSTORE_API_KEY. report.json keeps the steps
 * and the commands `replay` sends again.
 */
import { describe, expect, it } from 'vitest';
import { renderHtml } from '../src/report/render/html.js';
import { renderJunit } from '../src/report/render/junit.js';
import { renderMarkdown } from '../src/report/render/markdown.js';
import { renderSummary } from '../src/cli/terminal.js';
import { violationText } from '../src/vitest/outcome.js';
import { buildReport, type TestOutcome } from '../src/report/build.js';
import { loadCatalog } from '../src/catalog.js';
import { failingSequence, sequenceReport } from './support/report-factory.js';
import { reportSchemaErrors } from './support/report-schema.js';
import { parseXml, childrenNamed } from './support/xml.js';

const VIOLATION = /without pet 67 \(status "sold"\), created by this sequence and already shown by a read/;

describe('a failing sequence in the reports', () => {
  const report = sequenceReport();
  const sequence = failingSequence();

  it('is part of report.json, schema and all', () => {
    expect(reportSchemaErrors(report)).toEqual([]);
    expect(report.requirements.find((r) => r.id === 'LIST-005')?.sequence).toEqual(sequence);
    // A sequence without steps, or a command replay could not send, is no valid report.
    const broken = { ...report, requirements: report.requirements.map((r) => (r.sequence === undefined ? r : { ...r, sequence: { ...r.sequence, commands: [{ op: 'deletePet' }] } })) };
    expect(reportSchemaErrors(broken as unknown as typeof report).length).toBeGreaterThan(0);
  });

  it('goes from a test\'s meta to the requirement\'s result', () => {
    const outcome: TestOutcome = { requirement: 'LIST-005', name: 'LIST-005 x', status: 'fail', evidence: [{ kind: 'violation', message: 'v' }], observations: [], sequence };
    const built = buildReport(loadCatalog(), [outcome], {
      tool: { name: 't', version: '1' },
      target: { baseUrl: 'http://x/v1', embedded: false },
      seed: 1,
      runId: 'r',
      startedAt: new Date(0),
      durationMs: 1,
      options: { readOnly: false, maxRequests: 1, timeoutMs: 1, only: [] },
      keyMode: 'shared',
      runErrors: [],
    });
    expect(built.requirements.find((r) => r.id === 'LIST-005')?.sequence).toEqual(sequence);
  });

  it('in the console: numbered steps with sent, received, expected, the violation and a curl line each', () => {
    const text = renderSummary(report, [], { colour: false });
    expect(text).toMatch(/^ {4}Failing sequence: fixed sequence read-after-write \(shrunk\), 4 steps \(seed 710306284; 1 sequence run\); replay sends it again$/m);
    expect(text).toMatch(/^ {4}1\. listPets: GET \/pets\?status=sold&limit=100$/m);
    expect(text).toMatch(/^ {4}2\. createPet: POST \/pets \{"name":"pc-m3x9k2a7-37-model-sequence"/m);
    expect(text).toMatch(/^ {7}received: 200: 15 pets, among them not pet 67$/m);
    expect(text).toMatch(/^ {7}expected: 200 and only pets with status "sold"; with room left/m);
    expect(text).toMatch(new RegExp(`^ {7}VIOLATION: Received 15 pets for status=sold .*${VIOLATION.source}`, 'm'));
    expect(text.match(/^ {7}reproduce: curl -i .*\$PETSTORE_API_KEY/gm)).toHaveLength(4);
    // Steps before the breaking one carry no violation.
    expect(text.match(/VIOLATION:/g)).toHaveLength(1);
  });

  it('in summary.md: a numbered list, then the curl lines in one block to paste', () => {
    const md = renderMarkdown(report);
    expect(md).toContain('Failing sequence: fixed sequence read-after-write (shrunk), 4 steps');
    expect(md).toMatch(/^1\. \*\*listPets\*\* GET \/pets\?status=sold\\&limit=100; received: 200: 14 pets; expected: /m);
    expect(md).toMatch(/^4\. \*\*listPets\*\* .*; \*\*violation\*\*: Received 15 pets/m);
    const block = /```sh\n(# 1\. listPets\n[\s\S]*?)\n```/.exec(md)?.[1] ?? '';
    expect(block.split('\n').filter((l) => l.startsWith('#'))).toEqual(['# 1. listPets', '# 2. createPet', '# 3. getPet', '# 4. listPets']);
    expect(block.split('\n').filter((l) => l.startsWith('curl'))).toHaveLength(4);
  });

  it('in junit.xml: the steps in the failure\'s text', () => {
    const root = parseXml(renderJunit(report));
    const failures = childrenNamed(root, 'testsuite').flatMap((s) => childrenNamed(s, 'testcase')).flatMap((c) => childrenNamed(c, 'failure'));
    expect(failures).toHaveLength(1);
    const body = failures[0]?.text ?? '';
    expect(body).toMatch(/^Failing sequence: fixed sequence read-after-write/m);
    expect(body).toMatch(/^3\. getPet: GET \/pets\/67$/m);
    expect(body).toMatch(VIOLATION);
    expect(body.match(/reproduce: curl/g)).toHaveLength(4);
  });

  it('in report.html: an ordered list of steps, the breaking one marked, a curl block each', async () => {
    const html = await renderHtml(report);
    const list = /<ol class="steps with-model" aria-label="failing sequence">([\s\S]*?)<\/ol>/.exec(html)?.[1] ?? '';
    const items = list.match(/<li data-outcome="[^"]+">/g) ?? [];
    expect(items).toEqual([...Array(3).fill('<li data-outcome="as-expected">'), '<li data-outcome="violation">']);
    expect(list.match(/<pre class="curl">curl -i /g)).toHaveLength(4);
    expect(list).toContain('<dt class="violation">Violation</dt>');
    expect(list).toContain('<span class="op">getPet</span> <code>GET /pets/67</code>');
  });

  it('in report.html: each step beside the model it was judged against', async () => {
    const html = await renderHtml(report);
    const models = [...html.matchAll(/<div class="model"><p class="pre-label">Model after step (\d)<\/p><ul>(.*?)<\/ul><\/div>/g)].map((m) => [m[1], m[2]]);
    expect(models).toEqual([
      ['1', '<li>no pet created yet</li>'],
      ['2', expect.stringContaining('pet 67 (created in step 2): {&quot;id&quot;:67') as string],
      ['3', expect.stringContaining('shown by exchange #50, so it must stay') as string],
      ['4', expect.stringContaining('shown by exchange #50, so it must stay') as string],
    ]);
    expect(models[1]?.[1]).toContain('no read has shown it yet');
    // A report written before the model was kept shows the steps alone.
    const older = { ...report, requirements: report.requirements.map((r) => (r.sequence === undefined ? r : { ...r, sequence: { ...r.sequence, steps: r.sequence.steps.map(({ model: _model, ...step }) => step) } })) };
    const plain = await renderHtml(older);
    expect(plain).toContain('<ol class="steps" aria-label="failing sequence">');
    expect(plain).not.toContain('class="model"');
  });

  it('in a vitest project\'s failure message', () => {
    const result = report.requirements.find((r) => r.id === 'LIST-005');
    if (result === undefined) throw new Error('no LIST-005');
    expect(violationText(result)).toMatch(/Failing sequence: [\s\S]*4\. listPets: [\s\S]*VIOLATION: /);
  });
});
