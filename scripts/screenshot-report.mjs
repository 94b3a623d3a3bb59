// The README's screenshot (docs/report.png), made again from today's report:
//
//   npm run build && node scripts/screenshot-report.mjs [--variant limits-per-operation] [--window-seconds 60] [--out docs]
//
// runs the suite (dist/, as built) against the reference server configured as the variant (by
// default one that counts its limit per operation, so the report has a failure and the timeline a
// finding to draw), with the reference's own fixed windows of 60 s aligned to the clock (a real
// Free key's: the run waits for fresh windows, a few minutes), or the self-test's short windows
// with --window-seconds 0, writes <out>/report.json, renders its report.html, and saves that page
// from its top to the timeline's x axis as <out>/report.png with the npm-shipped Chromium
// (scripts/lib/chromium.mjs; nothing is downloaded). The PNG carries the SHA-256 of the
// report.json it shows in a tEXt chunk ("report.json SHA-256"): test/docs-report.test.ts checks the pair belongs together and that
// report.json still validates against today's schema and verdict words.
import { Buffer } from 'node:buffer';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { crc32 } from 'node:zlib';
import { createHash } from 'node:crypto';
import { chromium } from 'playwright-core';
import { alignedWindowLimiter, startReferenceServer } from '../dist/fixtures/reference-server/index.js';
import { VARIANTS, variantServerOptions } from '../dist/fixtures/variants/index.js';
import { runConformance, writeReports } from '../dist/src/index.js';
import { CHROMIUM_ARGS, findChromium } from './lib/chromium.mjs';

/** The tEXt keyword the digest of report.json is stored under. */
export const DIGEST_KEYWORD = 'report.json SHA-256';
const SEED = 20_240_601;
/** The least a screenshot shows; taller when the timeline reaches lower. */
const VIEWPORT = { width: 1200, height: 1500 };

/** `png` with a tEXt chunk `keyword`=`text` before its IEND chunk. */
function withTextChunk(png, keyword, text) {
  const data = Buffer.concat([Buffer.from(keyword, 'latin1'), Buffer.from([0]), Buffer.from(text, 'latin1')]);
  const type = Buffer.from('tEXt', 'latin1');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([type, data])));
  const iend = png.length - 12;
  return Buffer.concat([png.subarray(0, iend), length, type, data, crc, png.subarray(iend)]);
}

const { values } = parseArgs({ options: { variant: { type: 'string', default: 'limits-per-operation' }, 'window-seconds': { type: 'string', default: '60' }, out: { type: 'string', default: 'docs' } } });
const variant = VARIANTS.find((v) => v.name === values.variant);
if (variant === undefined) throw new Error(`no variant named ${values.variant}`);
const out = resolve(values.out);
const work = await mkdtemp(join(tmpdir(), 'pc-screenshot-'));
try {
  const windowSeconds = Number(values['window-seconds']);
  const server = await startReferenceServer(variantServerOptions(variant, windowSeconds > 0 ? { windowSeconds, limiter: alignedWindowLimiter } : {}));
  let report;
  try {
    const plan = variant.plan ?? 'free';
    report = await runConformance({ baseUrl: server.baseUrl, apiKey: server.keys[plan], ...(variant.omitPlan === true ? {} : { plan }), seed: SEED });
  } finally {
    await server.close();
  }
  await writeReports(report, out, ['json']);
  await writeReports(report, work, ['json', 'html']);
  const digest = createHash('sha256').update(await readFile(join(out, 'report.json'))).digest('hex');
  const build = await findChromium(join(work, 'chromium'));
  const context = await chromium.launchPersistentContext(join(work, 'profile'), {
    executablePath: build.executablePath,
    env: { ...process.env, ...build.env },
    args: [...CHROMIUM_ARGS],
    viewport: VIEWPORT,
  });
  try {
    const page = await context.newPage();
    await page.goto(pathToFileURL(join(work, 'report.html')).href);
    // The page's top down to the timeline's x axis and its seconds, whatever the picture's height
    // (its finding labels take rows of their own): a fixed height cut the axis off.
    const chart = await page.locator('svg.timeline-chart').boundingBox();
    if (chart === null) throw new Error('report.html has no timeline picture');
    await page.setViewportSize({ width: VIEWPORT.width, height: Math.max(VIEWPORT.height, Math.ceil(chart.y + chart.height + 24)) });
    const png = await page.screenshot();
    await writeFile(join(out, 'report.png'), withTextChunk(png, DIGEST_KEYWORD, digest));
  } finally {
    await context.close();
  }
  console.log(`${report.verdictLine}\nwrote ${join(out, 'report.json')} and ${join(out, 'report.png')} (report.json SHA-256 ${digest})`);
} finally {
  await rm(work, { recursive: true, force: true });
}
