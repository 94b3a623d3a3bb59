/**
 * junit.xml: what CI systems (Jenkins, GitLab, GitHub test reporters) understand. One testsuite
 * per spec section, one testcase per requirement. Validated in our tests against schemas/junit.xsd,
 * the Ant/Jenkins subset those tools accept.
 */
import type { Report, RequirementResult } from '../types.js';
import { clip, notExercisedText, distinctExchanges, exchangesOf, groupBySection, isWarning, requestLine, responseLine, sectionHeading, seconds, sequenceText, violations, visible } from './common.js';
import { describePlan } from '../../plans.js';
import { accessLine } from '../access.js';

/** Exchanges spelled out in a failure; the rest are in report.json and the HTML report. */
const DETAILED_EXCHANGES = 3;
/** CI log viewers choke on megabyte messages; report.json keeps the full text. */
const MAX_TEXT = 2_000;

function text(value: string): string {
  return visible(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;');
}

/** Attribute values also lose their line breaks and tabs to normalisation unless escaped. */
function attr(value: string): string {
  return text(value).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
}

function attrs(pairs: ReadonlyArray<readonly [string, string | number]>): string {
  return pairs.map(([k, v]) => ` ${k}="${attr(String(v))}"`).join('');
}

/** The report keeps no per-test clock; the time spent on its recorded exchanges is the honest part. */
function caseMs(r: RequirementResult): number {
  return exchangesOf(r.evidence).reduce((sum, e) => sum + e.exchange.elapsedMs, 0);
}

function failureBody(r: RequirementResult): string {
  const lines: string[] = [];
  const found = violations(r);
  for (const v of found) lines.push(`- ${clip(v.message, MAX_TEXT)}`);
  if (found.length === 0 && r.reason !== undefined) lines.push(clip(r.reason, MAX_TEXT));
  const detailed = distinctExchanges(found.length > 0 ? found : r.evidence).slice(0, DETAILED_EXCHANGES);
  for (const exchange of detailed) {
    lines.push('', `request #${exchange.seq}: ${clip(requestLine(exchange), MAX_TEXT)}`, `response: ${clip(responseLine(exchange), MAX_TEXT)}`, `replay: ${clip(exchange.curl, MAX_TEXT)}`);
  }
  if (r.property !== undefined) {
    const p = r.property;
    lines.push('', `counterexample: ${clip(p.counterexample, MAX_TEXT)}`, `seed: ${p.seed}, path: ${p.path}, runs: ${p.numRuns}`);
  }
  if (r.sequence !== undefined) lines.push('', ...sequenceText(r.sequence).map((line) => clip(line, MAX_TEXT)));
  return lines.join('\n');
}

function failureMessage(r: RequirementResult): string {
  const found = violations(r);
  const first = found[0]?.message ?? r.reason ?? (r.property === undefined ? 'failed' : `property failed for ${r.property.counterexample}`);
  const more = found.length > 1 ? ` (+${found.length - 1} more)` : '';
  return clip(`${isWarning(r) ? 'warning: ' : ''}${first}${more}`, MAX_TEXT);
}

/**
 * CI tools split classnames at dots into package and class (Jenkins would show "4.1" as package
 * "4", class "1"), so the section becomes one segment under one package: petstore.s4_1.
 */
export function classnameOf(section: string): string {
  return `petstore.s${section.replace(/\./g, '_')}`;
}

function testcase(r: RequirementResult): string {
  const open = `    <testcase${attrs([['name', `${r.id} (§ ${r.section}) ${r.title}`], ['classname', classnameOf(r.section)], ['time', seconds(caseMs(r))]])}`;
  switch (r.status) {
    case 'pass':
      return `${open}/>`;
    case 'fail':
      return `${open}>\n      <failure${attrs([['message', failureMessage(r)], ['type', isWarning(r) ? 'warning' : r.level]])}>${text(failureBody(r))}</failure>\n    </testcase>`;
    case 'inconclusive':
      return `${open}>\n      <skipped${attrs([['message', clip(`inconclusive: ${r.reason ?? 'no reason recorded'}`, MAX_TEXT)]])}/>\n    </testcase>`;
    case 'not-exercised':
      return `${open}>\n      <skipped${attrs([['message', clip(notExercisedText(r.reason), MAX_TEXT)]])}/>\n    </testcase>`;
  }
}

function properties(report: Report): string {
  const props: Array<[string, string]> = [
    ['tool', report.tool.name],
    ['tool.version', report.tool.version],
    ['spec', `${report.spec.title} ${report.spec.version}`],
    ['target', report.target.baseUrl],
    ['seed', String(report.seed)],
    ['runId', report.runId],
    ['verdict', report.verdict],
    ['verdictLine', report.verdictLine],
    ['complete', String(report.complete)],
  ];
  if (report.target.keyFingerprint !== undefined) props.push(['keyFingerprint', report.target.keyFingerprint]);
  if (report.target.plan !== undefined) props.push(['plan', describePlan(report.target.plan)]);
  if (report.target.access !== undefined) props.push(['route', accessLine(report.target.access)]);
  if (report.keyUse !== undefined) props.push(['keyMode', report.keyUse.mode]);
  if (report.keyUse?.otherConsumption !== undefined) props.push(['otherConsumption', report.keyUse.otherConsumption]);
  return ['    <properties>', ...props.map(([name, value]) => `      <property${attrs([['name', name], ['value', value]])}/>`), '    </properties>'].join('\n');
}

interface Suite {
  xml: string;
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  ms: number;
}

/** Run errors (the run halted, a test of ours broke) fail the CI job visibly, as JUnit errors. */
function runErrorSuite(report: Report, id: number): Suite | undefined {
  const [first] = report.runErrors;
  if (first === undefined) return undefined;
  const suiteAttrs = attrs([['name', 'run'], ['id', id], ['tests', 1], ['failures', 0], ['errors', 1], ['skipped', 0], ['time', seconds(0)], ['timestamp', report.startedAt.slice(0, 19)]]);
  const body = report.runErrors.map((e) => `- ${clip(e, MAX_TEXT)}`).join('\n');
  const xml = [
    `  <testsuite${suiteAttrs}>`,
    properties(report),
    `    <testcase${attrs([['name', 'run errors'], ['classname', 'petstore.run'], ['time', seconds(0)]])}>`,
    `      <error${attrs([['message', clip(first, MAX_TEXT)], ['type', 'run-error']])}>${text(body)}</error>`,
    '    </testcase>',
    '  </testsuite>',
  ].join('\n');
  return { xml, tests: 1, failures: 0, errors: 1, skipped: 0, ms: 0 };
}

export function renderJunit(report: Report): string {
  const suites: Suite[] = groupBySection(report.requirements).map((group, id) => {
    const reqs = group.requirements;
    const failures = reqs.filter((r) => r.status === 'fail').length;
    const skipped = reqs.filter((r) => r.status === 'inconclusive' || r.status === 'not-exercised').length;
    const ms = reqs.reduce((sum, r) => sum + caseMs(r), 0);
    const suiteAttrs = attrs([
      ['name', sectionHeading(group.section)],
      ['id', id],
      ['package', classnameOf(group.section)],
      ['tests', reqs.length],
      ['failures', failures],
      ['errors', 0],
      ['skipped', skipped],
      ['time', seconds(ms)],
      // The XSD's timestamp is xs:dateTime without a zone designator.
      ['timestamp', report.startedAt.slice(0, 19)],
    ]);
    const xml = [`  <testsuite${suiteAttrs}>`, properties(report), ...reqs.map(testcase), '  </testsuite>'].join('\n');
    return { xml, tests: reqs.length, failures, errors: 0, skipped, ms };
  });
  const runSuite = runErrorSuite(report, suites.length);
  if (runSuite !== undefined) suites.push(runSuite);
  const total = (key: 'tests' | 'failures' | 'errors' | 'skipped'): number => suites.reduce((sum, s) => sum + s[key], 0);
  const rootAttrs = attrs([
    ['name', `${report.tool.name} ${report.tool.version}: ${report.spec.title} ${report.spec.version}`],
    ['tests', total('tests')],
    ['failures', total('failures')],
    ['errors', total('errors')],
    // No skipped total here: the Jenkins schema has none on <testsuites>; each suite carries its own.
    ['time', seconds(report.durationMs)],
  ]);
  return ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites${rootAttrs}>`, ...suites.map((s) => s.xml), '</testsuites>', ''].join('\n');
}
