/**
 * report.html's "Rate limit over the run": the timeline's picture (render/timeline-chart.ts), what
 * it shows in words for a screen reader or a reader without the picture (a summary, the findings
 * drawn on it with the marks they cite, a table of the windows and one of every request), and
 * the links between it and the evidence: a finding to its place on the timeline, a mark to its
 * exchange. A report without a timeline gets the section with the reason.
 */
import type { Expectation, Report } from '../types.js';
import { CREDENTIAL_LABELS, MAX_MARKS, rowAnchor, timelineAbsence, utcText as utc, type TimelineFinding, type TimelineMark, type TimelineView } from '../timeline.js';
import { clip, humanDuration } from './common.js';
import { anchor, esc } from './html-escape.js';
import { renderTimelineSvg } from './timeline-chart.js';

/** Where a finding's "on the timeline" link goes, and the number it is drawn with. */
export interface FindingLink {
  n: number;
  href: string;
}

const MAX_MESSAGE = 600;
const SUMMARY_ID = 'timeline-summary';

export const TIMELINE_CSS = `
section.timeline figure { margin: .75rem 0; }
svg.timeline-chart { display: block; width: 100%; height: auto; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
svg.timeline-chart a.ring { scroll-margin-top: 45vh; }
svg.timeline-chart a.mark:focus path, svg.timeline-chart a.ring:focus path { stroke: #000; stroke-width: 2; }
section.timeline figcaption { color: var(--muted); font-size: .9rem; margin-top: .4rem; }
ol.timeline-findings { padding-left: 0; list-style: none; }
ol.timeline-findings > li { margin: .5rem 0; padding-left: .75rem; border-left: 3px solid var(--fail); }
.tl-n { font-weight: 700; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; border: 2px solid var(--fg); border-radius: 999px; padding: 0 .35rem; margin-right: .35rem; }
a.tl-link { margin-left: .5rem; font-size: .85rem; white-space: nowrap; }
table.timeline-requests td, table.timeline-windows td { font-variant-numeric: tabular-nums; }
section.timeline details > summary { cursor: pointer; font-weight: 600; margin: .75rem 0 .25rem; }
@media print { svg.timeline-chart { break-inside: avoid; page-break-inside: avoid; } section.timeline details > summary { display: none; } }
`;

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
const at = (s: number): string => `${s.toFixed(3)} s`;

function summary(view: TimelineView): string {
  const c = view.counts;
  const t = view.timeline;
  const clock = t.clock === 'server' ? 'on the server\u2019s clock as the run read it from the Date headers' : 'on the local clock (no response carried a usable Date header)';
  const lastS = view.marks.reduce((max, m) => Math.max(max, m.x), 0);
  const waited = view.waits.reduce((sum, w) => sum + w.width, 0);
  const parts = [
    `${plural(c.requests, 'request')} over ${at(lastS)} from ${utc(t.start)}, ${clock}: ${c.keyed} with the run\u2019s key, ${c.withoutKey} without a valid key`,
    `${plural(c.throttled, 'response')} 429 Too Many Requests, ${c.noRateLimitHeaders} without rate-limit headers${c.lagged > 0 ? `, ${plural(c.lagged, 'read')} of a created pet that lagged its write` : ''}`,
    `${plural(view.windows.length, 'window')} announced by the keyed responses\u2019 X-RateLimit-Reset`,
    view.waits.length === 0 ? 'no wait on the rate limit' : `${plural(view.waits.length, 'wait')}, ${humanDuration(waited * 1000)} in all`,
    view.findings.length === 0 ? 'no finding of the rate limit to draw' : `${plural(view.findings.length, 'finding')} drawn (F1${view.findings.length > 1 ? `\u2013F${view.findings.length}` : ''})`,
  ];
  const thinned = c.thinned > 0 ? ` The picture leaves out ${c.thinned} ordinary served responses (one of every few drawn) to stay under ${MAX_MARKS} marks; the table and report.json list them all.` : '';
  return `${parts.join('; ')}.${thinned}`;
}

const HOW_TO_READ =
  'Each request is a mark at the moment the server handled it. Top lane: responses to the run\u2019s key at the height of the X-RateLimit-Remaining they announced; ' +
  'lanes below: responses with the key but no usable Remaining, and requests made without a valid key, which a server may count apart. ' +
  'Shape tells the operation (circle listPets, square getPet, diamond createPet, triangle listOrders, arrow any other path); a filled mark was served (2xx), a hollow one refused (4xx or 5xx); ' +
  'an X is a 429; an hourglass a read of a pet the run created that did not find it yet and was made again. ' +
  'Dotted vertical lines are the Resets the windows announced; dashed grey spans labelled W1, W2\u2026 are waits the run made; ' +
  'a ring labelled F1, F2\u2026 marks an exchange a finding cites, and a bold dashed line what that finding expected. Each mark links to its exchange.';

function expectationText(e: Expectation, start: number): string {
  switch (e.kind) {
    case 'remaining-at-most':
      return `X-RateLimit-Remaining should have been at most ${e.value}`;
    case 'remaining-at-least':
      return `the announced requests left at least ${e.value} to serve`;
    case 'limit':
      return `X-RateLimit-Limit should have been ${e.value}`;
    case 'window-until':
      return `the window lasts until ${utc(e.value)} (${at((e.value - start) / 1000)})`;
    case 'served-from':
      return `a request from ${utc(e.value)} (${at((e.value - start) / 1000)}) on should have been served`;
  }
}

/**
 * Each finding's place on the timeline (by its number): the ring of its first cited mark that no
 * finding before it took, else its line in the list below the picture; and those rings' ids, by
 * the ringed mark's seq.
 */
export function findingPlaces(view: TimelineView): { places: Map<number, string>; rings: Map<number, string> } {
  const drawn = new Set(view.marks.map((m) => m.seq));
  const places = new Map<number, string>();
  const rings = new Map<number, string>();
  for (const f of view.findings) {
    const seq = f.cites.find((s) => drawn.has(s) && !rings.has(s));
    if (seq !== undefined) rings.set(seq, `tl-f${f.n}`);
    places.set(f.n, seq === undefined ? `tl-finding-${f.n}` : `tl-f${f.n}`);
  }
  return { places, rings };
}

function markLinks(seqs: readonly number[], bySeq: ReadonlyMap<number, TimelineMark>): string {
  return seqs.map((seq) => `<a href="#${bySeq.get(seq)?.href ?? rowAnchor(seq)}">#${seq}</a>`).join(', ');
}

function findingItem(f: TimelineFinding, view: TimelineView, bySeq: ReadonlyMap<number, TimelineMark>): string {
  const expected = f.expected === undefined ? '' : ` Expected: ${esc(expectationText(f.expected, view.timeline.start))}.`;
  return (
    `<li id="tl-finding-${f.n}"><span class="tl-n">F${f.n}</span><a class="rid" href="#${anchor('finding', `${f.requirement}-${f.index}`)}">${esc(f.requirement)}</a> ` +
    `${esc(clip(f.message, MAX_MESSAGE))} <span class="note">Marks: ${markLinks(f.cites, bySeq)}.${expected}</span></li>`
  );
}

function windowsTable(view: TimelineView): string {
  if (view.windows.length === 0) return '<p class="note">No keyed response carried an X-RateLimit-Reset, so no window can be told.</p>';
  const rows = view.windows.map(
    (w) =>
      `<tr><td class="nowrap">${esc(utc(w.reset * 1000))}</td><td class="nowrap">${w.x === undefined ? 'beyond the picture' : at(w.x)}</td><td>#${w.first}\u2013#${w.last}</td><td>${w.requests}</td><td>${w.served}</td><td>${w.throttled}</td><td>${w.lowestRemaining ?? '\u2013'}</td><td>${w.limit ?? '\u2013'}</td></tr>`,
  );
  return `<table class="timeline-windows">
<caption class="note">Windows, by the X-RateLimit-Reset the keyed responses announced.</caption>
<thead><tr><th scope="col">Reset (UTC)</th><th scope="col">On the timeline</th><th scope="col">Exchanges</th><th scope="col">With the key</th><th scope="col">Served</th><th scope="col">429</th><th scope="col">Lowest Remaining</th><th scope="col">Limit</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`;
}

function waitsList(view: TimelineView): string {
  if (view.waits.length === 0) return '';
  const items = view.waits.map((w) => `<li><span class="tl-n">W${w.n}</span>from ${at(w.x)} for ${esc(humanDuration(w.width * 1000))}: ${esc(clip(w.reason, MAX_MESSAGE))}</li>`);
  return `<h3>Waits</h3>\n<ul class="plain">\n${items.join('\n')}\n</ul>`;
}

function requestRow(m: TimelineMark): string {
  const r = m.response;
  const notes = [r.retryAfter === undefined ? '' : `Retry-After ${r.retryAfter}`, r.retryOf === undefined ? '' : `retry of #${r.retryOf}`, r.lagged === true ? 'read lagged its write' : '', m.cited.map((n) => `F${n}`).join(' ')].filter((n) => n !== '');
  const status = r.status === undefined ? `no response (${r.error ?? 'error'})` : String(r.status);
  const link = m.href === rowAnchor(m.seq) ? `#${m.seq}` : `<a href="#${m.href}">#${m.seq}</a>`;
  return `<tr id="${rowAnchor(m.seq)}"><td>${link}</td><td>${at(m.x)}</td><td>${esc(r.op)}</td><td>${esc(status)}</td><td>${esc(CREDENTIAL_LABELS[r.auth])}</td><td>${r.limit ?? '\u2013'}</td><td>${r.remaining ?? '\u2013'}</td><td class="nowrap">${r.reset === undefined ? '\u2013' : esc(utc(r.reset * 1000).slice(11))}</td><td>${esc(notes.join('; '))}</td></tr>`;
}

function requestsTable(view: TimelineView): string {
  return `<details>
<summary>Every request drawn (${view.marks.length})</summary>
<table class="timeline-requests">
<caption class="note">Each request of the picture, in send order: the exchange (linked to the evidence where it is shown), when the server handled it, what it was and what the rate-limit headers said.</caption>
<thead><tr><th scope="col">Exchange</th><th scope="col">At</th><th scope="col">Operation</th><th scope="col">Status</th><th scope="col">Credential</th><th scope="col">Limit</th><th scope="col">Remaining</th><th scope="col">Reset (UTC)</th><th scope="col">Notes</th></tr></thead>
<tbody>
${view.marks.map(requestRow).join('\n')}
</tbody>
</table>
</details>`;
}

/**
 * The section, and for each requirement the links its violations take to the timeline (by their
 * index among the requirement's violations).
 */
export async function timelineSection(report: Report, view: TimelineView | undefined): Promise<{ html: string; links: Map<string, Map<number, FindingLink>> }> {
  const links = new Map<string, Map<number, FindingLink>>();
  const open = '<section class="timeline" aria-labelledby="timeline">\n<h2 id="timeline">Rate limit over the run</h2>';
  if (view === undefined) return { html: `${open}\n<p class="note">${esc(timelineAbsence(report))}</p>\n</section>`, links };
  const { places, rings } = findingPlaces(view);
  for (const f of view.findings) {
    const byIndex = links.get(f.requirement) ?? new Map<number, FindingLink>();
    byIndex.set(f.index, { n: f.n, href: places.get(f.n) ?? `tl-finding-${f.n}` });
    links.set(f.requirement, byIndex);
  }
  const svg = await renderTimelineSvg(view, rings);
  const bySeq = new Map(view.marks.map((m) => [m.seq, m]));
  const findings =
    view.findings.length === 0
      ? '<p class="note">No finding of the rate limit cites an exchange of this run.</p>'
      : `<ol class="timeline-findings" aria-label="Findings on the timeline">\n${view.findings.map((f) => findingItem(f, view, bySeq)).join('\n')}\n</ol>`;
  const html = [
    open,
    `<p id="${SUMMARY_ID}">${esc(summary(view))}</p>`,
    `<figure aria-labelledby="${SUMMARY_ID}">`,
    svg,
    `<figcaption>${esc(HOW_TO_READ)}</figcaption>`,
    '</figure>',
    '<h3>Findings on the timeline</h3>',
    findings,
    '<h3>Windows</h3>',
    windowsTable(view),
    waitsList(view),
    requestsTable(view),
    '</section>',
  ].join('\n');
  return { html, links };
}
