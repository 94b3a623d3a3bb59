/**
 * The timeline of real runs in report.html, in headless Chromium (support/report-browser.ts):
 * the embedded run, a limiter that counts per operation (Flask-Limiter's and NestJS's default)
 * and a server whose Remaining stands still. Each run's report.json is rendered as `report`
 * would render it; the page must draw one mark per request with the report's own counts, ring
 * the marks each rate-limit finding cites, link each finding to its place and each mark to its
 * exchange, and pass axe-core with no serious or critical violation.
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

const OUTPUT = resolve(import.meta.dirname, '../test-output');
const tempDir = tempDirs();
let browser: ReportBrowser | undefined;

beforeAll(async () => {
  browser = await launchReportBrowser(await tempDir('report-timeline'), await tempDir('chromium'));
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

/** No finding label's box overlaps another text of the picture (another label, a lane's, an axis'). */
async function expectNoLabelOverlaps(page: Page): Promise<number> {
  const boxes = await page.locator('svg.timeline-chart text').evaluateAll((texts) =>
    texts.map((t) => {
      const r = t.getBoundingClientRect();
      return { text: t.textContent, x: r.x, y: r.y, width: r.width, height: r.height };
    }),
  );
  const labels = boxes.filter((b) => /^F\d+/.test(b.text ?? '') && b.width > 0);
  const overlapping = labels.flatMap((a) =>
    boxes.filter((b) => b !== a && b.width > 0 && a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height).map((b) => `${a.text} / ${b.text}`),
  );
  expect(overlapping).toEqual([]);
  return labels.length;
}

async function expectAccessible(page: Page): Promise<void> {
  expect(serious(await axeViolations(page))).toEqual([]);
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
    await expectAccessible(page);
    expect(consoleErrors).toEqual([]);
    expect(requests).toEqual([url]);
    await mkdir(OUTPUT, { recursive: true });
    await screenshot(page.locator('section.timeline'), { path: join(OUTPUT, 'timeline-embedded.png') });
    await page.close();
  });

  it('a limit counted per operation: the rise is drawn between the two marks it compares, with the bound Remaining broke', async () => {
    const report = await variantReport('limits-per-operation', 'RATE-002');
    const { page, consoleErrors } = await (browser as ReportBrowser).open(report, 'limits-per-operation');
    await expectTheRunsCounts(page, report);
    expect(await expectFindingsDrawn(page, report)).toBeGreaterThan(0);
    expect(await expectNoLabelOverlaps(page)).toBeGreaterThan(0);
    const rises = timelineFindings(report).filter((f) => f.requirement === 'RATE-002' && f.expected?.kind === 'remaining-at-most');
    expect(rises.length).toBeGreaterThan(0);
    for (const rise of rises) {
      const later = report.timeline?.responses.find((r) => r.seq === rise.cites[0]);
      // The picture shows what the finding says: the later mark above the most Remaining could have been.
      expect(later?.remaining).toBeGreaterThan(rise.expected?.value ?? Infinity);
      expect(rise.pairedWith).toBe(rise.cites[1]);
    }
    await expectAccessible(page);
    expect(consoleErrors).toEqual([]);
    await screenshot(page.locator('section.timeline'), { path: join(OUTPUT, 'timeline-limits-per-operation.png') });
    await page.close();
  });

  it('a Remaining that stands still: each RATE-002 finding points at the marks it cites', async () => {
    const report = await variantReport('remaining-frozen', 'RATE-002');
    const { page, consoleErrors } = await (browser as ReportBrowser).open(report, 'remaining-frozen');
    await expectTheRunsCounts(page, report);
    expect(await expectFindingsDrawn(page, report)).toBeGreaterThan(0);
    expect(await expectNoLabelOverlaps(page)).toBeGreaterThan(0);
    await expectAccessible(page);
    expect(consoleErrors).toEqual([]);
    await screenshot(page.locator('section.timeline'), { path: join(OUTPUT, 'timeline-remaining-frozen.png') });
    await page.close();
  });

  it('a Free key\u2019s 60 s windows (docs/report.json, a run of the reference with its own windows): the wait collapsed and labelled, every mark drawn, no label overlapping', async () => {
    const report = parseReport(await readFile(resolve(import.meta.dirname, '../docs/report.json'), 'utf8'), 'docs/report.json');
    expect(report.timeline?.waits.some((w) => w.ms > 20_000), 'a wait no short window has').toBe(true);
    const { page, consoleErrors } = await (browser as ReportBrowser).open(report, 'free-60s');
    await expectTheRunsCounts(page, report);
    expect(await expectFindingsDrawn(page, report)).toBeGreaterThan(0);
    expect(await expectNoLabelOverlaps(page)).toBeGreaterThan(0);
    await expect(page.locator('svg.timeline-chart text', { hasText: /\u22ef \d+ s wait \u22ef/ }).count()).resolves.toBe(1);
    expect(consoleErrors).toEqual([]);
    await screenshot(page.locator('section.timeline'), { path: join(OUTPUT, 'timeline-free-60s.png') });
    await page.close();
  });
});
