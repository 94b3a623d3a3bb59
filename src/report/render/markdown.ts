/**
 * summary.md: a pull-request comment. Status words instead of emoji (screen readers, plain-text
 * mail notifications), and only report fields, so the same report always renders the same text.
 * Hostile response text must not turn into markup, links or broken tables in the rendered comment.
 */
import type { Report, RequirementResult, SentenceCoverage, SequenceFailure } from '../types.js';
import {
  clip,
  distinctExchanges,
  groupBySection,
  humanDuration,
  isWarning,
  requestLine,
  responseLine,
  sequenceHeadline,
  shortReason,
  specCoverageSummary,
  STATUS_WORD,
  untestableText,
  verdictWord,
  violations,
  visible,
} from './common.js';
import type { RenderContext } from '../digest.js';
import { describePlan } from '../../plans.js';
import { accessLine } from '../access.js';
import { keyUseLine } from '../key-use.js';
import { replayBanner } from '../replay-banner.js';
import { requestsPhrase } from '../requests-phrase.js';
import { commonCausesOf } from '../../catalog.js';

/** GitHub rejects comments over 65,536 characters; these caps keep a bad run well below. */
const MAX_CELL = 160;
const MAX_MESSAGE = 600;
const MAX_CURL = 2_000;
const MAX_VIOLATIONS = 10;
const MAX_EXCHANGES = 3;
const MAX_OBSERVATIONS = 20;

/**
 * Inline text: one line, with the characters Markdown or the HTML it allows would interpret
 * escaped. Backslash escapes work for any ASCII punctuation in CommonMark, `\|` also in GFM tables.
 */
function inline(text: string): string {
  return visible(text)
    .replace(/\r\n|\r|\n/g, ' ')
    .replace(/[\\`*_[\]<>|~&!#]/g, (c) => `\\${c}`)
    // At the start of a list item, "- x", "+ x" or "1. x" would open a nested list.
    .replace(/^(\d*)([-+.)])(?=\s|$)/, '$1\\$2');
}

/** A table cell: inline text, shortened, never empty (an empty cell reads as a missing column). */
export function cell(text: string, max = MAX_CELL): string {
  const escaped = inline(clip(text, max));
  return escaped === '' ? ' ' : escaped;
}

/** A code span wrapping any text: a backtick run longer than any inside it. */
function code(text: string): string {
  const body = visible(text).replace(/\r\n|\r|\n/g, ' ');
  const longest = Math.max(0, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = body.startsWith('`') || body.endsWith('`') || body === '' ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}

/** A fenced block whose fence cannot be closed by the content. */
function fenced(text: string, info: string): string[] {
  const body = visible(text);
  const longest = Math.max(0, ...[...body.matchAll(/`{3,}/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${info}`, ...body.split(/\r\n|\r|\n/), fence];
}

/** The digest line, so a reader can check the report.json beside this summary (`sha256sum report.json`). */
function digest(context: RenderContext): string[] {
  return context.reportSha256 === undefined ? [] : ['', `SHA-256 of report.json: ${code(context.reportSha256)}`];
}

function header(report: Report, context: RenderContext): string[] {
  const s = report.summary;
  const banner = replayBanner(report);
  return [
    ...(banner === undefined ? [] : [`## ${inline(banner)}`, '']),
    `# ${inline(report.spec.title)} ${inline(report.spec.version)}: conformance of ${code(report.target.baseUrl)}`,
    '',
    `**${inline(report.verdictLine)}**`,
    '',
    report.complete ? 'Complete: every requirement meant to run got pass or fail.' : 'Not complete: some requirements meant to run could not be told (inconclusive).',
    '',
    `${inline(report.tool.name)} ${inline(report.tool.version)}, seed ${report.seed}, run ${code(report.runId)}, started ${inline(report.startedAt)}, ` +
      `${humanDuration(report.durationMs)}, ${requestsPhrase(report)}${report.options.readOnly ? ', read-only' : ''}` +
      `${report.target.plan === undefined ? '' : `, plan ${inline(describePlan(report.target.plan))}`}.`,
    ...digest(context),
    '',
    ...(report.keyUse === undefined ? [] : [`${inline(keyUseLine(report.keyUse))}.`, '']),
    ...(report.target.access === undefined ? [] : [`${inline(accessLine(report.target.access))}.`, '']),
    '| Pass | Fail | Inconclusive | Not exercised | Warnings |',
    '|---:|---:|---:|---:|---:|',
    `| ${s.pass} | ${s.fail} | ${s.inconclusive} | ${s.notExercised} | ${s.warnings} |`,
    '',
    'Warnings are should-requirements that failed: counted under Fail, they do not fail the run.',
  ];
}

function requirementsTable(report: Report): string[] {
  const rows = groupBySection(report.requirements).flatMap((g) =>
    g.requirements.map((r) => `| ${cell(r.id)} | ${cell(r.section)} | ${r.level} | ${verdictWord(r)} | ${cell(shortReason(r))} |`),
  );
  return ['## Requirements', '', '| Id | § | Level | Verdict | Reason |', '|---|---|---|---|---|', ...rows];
}

function failure(r: RequirementResult): string[] {
  const lines = [`### ${inline(r.id)} ${inline(r.title)} (${r.level}${isWarning(r) ? ', warning' : ''})`, ''];
  const found = violations(r);
  for (const v of found.slice(0, MAX_VIOLATIONS)) lines.push(`- ${inline(clip(v.message, MAX_MESSAGE))}`);
  if (found.length > MAX_VIOLATIONS) lines.push(`- … and ${found.length - MAX_VIOLATIONS} more violations (see report.json)`);
  if (found.length === 0) lines.push(`- ${inline(clip(shortReason(r), MAX_MESSAGE))}`);
  for (const c of commonCausesOf(r.id, found.map((v) => v.message))) lines.push('', `Common cause: ${inline(c.cause)} How stacks fix it: ${inline(c.fix)}`);
  for (const exchange of distinctExchanges(found.length > 0 ? found : r.evidence).slice(0, MAX_EXCHANGES)) {
    const answer = exchange.response === undefined ? `got ${responseLine(exchange)}` : `answered ${exchange.response.status}`;
    lines.push('', `Request #${exchange.seq} ${code(clip(requestLine(exchange), MAX_MESSAGE))} ${inline(clip(answer, MAX_MESSAGE))}; replay:`, '', ...fenced(clip(exchange.curl, MAX_CURL), 'sh'));
  }
  if (r.property !== undefined) {
    const p = r.property;
    lines.push('', `Shrunk counterexample (seed ${p.seed}, path ${code(p.path)}, ${p.numRuns} runs):`, '', ...fenced(clip(p.counterexample, MAX_CURL), 'json'));
  }
  if (r.sequence !== undefined) lines.push('', ...sequence(r.sequence));
  return [...lines, ''];
}

/** A failing sequence as a numbered list a reader follows step by step, then its curl lines in one block to paste. */
function sequence(s: SequenceFailure): string[] {
  const steps = s.steps.map((step) => {
    const broke = (step.violations ?? []).map((v) => `; **violation**: ${inline(clip(v, MAX_MESSAGE))}`).join('');
    // The target's answers may hold anything, backticks included: escaped text, never a code span.
    return `${step.n}. **${inline(step.operation)}** ${inline(clip(step.sent, MAX_MESSAGE))}; received: ${inline(clip(step.received, MAX_MESSAGE))}; expected: ${inline(clip(step.expected, MAX_MESSAGE))}${broke}`;
  });
  const curls = s.steps.flatMap((step) => [`# ${step.n}. ${step.operation}`, ...step.curl.map((c) => clip(c, MAX_CURL))]);
  return [`${inline(sequenceHeadline(s))}:`, '', ...steps, '', 'Reproduce, step by step (a getPet names the id its creation returned):', '', ...fenced(curls.join('\n'), 'sh')];
}

function failures(report: Report): string[] {
  const failed = report.requirements.filter((r) => r.status === 'fail');
  if (failed.length === 0) return [];
  // Must-failures first: they are what blocks the merge.
  const ordered = [...failed.filter((r) => !isWarning(r)), ...failed.filter(isWarning)];
  return ['## Failures', '', ...ordered.flatMap(failure)];
}

function observations(report: Report): string[] {
  if (report.observations.length === 0) return [];
  const shown = report.observations.slice(0, MAX_OBSERVATIONS);
  const more = report.observations.length - shown.length;
  return [
    '## Observations',
    '',
    'Behaviour the spec does not rule on, recorded without a verdict.',
    '',
    ...shown.map((o) => `- ${inline(o.requirement)}: ${inline(clip(o.message, MAX_MESSAGE))}`),
    ...(more > 0 ? [`- … and ${more} more (see report.json)`] : []),
    '',
  ];
}

function notExercised(report: Report): string[] {
  if (report.notExercised.length === 0) return [];
  return ['## Not exercised', '', 'Left out by the options of this run, not by the target.', '', ...report.notExercised.map((n) => `- ${inline(n.id)}: ${inline(clip(n.reason, MAX_MESSAGE))}`), ''];
}

function notTested(report: Report): string[] {
  if (report.notTested.length === 0) return [];
  return ['## Not tested', '', ...report.notTested.map((n) => `- § ${inline(n.section)}: ${inline(n.statement)} (${inline(n.reason)})`), ''];
}

/** One sentence: the requirements with this run's verdicts, or why no client-side test can check it. */
function coverageRow(s: SentenceCoverage, requirements: ReadonlyMap<string, RequirementResult>): string {
  const verdicts = (s.requirements ?? []).map((c) => {
    const r = requirements.get(c.id);
    return `${c.id} ${r === undefined ? STATUS_WORD[c.status] : verdictWord(r)}`;
  });
  return `| ${cell(s.id)} | ${cell(s.section)} | ${cell(s.text, MAX_MESSAGE)} | ${cell(verdicts.join(', '))} | ${cell(untestableText(s) || (s.note ?? ''), MAX_MESSAGE)} |`;
}

/**
 * Appendix: every sentence of the map. Folded (GitHub renders <details>), since a pull-request
 * comment is read for its verdict first; the table is what an auditor opens.
 */
function specCoverage(report: Report): string[] {
  if (report.specCoverage === undefined) return [];
  const requirements = new Map(report.requirements.map((r) => [r.id, r]));
  return [
    '## Specification coverage',
    '',
    ...specCoverageSummary(report.specCoverage).flatMap((line) => [inline(line), '']),
    '<details><summary>Every sentence, with the requirements that check it and this run\'s verdicts</summary>',
    '',
    '| Sentence | § | Text | Checked by (verdict) | Why not testable, or note |',
    '|---|---|---|---|---|',
    ...report.specCoverage.map((s) => coverageRow(s, requirements)),
    '',
    '</details>',
    '',
  ];
}

function runErrors(report: Report): string[] {
  if (report.runErrors.length === 0) return [];
  return ['## Run errors', '', 'The run itself did not go as planned; verdicts above may be incomplete.', '', ...report.runErrors.map((e) => `- ${inline(clip(e, MAX_MESSAGE))}`), ''];
}

export function renderMarkdown(report: Report, context: RenderContext = {}): string {
  const created = report.createdPetIds.length;
  const footer = created === 0 ? [] : [`This run created ${created} pet${created === 1 ? '' : 's'} on the target (ids in report.json).`];
  const sections = [header(report, context), requirementsTable(report), failures(report), notExercised(report), observations(report), notTested(report), runErrors(report), footer, specCoverage(report)];
  return `${sections.filter((s) => s.length > 0).map((s) => s.join('\n').replace(/\n+$/, '')).join('\n\n')}\n`;
}
