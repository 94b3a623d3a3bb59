// Renders a report.html in Debian's headless Chromium and saves a PNG of its first screen, for
// the README: node scripts/screenshot-report.mjs conformance-report/report.html docs/report.png
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [input = 'conformance-report/report.html', output = 'docs/report.png'] = process.argv.slice(2);
const profile = mkdtempSync(join(tmpdir(), 'pc-shot-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  viewport: { width: 1200, height: 1500 },
});
const page = await context.newPage();
await page.goto(pathToFileURL(resolve(input)).href);
await page.screenshot({ path: output });
await context.close();
rmSync(profile, { recursive: true, force: true });
console.log(`wrote ${output}`);
