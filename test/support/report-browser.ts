/**
 * report.html in a real browser for the report tests: the headless Chromium the machine or
 * node_modules has (support/chromium.ts, nothing downloaded), each report written to a file and
 * opened from it as a reader would, with what the page requested, logged and asked recorded; and
 * axe-core, from node_modules, run inside the page.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { renderHtml } from '../../src/report/render/html.js';
import type { RenderContext } from '../../src/report/digest.js';
import type { Report } from '../../src/report/types.js';
import { CHROMIUM_ARGS, findChromium } from './chromium.js';

export type Page = Awaited<ReturnType<BrowserContext['newPage']>>;

export interface Opened {
  requests: string[];
  failed: string[];
  consoleErrors: string[];
  dialogs: string[];
  page: Page;
  url: string;
}

export interface ReportBrowser {
  /** Renders `report` to `<name>.html` and opens it. */
  open(report: Report, name: string, render?: RenderContext): Promise<Opened>;
  close(): Promise<void>;
}

/** `dir`: the test file's temporary directory (profile, pages); `unpackDir`: where the npm Chromium is unpacked. */
export async function launchReportBrowser(dir: string, unpackDir: string): Promise<ReportBrowser> {
  const build = await findChromium(unpackDir);
  const context = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: build.executablePath,
    env: { ...process.env, ...build.env },
    headless: true,
    args: [...CHROMIUM_ARGS],
    viewport: { width: 1280, height: 900 },
  });
  return {
    async open(report, name, render = {}) {
      const file = join(dir, `${name}.html`);
      writeFileSync(file, await renderHtml(report, render));
      const url = pathToFileURL(file).href;
      const page = await context.newPage();
      const opened: Opened = { requests: [], failed: [], consoleErrors: [], dialogs: [], page, url };
      page.on('request', (r) => opened.requests.push(r.url()));
      page.on('requestfailed', (r) => opened.failed.push(`${r.url()}: ${r.failure()?.errorText ?? 'failed'}`));
      page.on('console', (m) => {
        if (m.type() === 'error') opened.consoleErrors.push(m.text());
      });
      page.on('pageerror', (e) => opened.consoleErrors.push(e.message));
      page.on('dialog', (d) => {
        opened.dialogs.push(d.message());
        void d.dismiss();
      });
      await page.goto(url, { waitUntil: 'load' });
      return opened;
    },
    close: () => context.close(),
  };
}

type Shootable = Pick<Page, 'screenshot'>;

/**
 * The screenshots are artefacts for a human to look at, not evidence the test judges. Chromium
 * without a GPU sometimes answers "Unable to capture screenshot" when the machine is busy (seen in
 * CI while the variant shards ran beside it), so a capture is retried a few times before it fails.
 */
export async function screenshot(target: Shootable, options: Parameters<Shootable['screenshot']>[0], attempts = 4): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await target.screenshot(options);
      return;
    } catch (error) {
      if (attempt >= attempts || !String(error).includes('Unable to capture screenshot')) throw error;
      console.warn(`screenshot attempt ${attempt} of ${attempts}: Chromium could not capture; trying again`);
      await new Promise((done) => setTimeout(done, 300 * attempt));
    }
  }
}

/** One rule axe-core found broken, with where. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's violations on the page, every rule of WCAG 2.x A and AA and its best practices
 * (landmarks, names, text alternatives, contrast among them). The page's CSP forbids scripts, so
 * axe is evaluated through the DevTools protocol, which the CSP does not govern, rather than
 * injected as a script tag: the report itself stays as it is.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    interface AxeResult {
      violations: Array<{ id: string; impact?: string | null; help: string; nodes: Array<{ target: unknown[] }> }>;
    }
    // In the page: no DOM types here, so the page's globals are named as what they are to axe.
    const page = globalThis as unknown as { axe: { run(context: unknown, options: object): Promise<AxeResult> }; document: unknown };
    const result = await page.axe.run(page.document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact ?? null, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => JSON.stringify(n.target)) }));
  });
}

/** The violations a report must not have: serious or critical. */
export const serious = (violations: readonly AxeViolation[]): AxeViolation[] => violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
