/**
 * The timeline of real runs in report.html, in headless Chromium (support/report-browser.ts):
 * the embedded run, a limiter that counts per operation (Flask-Limiter's and NestJS's default),
 * a server whose Remaining stands still and one that refuses a burst early; the reference's own
 * windows aligned to the clock at 3 s and, from docs/report.json, at a Free key's 60 s, each with a
 * replay's report beside it. Each report.json is rendered as `report` would render it; the page
 * must draw one mark per request with the report's own counts (every keyed response its own, inside
 * the picture), ring the marks each rate-limit finding cites, link each finding to its place and
 * each mark to its exchange, print no text over another, read the run's real seconds on its axis (a
 * collapsed wait included), and pass axe-core with no serious or critical violation.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../src/report/types.js';
import { timelineFindings } from '../src/report/timeline.js';
import { parseReport } from '../src/report/load.js';
import { runCli } from './support/cli.js';
import { axeViolations, launchReportBrowser, screenshot, serious, type Page, type ReportBrowser } from './support/report-browser.js';
import { tempDirs } from './support/temp-dirs.js';
import { describeNotPassed, runVariant, variantNamed, VARIANT_SEED } from './support/variant-run.js';
import { alignedWindowLimiter, startReferenceServer } from '../fixtures/reference-server/index.js';
import { variantServerOptions } from '../fixtures/variants/index.js';

const OUTPUT = resolve(import.meta.dirname, '../test-output');
const tempDir = tempDirs();
let browser: ReportBrowser | undefined;

beforeAll(async () => {
  browser = await launchReportBrowser(await tempDir('report-timeline'), await tempDir('chromium'));
  // Every case saves its picture there, whichever cases a filter runs.
  await mkdir(OUTPUT, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
});

async function embeddedReport(): Promise<Report> {
  const dir = await tempDir('embedded');
  const cli = await runCli(['--report-dir', dir, '--reporter', 'json', '--seed', String(VARIANT_SEED)]);
  expect(cli.code, cli.stderr).not.toBe(2);
  return JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report;
}

async function variantReport(name: string, fails: string): Promise<Report> {
  const run = await runVariant(variantNamed(name));
  expect(run.reportError).toBeUndefined();
  expect(run.failing, describeNotPassed(run)).toContain(fails);
  if (run.report === undefined) throw new Error(`no report of ${name}`);
  return run.report;
}

const count = (page: Page, selector: string): Promise<number> => page.locator(selector).count();

/** The page's counts against the report's: one mark per request, in its lane, 429s marked as such. */
async function expectTheRunsCounts(page: Page, report: Report): Promise<void> {
  const responses = report.timeline?.responses ?? [];
  expect(responses.length).toBe(report.requests);
  const keyed = responses.filter((r) => r.auth === 'key').length;
  expect(keyed).toBe(report.requestsByKey?.withKey);
  await expect(page.locator('svg.timeline-chart').isVisible()).resolves.toBe(true);
  expect((await page.locator('svg.timeline-chart').boundingBox())?.width).toBeGreaterThan(600);
  await expect(count(page, 'svg.timeline-chart a.mark')).resolves.toBe(report.requests);
  await expect(count(page, 'svg.timeline-chart a.mark[data-auth="key"]')).resolves.toBe(keyed);
  // One mark per keyed response, each its own, and each inside the picture (a mark past the plot's edge is not seen).
  const svg = await page.locator('svg.timeline-chart').boundingBox();
  const keyedMarks = await page.locator('svg.timeline-chart a.mark[data-auth="key"]').evaluateAll((links) =>
    links.map((a) => {
      const r = a.getBoundingClientRect();
      return { seq: Number(a.getAttribute('data-seq')), left: r.x, right: r.x + r.width, width: r.width };
    }),
  );
  expect(keyedMarks.map((m) => m.seq).sort((a, b) => a - b)).toEqual(responses.filter((r) => r.auth === 'key').map((r) => r.seq).sort((a, b) => a - b));
  const outside = keyedMarks.filter((m) => svg === null || !(m.width > 0 && m.left >= svg.x && m.right <= svg.x + svg.width)).map((m) => m.seq);
  expect(outside).toEqual([]);
  await expect(count(page, 'svg.timeline-chart a.mark[data-lane="without-key"]')).resolves.toBe(report.requestsByKey?.withoutKey);
  await expect(count(page, 'svg.timeline-chart a.mark[data-kind="throttled"]')).resolves.toBe(responses.filter((r) => r.status === 429).length);
  await expect(page.locator('#timeline-summary').innerText()).resolves.toContain(`${keyed} with the run\u2019s key, ${report.requestsByKey?.withoutKey} without a valid key`);
  // Every mark's link lands on something: its exchange in the evidence, or its row.
  const missing = await page.locator('svg.timeline-chart a.mark').evaluateAll((links) =>
    links.map((a) => (a.getAttribute('href') ?? '').slice(1)).filter((id) => (globalThis as unknown as { document: { getElementById(id: string): unknown } }).document.getElementById(id) === null),
  );
  expect(missing).toEqual([]);
}

/** Each rate-limit finding of the report: linked to a ring on one of its marks, every mark it cites ringed and numbered. */
async function expectFindingsDrawn(page: Page, report: Report): Promise<number> {
  const findings = timelineFindings(report).filter((f) => f.requirement.startsWith('RATE-'));
  for (const f of findings) {
    const link = page.locator(`#finding-${f.requirement}-${f.index} a.tl-link`);
    await expect(link.innerText()).resolves.toBe(`F${f.n} on the timeline`);
    const target = ((await link.getAttribute('href')) ?? '').slice(1);
    // Its place: the ring of one of its marks (the first no finding before it took), else its line under the picture.
    if (target === `tl-finding-${f.n}`) await expect(count(page, `li#${target}`)).resolves.toBe(1);
    else expect(f.cites).toContain(Number(await page.locator(`svg.timeline-chart a.ring#${target}`).getAttribute('data-seq')));
    for (const seq of f.cites) {
      const cited = (await page.locator(`svg.timeline-chart a.mark[data-seq="${seq}"]`).getAttribute('data-cited')) ?? '';
      expect(cited.split(' '), `mark #${seq}`).toContain(String(f.n));
      await expect(count(page, `svg.timeline-chart a.ring[data-seq="${seq}"]`)).resolves.toBe(1);
    }
    if (f.expected?.kind === 'remaining-at-most') await expect(page.locator('svg.timeline-chart text', { hasText: `F${f.n}: at most ${f.expected.value}` }).count()).resolves.toBe(1);
    // Following the link brings the reader to its place; following the ring, to the exchange it cites.
    await link.click();
    await expect(page.evaluate(() => (globalThis as unknown as { location: { hash: string } }).location.hash)).resolves.toBe(`#${target}`);
    if (target === `tl-finding-${f.n}`) continue;
    const ring = page.locator(`svg.timeline-chart a.ring#${target}`);
    const exchange = ((await ring.getAttribute('href')) ?? '').slice(1);
    // A click event on the ring itself: where marks crowd, a pointer at its centre may land on a neighbour's.
    await ring.dispatchEvent('click');
    await expect(page.locator(`#${exchange}:target`).count(), `${f.requirement} F${f.n} → #${exchange}`).resolves.toBe(1);
  }
  return findings.length;
}

interface TextBox {
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The picture's texts as Chromium laid them out, the invisible ones left out. */
async function textBoxes(page: Page): Promise<TextBox[]> {
  const boxes = await page.locator('svg.timeline-chart text').evaluateAll((texts) =>
    texts.map((t) => {
      const r = t.getBoundingClientRect();
      return { text: t.textContent ?? '', x: r.x, y: r.y, width: r.width, height: r.height };
    }),
  );
  return boxes.filter((b) => b.width > 0 && b.height > 0);
}

/**
 * No two texts of the picture overlap: finding labels, lane and axis labels, the seconds under the
 * axis, a collapsed wait's band, Resets, waits, the legend. Returns how many finding labels there are.
 */
async function expectNoLabelOverlaps(page: Page): Promise<number> {
  const boxes = await textBoxes(page);
  const overlapping = boxes.flatMap((a, i) =>
    boxes.slice(i + 1).filter((b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height).map((b) => `${a.text} / ${b.text}`),
  );
  expect(overlapping).toEqual([]);
  return boxes.filter((b) => /^F\d+/.test(b.text)).length;
}

/** The x axis' labels: the seconds under the lowest lane, read left to right. */
async function axisSeconds(page: Page): Promise<Array<{ s: number; x: number }>> {
  const boxes = await textBoxes(page);
  const seconds = boxes.filter((b) => /^\d+(\.\d+)? s$/.test(b.text));
  // The band of a collapsed wait may say "52 s" too: the ticks are the lowest row of them.
  const bottom = Math.max(...seconds.map((b) => b.y));
  return seconds.filter((b) => Math.abs(b.y - bottom) < 1).map((b) => ({ s: Number.parseFloat(b.text), x: b.x + b.width / 2 })).sort((a, b) => a.x - b.x);
}

/**
 * The axis reads the run's real seconds: its labels start at 0 s and rise left to right, and every
 * mark stands where its moment falls among them (a tick at 54 s is right of every mark sent before
 * 54 s and left of every one sent after), collapsed wait or not. Returns the labels.
 */
async function expectAxisReadsTheSeconds(page: Page, report: Report): Promise<number[]> {
  const ticks = await axisSeconds(page);
  expect(ticks.length).toBeGreaterThanOrEqual(2);
  expect(ticks[0]?.s).toBe(0);
  for (const [i, t] of ticks.entries()) if (i > 0) expect(t.s, ticks.map((k) => k.s).join(', ')).toBeGreaterThan(ticks[i - 1]?.s ?? Infinity);
  const atOf = new Map((report.timeline?.responses ?? []).map((r) => [r.seq, r.t / 1000]));
  const marks = await page.locator('svg.timeline-chart a.mark').evaluateAll((links) =>
    links.map((a) => {
      const r = a.getBoundingClientRect();
      return { seq: Number(a.getAttribute('data-seq')), x: r.x + r.width / 2 };
    }),
  );
  // Half a symbol's width either way: a tick and a mark at the same moment may differ by its rounding.
  const misplaced = marks.flatMap((m) => {
    const at = atOf.get(m.seq) ?? Number.NaN;
    return ticks.filter((t) => (t.s < at && t.x > m.x + 4) || (t.s > at && t.x < m.x - 4)).map((t) => `#${m.seq} (${at} s) at x ${m.x.toFixed(1)}, tick ${t.s} s at x ${t.x.toFixed(1)}`);
  });
  expect(misplaced.slice(0, 5)).toEqual([]);
  return ticks.map((t) => t.s);
}

async function expectAccessible(page: Page): Promise<void> {
  expect(serious(await axeViolations(page))).toEqual([]);
}

/**
 * A run with rate-limit findings, rendered: its counts, its findings drawn and linked, its texts
 * none over another (finding labels among them), its axis in real seconds, accessible, no error
 * logged; the picture saved as test-output/timeline-<name>.png.
 */
async function expectFindingsAndTextsDrawn(report: Report, name: string): Promise<void> {
  const { page, consoleErrors } = await (browser as ReportBrowser).open(report, name);
  await expectTheRunsCounts(page, report);
  expect(await expectFindingsDrawn(page, report)).toBeGreaterThan(0);
  expect(await expectNoLabelOverlaps(page)).toBeGreaterThan(0);
  await expectAxisReadsTheSeconds(page, report);
  await expectAccessible(page);
  expect(consoleErrors).toEqual([]);
  await screenshot(page.locator('section.timeline'), { path: join(OUTPUT, `timeline-${name}.png`) });
  await page.close();
}

describe('the timeline of real runs in report.html', () => {
  it('the embedded run: one mark per request, lanes and counts as report.json has them, accessible', async () => {
    const report = await embeddedReport();
    const { page, consoleErrors, requests, url } = await (browser as ReportBrowser).open(report, 'embedded');
    await expectTheRunsCounts(page, report);
    // The 429 that RATE-005 judged, and the wait for its Retry-After before RATE-006's retry.
    if (report.requirements.find((r) => r.id === 'RATE-005')?.status === 'pass') {
      expect(report.timeline?.responses.some((r) => r.status === 429)).toBe(true);
      expect(report.timeline?.waits.length).toBeGreaterThan(0);
    }
    expect(await expectFindingsDrawn(page, report)).toBe(report.requirements.filter((r) => r.id.startsWith('RATE-')).flatMap((r) => r.evidence.filter((e) => e.kind === 'violation')).length);
    await expectNoLabelOverlaps(page);
    await expectAxisReadsTheSeconds(page, report);
    await expectAccessible(page);
    expect(consoleErrors).toEqual([]);
    expect(requests).toEqual([url]);
    await mkdir(OUTPUT, { recursive: true });
    await screenshot(page.locator('section.timeline'), { path: join(OUTPUT, 'timeline-embedded.png') });
    await page.close();
  });

  it('a limit counted per operation: the rise is drawn between the two marks it compares, with the bound Remaining broke', async () => {
    const report = await variantReport('limits-per-operation', 'RATE-002');
    await expectFindingsAndTextsDrawn(report, 'limits-per-operation');
    const rises = timelineFindings(report).filter((f) => f.requirement === 'RATE-002' && f.expected?.kind === 'remaining-at-most');
    expect(rises.length).toBeGreaterThan(0);
    for (const rise of rises) {
      const later = report.timeline?.responses.find((r) => r.seq === rise.cites[0]);
      // The picture shows what the finding says: the later mark above the most Remaining could have been.
      expect(later?.remaining).toBeGreaterThan(rise.expected?.value ?? Infinity);
      expect(rise.pairedWith).toBe(rise.cites[1]);
    }
  });

  it('a Remaining that stands still: each RATE-002 finding points at the marks it cites', async () => {
    await expectFindingsAndTextsDrawn(await variantReport('remaining-frozen', 'RATE-002'), 'remaining-frozen');
  });

  it('an early 429 (refused while Remaining said 20 were left; a burst\u2019s requests may each wait out theirs): no wait\u2019s name, Reset or finding label over another', async () => {
    await expectFindingsAndTextsDrawn(await variantReport('early-429-remaining-20', 'RATE-002'), 'early-429');
  });

  it('a Free key\u2019s 60 s windows (docs/report.json, a run of the reference with its own windows): the wait collapsed and labelled, every mark drawn, no label overlapping', async () => {
    const report = parseReport(await readFile(resolve(import.meta.dirname, '../docs/report.json'), 'utf8'), 'docs/report.json');
    expect(report.timeline?.waits.some((w) => w.ms > 20_000), 'a wait no short window has').toBe(true);
    const { page, consoleErrors } = await (browser as ReportBrowser).open(report, 'free-60s');
    await expectTheRunsCounts(page, report);
    expect(await expectFindingsDrawn(page, report)).toBeGreaterThan(0);
    expect(await expectNoLabelOverlaps(page)).toBeGreaterThan(0);
    await expect(page.locator('svg.timeline-chart text', { hasText: /\u22ef \d+ s wait \u22ef/ }).count()).resolves.toBe(1);
    // The seconds after the band are on the axis too, where the marks after the wait stand.
    const ticks = await expectAxisReadsTheSeconds(page, report);
    const wait = Math.max(...(report.timeline?.waits ?? []).filter((w) => w.ms > 20_000).map((w) => w.t)) / 1000;
    expect(ticks.some((t) => t > wait + 10), ticks.join(', ')).toBe(true);
    expect(consoleErrors).toEqual([]);
    await screenshot(page.locator('section.timeline'), { path: join(OUTPUT, 'timeline-free-60s.png') });
    await page.close();
  });

  it('a legend of eight entries (docs/report.json with a lagging read, a path outside the interface and a 500): wrapped to two rows, the finding labels below both', async () => {
    const report = parseReport(await readFile(resolve(import.meta.dirname, '../docs/report.json'), 'utf8'), 'docs/report.json');
    const responses = report.timeline?.responses ?? [];
    const [lagging, other, refused] = responses.filter((r) => r.auth === 'key' && r.status === 200).slice(1, 4);
    if (lagging === undefined || other === undefined || refused === undefined) throw new Error('docs/report.json has too few served requests');
    Object.assign(lagging, { lagged: true });
    Object.assign(other, { op: 'other' });
    Object.assign(refused, { status: 500 });
    const { page, consoleErrors } = await (browser as ReportBrowser).open(report, 'free-60s-eight-kinds');
    await expectTheRunsCounts(page, report);
    expect(await expectNoLabelOverlaps(page)).toBeGreaterThan(0);
    const boxes = await textBoxes(page);
    // The keyed lane's top: its highest Remaining label. Above it only the legend and the finding labels.
    const laneTop = Math.min(...boxes.filter((b) => /^\d+$/.test(b.text)).map((b) => b.y));
    const labels = boxes.filter((b) => /^F\d+/.test(b.text));
    const legend = boxes.filter((b) => b.y + b.height < laneTop && !/^F\d+/.test(b.text));
    expect(new Set(legend.map((b) => Math.round(b.y))).size, legend.map((b) => b.text).join(', ')).toBe(2);
    expect(Math.min(...labels.map((b) => b.y))).toBeGreaterThanOrEqual(Math.max(...legend.map((b) => b.y + b.height)));
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it('3 s windows (the reference\u2019s own, aligned to the clock): the run and its replay, every keyed response a mark, no text over another, the seconds on the axis', async () => {
    const { run, replay } = await runAndReplay('limits-per-operation', 3);
    expect(run.requirements.find((r) => r.id === 'RATE-002')?.status).toBe('fail');
    await expectFindingsAndTextsDrawn(run, 'aligned-3s');
    await expectReplayDrawn(replay, 'aligned-3s-replay');
  });

  it('a replay of docs/report.json (60 s windows) against the reference with 60 s windows: its own timeline, drawn as a run\u2019s', async () => {
    const { replay } = await runAndReplay('limits-per-operation', 60, resolve(import.meta.dirname, '../docs/report.json'));
    await expectReplayDrawn(replay, 'free-60s-replay');
  });
});

/**
 * A run of the variant on the reference's own windows of `windowSeconds`, aligned to the clock,
 * and the replay of its report (or of `input`) against the same server: both reports.
 */
async function runAndReplay(name: string, windowSeconds: number, input?: string): Promise<{ run: Report; replay: Report }> {
  const variant = variantNamed(name);
  const server = await startReferenceServer(variantServerOptions(variant, { windowSeconds, limiter: alignedWindowLimiter }));
  try {
    const plan = variant.plan ?? 'free';
    const env = { PETSTORE_API_KEY: server.keys[plan] };
    const common = ['--base-url', server.baseUrl, '--plan', plan, '--reporter', 'json'];
    let report = input;
    if (report === undefined) {
      const dir = await tempDir(`run-${windowSeconds}s`);
      const ran = await runCli([...common, '--seed', String(VARIANT_SEED), '--report-dir', dir], env);
      expect(ran.code, ran.stderr).toBe(1);
      report = join(dir, 'report.json');
    }
    const out = await tempDir(`replay-${windowSeconds}s`);
    const replayed = await runCli(['replay', report, ...common, '--report-dir', out], env);
    // 0 fixed, 1 still failing, 2 could not tell: each a replay that ran to its end.
    expect([0, 1, 2], replayed.stderr).toContain(replayed.code);
    const read = async (file: string): Promise<Report> => parseReport(await readFile(file, 'utf8'), file);
    return { run: await read(report), replay: await read(join(out, 'report.json')) };
  } finally {
    await server.close();
  }
}

/** A replay's report: a replay, its timeline the replay's own requests, drawn as a run's is. */
async function expectReplayDrawn(replay: Report, name: string): Promise<void> {
  expect(replay.replayOf).toBeDefined();
  const { page, consoleErrors } = await (browser as ReportBrowser).open(replay, name);
  await expectTheRunsCounts(page, replay);
  await expectFindingsDrawn(page, replay);
  await expectNoLabelOverlaps(page);
  await expectAxisReadsTheSeconds(page, replay);
  await expectAccessible(page);
  expect(consoleErrors).toEqual([]);
  await screenshot(page.locator('section.timeline'), { path: join(OUTPUT, `timeline-${name}.png`) });
  await page.close();
}
