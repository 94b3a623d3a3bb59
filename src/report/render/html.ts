/**
 * report.html: one self-contained, printable page for auditors. No scripts, no external
 * resources: it must open from an e-mail attachment or an archive years later, offline. Every
 * piece of report text is escaped, and a Content-Security-Policy forbids loading anything, so even
 * an escaping mistake could not make a hostile server's body fetch or run something.
 */
import type { Evidence, ExchangeEvidence, Report, RequirementResult, RequirementStatus, SentenceCoverage, SequenceFailure } from '../types.js';
import {
  clip,
  distinctExchanges,
  groupBySection,
  humanDuration,
  isWarning,
  requestLine,
  sectionHeading,
  sequenceDescription,
  specCoverageSummary,
  STATUS_WORD,
  untestableText,
  verdictWord,
} from './common.js';
import { anchor, esc } from './html-escape.js';
import { timelineSection, TIMELINE_CSS, type FindingLink } from './timeline-html.js';
import { rowAnchor, timelineView, type ExchangeAnchor } from '../timeline.js';
import type { RenderContext } from '../digest.js';
import { describePlan } from '../../plans.js';
import { verdictWords } from '../verdict-line.js';
import { accessLine } from '../access.js';
import { keyUseLine } from '../key-use.js';
import { replayBanner } from '../replay-banner.js';

/** Bodies are evidence, not archives: report.json keeps what the page leaves out. */
const MAX_BODY = 4_000;
const MAX_TEXT = 4_000;
const MAX_EXCHANGES_PER_REQUIREMENT = 10;


const CSS = `
:root { --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg-soft: #f6f8fa;
  --pass: #1a7f37; --pass-bg: #dafbe1; --fail: #b3261e; --fail-bg: #ffebe9;
  --warn: #7d4e00; --warn-bg: #fff8c5; --inc: #6639ba; --inc-bg: #f3e8ff; --skip: #57606a; --skip-bg: #eaeef2; }
* { box-sizing: border-box; }
html { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", Arial, sans-serif; color: var(--fg); }
body { margin: 0 auto; max-width: 72rem; padding: 1.5rem 2rem 4rem; overflow-wrap: break-word; }
h1 { font-size: 1.6rem; margin: 0 0 .25rem; line-height: 1.25; }
h2 { font-size: 1.3rem; margin: 2.5rem 0 .75rem; padding-bottom: .3rem; border-bottom: 2px solid var(--line); }
h3 { font-size: 1.05rem; margin: 0; display: flex; flex-wrap: wrap; gap: .5rem; align-items: baseline; overflow-wrap: anywhere; }
h3 > span { min-width: 0; }
h4 { font-size: .9rem; margin: 1rem 0 .35rem; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
a { color: #0550ae; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: .9em; }
code { overflow-wrap: anywhere; }
pre { background: var(--bg-soft); border: 1px solid var(--line); border-radius: 6px; padding: .6rem .75rem; margin: .35rem 0;
  white-space: pre-wrap; overflow-wrap: anywhere; word-break: break-word; }
.subtitle { color: var(--muted); margin: 0 0 1rem; }
.verdict { border-radius: 8px; padding: 1rem 1.25rem; margin: 1rem 0 1.5rem; border: 2px solid; }
.replay-banner { border: 2px dashed #8250df; border-radius: 8px; padding: .75rem 1rem; margin: 1rem 0; }
.verdict[data-verdict="conforms"] { background: var(--pass-bg); border-color: var(--pass); }
.verdict[data-verdict="does-not-conform"] { background: var(--fail-bg); border-color: var(--fail); }
.verdict[data-verdict="not-verified"] { background: var(--inc-bg); border-color: var(--inc); }
.verdict strong { font-size: 1.25rem; }
.verdict p { margin: .35rem 0 0; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1.25rem; margin: 0; }
dl.meta dt { color: var(--muted); }
dl.meta dd { margin: 0; overflow-wrap: anywhere; }
ul.counts { list-style: none; padding: 0; margin: .5rem 0; display: flex; flex-wrap: wrap; gap: .75rem; }
ul.counts li { border: 1px solid var(--line); border-radius: 8px; padding: .5rem 1rem; min-width: 8rem; background: #fff; }
ul.counts .n { display: block; font-size: 1.7rem; font-weight: 700; line-height: 1.2; }
ul.counts li.pass { border-top: 4px solid var(--pass); } ul.counts li.fail { border-top: 4px solid var(--fail); }
ul.counts li.warnings { border-top: 4px solid var(--warn); } ul.counts li.inconclusive { border-top: 4px solid var(--inc); }
ul.counts li.not-exercised { border-top: 4px solid var(--skip); }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
th, td { text-align: left; vertical-align: top; padding: .35rem .6rem; border-bottom: 1px solid var(--line); }
td.wrap { overflow-wrap: anywhere; }
td.nowrap { white-space: nowrap; }
th { background: var(--bg-soft); font-weight: 600; }
.badge { display: inline-block; font-size: .75rem; font-weight: 700; letter-spacing: .04em; padding: .1rem .5rem; border-radius: 999px; border: 1px solid; white-space: nowrap; }
.badge[data-status="pass"] { color: var(--pass); background: var(--pass-bg); }
.badge[data-status="fail"] { color: var(--fail); background: var(--fail-bg); }
.badge[data-status="fail"][data-warning="true"] { color: var(--warn); background: var(--warn-bg); }
.badge[data-status="inconclusive"] { color: var(--inc); background: var(--inc-bg); }
.badge[data-status="not-exercised"] { color: var(--skip); background: var(--skip-bg); }
.level { font-size: .75rem; font-weight: 600; color: var(--muted); border: 1px solid var(--line); border-radius: 4px; padding: 0 .35rem; }
.rid { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
article.req { border: 1px solid var(--line); border-left: 5px solid var(--skip); border-radius: 6px; padding: .9rem 1.1rem; margin: .9rem 0; }
article.req[data-status="pass"] { border-left-color: var(--pass); }
article.req[data-status="fail"] { border-left-color: var(--fail); }
article.req[data-status="fail"][data-warning="true"] { border-left-color: var(--warn); }
article.req[data-status="inconclusive"] { border-left-color: var(--inc); }
article.req p { margin: .4rem 0; }
.label { font-weight: 600; }
.evidence { margin: .5rem 0 0; padding: 0; list-style: none; }
.evidence > li { margin: .6rem 0; padding-left: .75rem; border-left: 3px solid var(--line); }
.evidence > li[data-kind="violation"] { border-left-color: var(--fail); }
.evidence > li[data-kind="observation"] { border-left-color: var(--inc); }
.kind { font-size: .75rem; font-weight: 700; text-transform: uppercase; color: var(--muted); margin-right: .4rem; }
.exchange-title { color: var(--muted); font-size: .9rem; }
.exchange { margin: .4rem 0 .2rem; }
.pre-label { font-size: .75rem; font-weight: 700; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: .5rem 0 0; }
pre.response { border-left: 3px solid #8c959f; }
pre.curl { background: #fff; }
ol.steps { margin: .5rem 0 0; padding-left: 1.75rem; }
ol.steps > li { margin: .6rem 0; padding-left: .5rem; border-left: 3px solid var(--pass); }
ol.steps > li[data-outcome="violation"] { border-left-color: var(--fail); }
ol.steps .op { font-weight: 700; }
dl.step { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .75rem; margin: .25rem 0; }
dl.step dt { color: var(--muted); }
dl.step dd { margin: 0; overflow-wrap: anywhere; }
dl.step dt.violation { color: var(--fail); font-weight: 600; }
ol.steps.with-model > li { display: grid; grid-template-columns: minmax(0, 3fr) minmax(12rem, 2fr); gap: .4rem 1rem; }
ol.steps .model { border-left: 2px dashed var(--line); padding-left: .75rem; font-size: .9rem; }
ol.steps .model ul { margin: .25rem 0; padding-left: 1.1rem; }
@media (max-width: 40rem) { ol.steps.with-model > li { grid-template-columns: 1fr; } }
.note { color: var(--muted); font-size: .9rem; }
ul.plain { padding-left: 1.25rem; }
table.spec-coverage .checked-by { display: inline-block; margin-right: .75rem; white-space: nowrap; }
table.spec-coverage tr[data-covered="false"] td.checked { color: var(--muted); }
nav.toc ol { columns: 2; padding-left: 1.25rem; }
nav.toc a { display: inline-block; padding: .2rem 0; }
footer { margin-top: 3rem; color: var(--muted); font-size: .85rem; border-top: 1px solid var(--line); padding-top: .75rem; }
@media (max-width: 40rem) { body { padding: 1rem; } dl.meta { grid-template-columns: 1fr; } nav.toc ol { columns: 1; } }
@media print {
  html { font-size: 10.5pt; }
  body { max-width: none; padding: 0; }
  nav.toc { display: none; }
  a { color: inherit; text-decoration: none; }
  h2 { break-after: avoid; page-break-after: avoid; }
  article.req, .verdict, ul.counts li, tr { break-inside: avoid; page-break-inside: avoid; }
  pre { border-color: #999; background: none; }
  .verdict, .badge, ul.counts li, article.req { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  @page { margin: 15mm 12mm; }
}
`;

function badge(r: RequirementResult): string {
  return `<span class="badge" data-status="${r.status}"${isWarning(r) ? ' data-warning="true"' : ''}>${verdictWord(r)}</span>`;
}

/** A requirement of the coverage appendix: a link to its details and this run's verdict. */
function checkedBy(id: string, status: RequirementStatus, requirements: ReadonlyMap<string, RequirementResult>): string {
  const r = requirements.get(id);
  const verdict = r === undefined ? `<span class="badge" data-status="${status}">${STATUS_WORD[status]}</span>` : badge(r);
  return `<span class="checked-by"><a class="rid" href="#${anchor('req', id)}">${esc(id)}</a> ${verdict}</span>`;
}

function coverageRow(s: SentenceCoverage, requirements: ReadonlyMap<string, RequirementResult>): string {
  const checked =
    s.requirements === undefined
      ? `<span class="label">Not testable:</span> ${esc(untestableText(s))}`
      : `${s.requirements.map((c) => checkedBy(c.id, c.status, requirements)).join(' ')}${s.note === undefined ? '' : `<br><span class="note">${esc(s.note)}</span>`}`;
  return `<tr id="${anchor('spec', s.id)}" data-sentence="${esc(s.id)}" data-covered="${s.requirements !== undefined}"><td class="nowrap rid">${esc(s.id)}</td><td class="nowrap">${esc(s.section)}</td><td class="wrap">${esc(s.text)}</td><td class="wrap checked">${checked}</td></tr>`;
}

/** Appendix: sentence → requirements → this run's verdicts, and why the others cannot be tested. */
function specCoverage(report: Report): string {
  if (report.specCoverage === undefined) return '';
  const requirements = new Map(report.requirements.map((r) => [r.id, r]));
  const rows = report.specCoverage.map((s) => coverageRow(s, requirements));
  return `<section aria-labelledby="spec-coverage">
<h2 id="spec-coverage">Appendix: Specification coverage</h2>
${specCoverageSummary(report.specCoverage).map((line) => `<p>${esc(line)}</p>`).join('\n')}
<table class="spec-coverage">
<thead><tr><th scope="col">Sentence</th><th scope="col">§</th><th scope="col">Text of the specification</th><th scope="col">Checked by (this run's verdict), or why no client-side test can</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
</section>`;
}

function headerLines(headers: Record<string, string>): string[] {
  return Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
}

function body(text: string, truncated: boolean): string {
  const shown = clip(text, MAX_BODY);
  return truncated ? `${shown}\n… (the client stopped reading the body here)` : shown;
}

function exchange(ex: ExchangeEvidence, id: string): string {
  const request = [requestLine(ex), ...headerLines(ex.request.headers)];
  if (ex.request.body !== undefined) request.push('', body(ex.request.body, false));
  const parts = [
    `<p class="exchange-title">Exchange #${ex.seq}: ${esc(ex.purpose)} (${esc(humanDuration(ex.elapsedMs))})</p>`,
    '<p class="pre-label">Request</p>',
    `<pre class="request">${esc(request.join('\n'))}</pre>`,
  ];
  if (ex.response !== undefined) {
    const response = [`HTTP ${ex.response.status}`, ...headerLines(ex.response.headers)];
    if (ex.response.body !== '') response.push('', body(ex.response.body, ex.response.truncated));
    parts.push('<p class="pre-label">Response</p>', `<pre class="response">${esc(response.join('\n'))}</pre>`);
  }
  if (ex.error !== undefined) parts.push(`<p><span class="label">No response:</span> <code>${esc(ex.error.code)}</code> ${esc(ex.error.message)}</p>`);
  parts.push('<p class="pre-label">Replay (curl)</p>', `<pre class="curl">${esc(ex.curl)}</pre>`);
  return `<div class="exchange" id="${id}">\n${parts.join('\n')}\n</div>`;
}

/** The exchanges a requirement's evidence shows in full, in order (several violations often rest on one response: shown once). */
function shownExchanges(evidence: readonly Evidence[]): number[] {
  const shown = new Set<number>();
  for (const e of evidence) if (e.exchange !== undefined && shown.size < MAX_EXCHANGES_PER_REQUIREMENT) shown.add(e.exchange.seq);
  return [...shown];
}

const exchangeId = (requirement: string, seq: number): string => anchor('ex', `${requirement}-${seq}`);

/** `timeline`: the timeline's link for each violation it draws, by its index among the requirement's violations. */
function evidenceList(r: RequirementResult, timeline: ReadonlyMap<number, FindingLink>): string {
  const { evidence } = r;
  if (evidence.length === 0) return '';
  const full = new Set(shownExchanges(evidence));
  const shown = new Set<number>();
  const items: string[] = [];
  let violations = 0;
  for (const e of evidence) {
    let detail = '';
    if (e.exchange !== undefined) {
      if (shown.has(e.exchange.seq)) detail = `\n<p class="note">See exchange #${e.exchange.seq} above.</p>`;
      else if (full.has(e.exchange.seq)) {
        shown.add(e.exchange.seq);
        detail = `\n${exchange(e.exchange, exchangeId(r.id, e.exchange.seq))}`;
      }
    }
    let id = '';
    let drawn = '';
    if (e.kind === 'violation') {
      violations += 1;
      id = ` id="${anchor('finding', `${r.id}-${violations}`)}"`;
      const link = timeline.get(violations);
      if (link !== undefined) drawn = ` <a class="tl-link" href="#${link.href}">F${link.n} on the timeline</a>`;
    }
    items.push(`<li data-kind="${e.kind}"${id}><p><span class="kind">${e.kind}</span>${esc(clip(e.message, MAX_TEXT))}${drawn}</p>${detail}</li>`);
  }
  const hidden = distinctExchanges(evidence).length - shown.size;
  const more = hidden > 0 ? `\n<p class="note">${hidden} more exchange${hidden === 1 ? '' : 's'} recorded in report.json.</p>` : '';
  return `<h4>Evidence</h4>\n<ul class="evidence">\n${items.join('\n')}\n</ul>${more}`;
}

/** A step's exchanges, each linked to its mark's row in the timeline when the timeline draws it. */
function stepExchanges(seqs: readonly number[], drawn: ReadonlySet<number>): string {
  if (seqs.length === 0) return '';
  const links = seqs.map((seq) => (drawn.has(seq) ? `<a href="#${rowAnchor(seq)}">#${seq}</a>` : `#${seq}`));
  return ` <span class="note">(exchange${seqs.length === 1 ? '' : 's'} ${links.join(', ')})</span>`;
}

/** The model once the step was judged, beside the step: the pets of the sequence as created, and which a read has shown. */
function modelAside(step: SequenceFailure['steps'][number]): string {
  if (step.model === undefined) return '';
  const items = step.model.length === 0 ? '<li>no pet created yet</li>' : step.model.map((line) => `<li>${esc(clip(line, MAX_TEXT))}</li>`).join('');
  return `<div class="model"><p class="pre-label">Model after step ${step.n}</p><ul>${items}</ul></div>`;
}

/**
 * A failing sequence as numbered steps, each beside the model of the store's pets it was judged
 * against: what was sent, what came back, what the model expected, and a curl line per request.
 */
function sequence(s: SequenceFailure, drawn: ReadonlySet<number>): string {
  const withModel = s.steps.some((step) => step.model !== undefined);
  const steps = s.steps.map((step) => {
    const broke = step.violations ?? [];
    const rows: Array<[string, string]> = [
      ['Received', `<code>${esc(clip(step.received, MAX_TEXT))}</code>`],
      ['Expected', esc(clip(step.expected, MAX_TEXT))],
      ...broke.map((v): [string, string] => ['Violation', esc(clip(v, MAX_TEXT))]),
    ];
    return [
      `<li data-outcome="${broke.length > 0 ? 'violation' : 'as-expected'}">`,
      withModel ? '<div class="step-main">' : '',
      `<p><span class="op">${esc(step.operation)}</span> <code>${esc(clip(step.sent, MAX_TEXT))}</code>${stepExchanges(step.exchanges, drawn)}</p>`,
      `<dl class="step">${rows.map(([k, v]) => `<dt${k === 'Violation' ? ' class="violation"' : ''}>${k}</dt><dd>${v}</dd>`).join('')}</dl>`,
      ...step.curl.map((c) => `<pre class="curl">${esc(c)}</pre>`),
      withModel ? '</div>' : '',
      modelAside(step),
      '</li>',
    ].join('\n');
  });
  return [
    '<h4>Failing sequence</h4>',
    `<p>The shortest one found: ${esc(sequenceDescription(s))}. Each step was sent once the one before had been answered; a getPet names the id its creation returned.</p>`,
    `<ol class="steps${withModel ? ' with-model' : ''}" aria-label="failing sequence">\n${steps.join('\n')}\n</ol>`,
  ].join('\n');
}

/** `drawn`: the exchanges the timeline draws, which a sequence's steps link to. */
function requirement(r: RequirementResult, timeline: ReadonlyMap<number, FindingLink>, drawn: ReadonlySet<number>): string {
  const parts = [
    `<article class="req" id="${anchor('req', r.id)}" data-status="${r.status}"${isWarning(r) ? ' data-warning="true"' : ''} aria-labelledby="${anchor('h', r.id)}">`,
    `<h3 id="${anchor('h', r.id)}"><span class="rid">${esc(r.id)}</span> <span>${esc(r.title)}</span> <span class="level" title="${r.level === 'must' ? 'a failure fails the run' : 'a failure is a warning'}">${r.level.toUpperCase()}</span> ${badge(r)}</h3>`,
    `<p><span class="label">Statement:</span> ${esc(r.statement)}</p>`,
  ];
  if (r.interpretation !== undefined) parts.push(`<p><span class="label">Interpretation (where the spec is silent):</span> ${esc(r.interpretation)}</p>`);
  if (r.reason !== undefined) parts.push(`<p><span class="label">Reason:</span> ${esc(clip(r.reason, MAX_TEXT))}</p>`);
  if (r.tests.length > 0) parts.push(`<p class="note">Tests: ${r.tests.map((t) => esc(t)).join('; ')}</p>`);
  if (r.property !== undefined) {
    const p = r.property;
    parts.push(
      '<h4>Property counterexample</h4>',
      `<p>Shrunk smallest failing input after ${p.numRuns} runs; replay with seed <code>${p.seed}</code> and path <code>${esc(p.path)}</code>.</p>`,
      `<pre aria-label="counterexample">${esc(clip(p.counterexample, MAX_BODY))}</pre>`,
    );
  }
  if (r.sequence !== undefined) parts.push(sequence(r.sequence, drawn));
  const evidence = evidenceList(r, timeline);
  if (evidence !== '') parts.push(evidence);
  parts.push('</article>');
  return parts.join('\n');
}

function completeness(report: Report): string {
  const exercised = report.notExercised.length === 0 ? '' : ' Requirements not exercised by the options of this run are listed below; they do not count against the verdict.';
  if (report.complete) return `Complete: every requirement meant to run got pass or fail.${exercised}`;
  return `Not complete: ${report.summary.inconclusive} requirement${report.summary.inconclusive === 1 ? '' : 's'} meant to run could not be told (inconclusive), so the run cannot show conformance.${exercised}`;
}

function meta(report: Report, context: RenderContext): string {
  const t = report.target;
  const rows: Array<[string, string]> = [
    ['Target', `<code>${esc(t.baseUrl)}</code>${t.embedded ? ' (the embedded reference server)' : ''}`],
    ['Tool', `${esc(report.tool.name)} ${esc(report.tool.version)}`],
    ['Specification', `${esc(report.spec.title)}, version ${esc(report.spec.version)}`],
    ['Started at', `<time datetime="${esc(report.startedAt)}">${esc(report.startedAt)}</time>`],
    ['Duration', `${esc(humanDuration(report.durationMs))}${report.rateLimitWaitMs > 0 ? `, of which ${esc(humanDuration(report.rateLimitWaitMs))} waiting on the rate limit` : ''}`],
    ['Seed', `<code>${report.seed}</code>`],
    ['Run id', `<code>${esc(report.runId)}</code>`],
    ...digestRow(context),
    ['API key', t.keyFingerprint === undefined ? 'none given' : `fingerprint <code>${esc(t.keyFingerprint)}</code> (the key itself is never recorded)`],
  ];
  if (t.plan !== undefined) rows.push(['Plan', esc(describePlan(t.plan))]);
  if (report.keyUse !== undefined) rows.push(['Key use', esc(keyUseLine(report.keyUse))]);
  if (t.access !== undefined) rows.push(['Route', esc(accessLine(t.access))]);
  const o = report.options;
  rows.push(
    ['Requests sent', `${report.requests} (budget ${o.maxRequests})`],
    ['Options', `${o.readOnly ? 'read-only (no pets created)' : 'writes allowed'}; request timeout ${esc(humanDuration(o.timeoutMs))}${o.only.length > 0 ? `; only ${o.only.map((x) => `<code>${esc(x)}</code>`).join(', ')}` : ''}`],
  );
  return `<dl class="meta">\n${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('\n')}\n</dl>`;
}

/** The SHA-256 of the report.json this page was rendered with, so an auditor can check the pair belongs together. */
function digestRow(context: RenderContext): Array<[string, string]> {
  if (context.reportSha256 === undefined) return [];
  return [['report.json SHA-256', `<code class="digest" data-sha256="${esc(context.reportSha256)}">${esc(context.reportSha256)}</code> <span class="note">(<code>sha256sum report.json</code> prints the same)</span>`]];
}

function counts(report: Report): string {
  const s = report.summary;
  const items: Array<[string, string, number, string]> = [
    ['pass', 'pass', s.pass, 'passed'],
    ['fail', 'fail', s.fail, `failed${s.warnings > 0 ? `, ${s.warnings} of them should-level (warning${s.warnings === 1 ? '' : 's'})` : ''}`],
    ['inconclusive', 'inconclusive', s.inconclusive, 'inconclusive'],
    ['not-exercised', 'notExercised', s.notExercised, 'not exercised'],
  ];
  const li = items.map(([cls, key, n, label]) => `<li class="${cls}"><span class="n" data-count="${key}">${n}</span> ${label}</li>`);
  return `<ul class="counts" aria-label="Requirement counts">\n${li.join('\n')}\n</ul>`;
}

function overview(report: Report): string {
  const rows = groupBySection(report.requirements).flatMap((g) =>
    g.requirements.map(
      (r) => `<tr><td class="nowrap"><a class="rid" href="#${anchor('req', r.id)}">${esc(r.id)}</a></td><td class="nowrap">${esc(r.section)}</td><td class="wrap">${esc(r.title)}</td><td class="nowrap">${r.level}</td><td class="nowrap">${badge(r)}</td></tr>`,
    ),
  );
  return `<table>\n<caption class="note">Every requirement of the catalog; details follow by section.</caption>\n<thead><tr><th scope="col">Id</th><th scope="col">§</th><th scope="col">Requirement</th><th scope="col">Level</th><th scope="col">Verdict</th></tr></thead>\n<tbody>\n${rows.join('\n')}\n</tbody>\n</table>`;
}

function listSection(title: string, id: string, intro: string, items: readonly string[], empty: string): string {
  const content = items.length === 0 ? `<p class="note">${empty}</p>` : `<p>${intro}</p>\n<ul class="plain">\n${items.map((i) => `<li>${i}</li>`).join('\n')}\n</ul>`;
  return `<section aria-labelledby="${id}">\n<h2 id="${id}">${title}</h2>\n${content}\n</section>`;
}

/**
 * Where a timeline mark links to: the exchange's place in the evidence, of a requirement whose
 * finding cites it when one does, else of the first requirement (in the page's order) showing it.
 */
function exchangeAnchors(groups: ReturnType<typeof groupBySection>): ExchangeAnchor {
  const shownBy = new Map<string, Set<number>>();
  const order: string[] = [];
  for (const g of groups) {
    for (const r of g.requirements) {
      shownBy.set(r.id, new Set(shownExchanges(r.evidence)));
      order.push(r.id);
    }
  }
  return (seq, preferred) => {
    const id = [...preferred, ...order].find((requirement) => shownBy.get(requirement)?.has(seq) === true);
    return id === undefined ? undefined : exchangeId(id, seq);
  };
}

/**
 * Async because the timeline's charting library (render/timeline-chart.ts) is loaded only when a
 * report.html is rendered.
 */
/** A replay's report must not read as an ordinary run's: it opens with what it replays. */
function replayHeading(report: Report): string {
  const banner = replayBanner(report);
  return banner === undefined ? '' : `<p class="replay-banner" role="note"><strong>${esc(banner)}</strong></p>\n`;
}

export async function renderHtml(report: Report, context: RenderContext = {}): Promise<string> {
  const groups = groupBySection(report.requirements);
  const view = timelineView(report, exchangeAnchors(groups));
  const timeline = await timelineSection(report, view);
  const linksOf = (id: string): ReadonlyMap<number, FindingLink> => timeline.links.get(id) ?? new Map();
  const drawn = new Set(view?.marks.map((m) => m.seq));
  const verdictWordText = verdictWords(report);
  const toc = groups.map((g) => `<li><a href="#${anchor('sec', g.section)}">${esc(sectionHeading(g.section))}</a></li>`);
  const sections = groups.map(
    (g) => `<section aria-labelledby="${anchor('sec', g.section)}">\n<h2 id="${anchor('sec', g.section)}">${esc(sectionHeading(g.section))}</h2>\n${g.requirements.map((r) => requirement(r, linksOf(r.id), drawn)).join('\n')}\n</section>`,
  );
  const observations = listSection(
    'Observations',
    'observations',
    'Behaviour the specification does not rule on, recorded without a verdict.',
    report.observations.map((o) => `<a class="rid" href="#${anchor('req', o.requirement)}">${esc(o.requirement)}</a>: ${esc(clip(o.message, MAX_TEXT))}${o.exchange === undefined ? '' : ` <span class="note">(exchange #${o.exchange})</span>`}`),
    'None.',
  );
  const notExercised = listSection(
    'Not exercised',
    'not-exercised',
    'Left out by the options of this run (not by the target), and how to include them.',
    report.notExercised.map((n) => `<a class="rid" href="#${anchor('req', n.id)}">${esc(n.id)}</a> ${esc(n.reason)}`),
    'Every requirement was exercised.',
  );
  const notTested = listSection(
    'Not tested',
    'not-tested',
    'Statements of the specification this suite does not test, and why.',
    report.notTested.map((n) => `<strong>§ ${esc(n.section)}</strong> ${esc(n.statement)} <span class="note">${esc(n.reason)}</span>`),
    'Every statement of the specification is covered.',
  );
  const created = listSection(
    'Pets created on the target',
    'created',
    'This run created these pets; on a shared staging store they can be found and removed by id.',
    report.createdPetIds.map((id) => `<code>${esc(id)}</code>`),
    'This run created no pets.',
  );
  const runErrors = listSection(
    'Run errors',
    'run-errors',
    'The run itself did not go as planned (not a conformance failure of the target); verdicts may be incomplete.',
    report.runErrors.map((e) => esc(clip(e, MAX_TEXT))),
    'None.',
  );
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="generator" content="${esc(report.tool.name)} ${esc(report.tool.version)}">
<title>${verdictWordText}: ${esc(report.spec.title)} conformance of ${esc(report.target.baseUrl)}</title>
<style>${CSS}${TIMELINE_CSS}</style>
</head>
<body>
<header>
${replayHeading(report)}<h1>Conformance report: ${esc(report.spec.title)} ${esc(report.spec.version)}</h1>
<p class="subtitle">Target <code>${esc(report.target.baseUrl)}</code>, tested by ${esc(report.tool.name)} ${esc(report.tool.version)}</p>
<div class="verdict" data-verdict="${report.verdict}" role="status">
<strong>${esc(report.verdictLine)}</strong>
<p>${esc(completeness(report))}</p>
</div>
${meta(report, context)}
</header>
<main>
<section aria-labelledby="summary">
<h2 id="summary">Summary</h2>
${counts(report)}
<p class="note">Should-requirements that failed are warnings: they are counted as failed but do not fail the run.</p>
</section>
${timeline.html}
<section aria-labelledby="overview">
<h2 id="overview">Requirements at a glance</h2>
${overview(report)}
</section>
<nav class="toc" aria-label="Sections"><h2>Requirements by section</h2><ol>${toc.join('')}</ol></nav>
${sections.join('\n')}
${notExercised}
${observations}
${notTested}
${created}
${runErrors}
${specCoverage(report)}
</main>
<footer>Rendered from report.json (schema version ${report.schemaVersion}${context.reportSha256 === undefined ? '' : `, SHA-256 <code>${esc(context.reportSha256)}</code>`}) of run <code>${esc(report.runId)}</code>. Replay lines read the key from <code>$PETSTORE_API_KEY</code>.</footer>
</body>
</html>
`;
}
