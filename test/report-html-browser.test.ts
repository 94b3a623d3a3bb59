/**
 * report.html in a real browser (headless Chromium: Debian's, or the one npm ships, see
 * support/chromium.ts): it must open offline from a file,
 * load nothing else, log no errors, run nothing hostile, and show the counts of the report.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex, type RenderContext } from '../src/report/digest.js';
import { RENDERERS } from '../src/report/renderers.js';
import type { Report } from '../src/report/types.js';
import { axeViolations, launchReportBrowser, screenshot, serious, type Opened, type ReportBrowser } from './support/report-browser.js';
import { hostileReport, mixedReport, sequenceReport, timelineReport } from './support/report-factory.js';
import { tempDirs } from './support/temp-dirs.js';

const SCREENSHOT = resolve(import.meta.dirname, '../test-output/report.png');
const tempDir = tempDirs();
let browser: ReportBrowser | undefined;

beforeAll(async () => {
  // Never skipped: a silently skipped browser test would let a broken report ship.
  browser = await launchReportBrowser(await tempDir('report-html'), await tempDir('chromium'));
});

afterAll(async () => {
  await browser?.close();
});

function open(report: Report, name: string, render: RenderContext = {}): Promise<Opened> {
  if (browser === undefined) throw new Error('no browser');
  return browser.open(report, name, render);
}

describe('report.html in headless Chromium', () => {
  it('loads only itself, logs no errors and shows the summary counts and the SHA-256 of report.json', async () => {
    const report = mixedReport();
    const reportSha256 = sha256Hex(await RENDERERS.json.render(report));
    const { page, url, requests, failed, consoleErrors } = await open(report, 'mixed', { reportSha256 });
    await expect(page.locator('code.digest').first().innerText()).resolves.toBe(reportSha256);
    expect(requests).toEqual([url]);
    expect(failed).toEqual([]);
    expect(consoleErrors).toEqual([]);
    for (const key of ['pass', 'fail', 'inconclusive', 'notExercised'] as const) {
      await expect(page.locator(`[data-count="${key}"]`).textContent()).resolves.toBe(String(report.summary[key]));
    }
    const badges = await page.locator('article.req').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-status')));
    expect(badges).toHaveLength(report.requirements.length);
    await expect(page.title()).resolves.toContain('DOES NOT CONFORM');
    // The specification coverage appendix: one row per sentence, every requirement link lands on its details.
    await expect(page.locator('#spec-coverage').isVisible()).resolves.toBe(true);
    await expect(page.locator('table.spec-coverage tbody tr').count()).resolves.toBe(report.specCoverage?.length);
    const links = await page.locator('table.spec-coverage a.rid').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('href') ?? ''));
    expect(links.length).toBeGreaterThan(0);
    for (const href of new Set(links)) await expect(page.locator(`article${href}`).count(), href).resolves.toBe(1);
    await screenshot(page.locator('section[aria-labelledby="spec-coverage"]'), { path: resolve(SCREENSHOT, '../report-spec-coverage.png') });
    mkdirSync(resolve(SCREENSHOT, '..'), { recursive: true });
    await screenshot(page, { path: SCREENSHOT, fullPage: true });
    expect(existsSync(SCREENSHOT)).toBe(true);
    await page.close();
  });

  it('shows a failing sequence as numbered steps a person can follow, the breaking one marked', async () => {
    const { page, consoleErrors } = await open(sequenceReport(), 'sequence');
    expect(consoleErrors).toEqual([]);
    const steps = page.locator('#req-LIST-005 ol.steps > li');
    await expect(steps.count()).resolves.toBe(4);
    for (let i = 0; i < 4; i++) await expect(steps.nth(i).isVisible()).resolves.toBe(true);
    await expect(steps.evaluateAll((items) => items.map((li) => li.getAttribute('data-outcome')))).resolves.toEqual(['as-expected', 'as-expected', 'as-expected', 'violation']);
    // Numbered as an ordered list, each with what was sent, received and expected, and a curl line.
    await expect(steps.nth(2).innerText()).resolves.toMatch(/getPet GET \/pets\/67[\s\S]*Received[\s\S]*Expected[\s\S]*curl -i /);
    await expect(steps.nth(3).locator('dt.violation').innerText()).resolves.toBe('Violation');
    mkdirSync(resolve(SCREENSHOT, '..'), { recursive: true });
    await screenshot(page.locator('#req-LIST-005'), { path: resolve(SCREENSHOT, '../report-sequence.png') });
    await page.close();
  });

  it('runs nothing from hostile text: no script, no image, no dialog, no request', async () => {
    const report = hostileReport();
    const { page, url, requests, failed, consoleErrors, dialogs } = await open(report, 'hostile');
    expect(requests).toEqual([url]);
    expect(failed).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(dialogs).toEqual([]);
    await expect(page.locator('script, img, iframe, object, embed').count()).resolves.toBe(0);
    // The hostile text is there, as text.
    await expect(page.locator('body').textContent()).resolves.toContain('</script><img src=x onerror="alert(1)">');
    for (const key of ['pass', 'fail', 'inconclusive', 'notExercised'] as const) {
      await expect(page.locator(`[data-count="${key}"]`).textContent()).resolves.toBe(String(report.summary[key]));
    }
    await screenshot(page, { path: resolve(SCREENSHOT, '../report-hostile.png'), fullPage: true });
    await page.close();
  });

  // The timeline's report has every part of the page: the picture, its findings, tables and the evidence they link.
  it.each([
    ['mixed', mixedReport],
    ['sequence', sequenceReport],
    ['timeline', timelineReport],
  ])('%s: axe-core finds no serious or critical accessibility violation (landmarks, names, text alternatives, contrast)', async (name, make) => {
    const { page, consoleErrors } = await open(make(), `axe-${name}`);
    expect(serious(await axeViolations(page))).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await page.close();
  });
});
