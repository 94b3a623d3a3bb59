/**
 * The README's screenshot (docs/report.png) and the report.json it was made from
 * (docs/report.json, both written by scripts/screenshot-report.mjs). The report must still be a
 * report of today's schema with today's verdict words, a failure and a timeline with a finding
 * drawn on it, and the picture must be the one made from exactly that file: a report format or
 * verdict that changes without the screenshot being made again fails here.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verdictOf } from '../src/report/build.js';
import { parseReport } from '../src/report/load.js';
import { renderHtml } from '../src/report/render/html.js';
import { timelineFindings } from '../src/report/timeline.js';
import { VERDICT_WORDS } from '../src/report/verdict-line.js';

const DOCS = resolve(import.meta.dirname, '../docs');
const REPORT_JSON = readFileSync(resolve(DOCS, 'report.json'));
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The PNG's tEXt chunks, keyword to text. */
function textChunks(png: Buffer): Map<string, string> {
  expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  const texts = new Map<string, string>();
  for (let at = 8; at + 8 <= png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'tEXt') {
      const data = png.subarray(at + 8, at + 8 + length);
      const nul = data.indexOf(0);
      texts.set(data.toString('latin1', 0, nul), data.toString('latin1', nul + 1));
    }
    at += 12 + length;
  }
  return texts;
}

describe('docs/report.json and the README\'s screenshot made from it', () => {
  const report = parseReport(REPORT_JSON.toString('utf8'), 'docs/report.json');

  it('is a report of today\'s schema whose verdict line today\'s code words the same way', () => {
    const today = verdictOf(report.requirements, report.runErrors, report.halted);
    expect(report.verdictLine).toBe(today.verdictLine);
    expect(report.verdict).toBe(today.verdict);
    expect(report.verdictLine.startsWith(`${VERDICT_WORDS[report.verdict]}: `)).toBe(true);
    expect(report.summary).toEqual(today.summary);
  });

  it('shows a failure and the timeline with a rate-limit finding drawn on it', async () => {
    expect(report.verdict).toBe('does-not-conform');
    expect(report.timeline?.responses.length).toBe(report.requests);
    expect(timelineFindings(report).some((f) => f.requirement.startsWith('RATE-') && f.expected !== undefined)).toBe(true);
    const html = await renderHtml(report);
    expect(html).toContain('<svg class="timeline-chart"');
    expect(html).toMatch(/<a class="tl-link" href="#tl-f1">F1 on the timeline<\/a>/);
  });

  it('docs/report.png was made from exactly this report.json', () => {
    const png = readFileSync(resolve(DOCS, 'report.png'));
    const digest = createHash('sha256').update(REPORT_JSON).digest('hex');
    expect(textChunks(png).get('report.json SHA-256')).toBe(digest);
    expect(readFileSync(resolve(import.meta.dirname, '../README.md'), 'utf8')).toContain('](docs/report.png)');
  });
});
