/**
 * docs/troubleshooting.md quotes what a run that could not be made prints: the wrong base path's
 * line, the rejected key's, and for every halt reason the schema allows, how stderr's line begins
 * and the fix it gives. A message reworded in the code without the page (or a halt reason added
 * without a row) fails here, so the page a stuck user reads says what their terminal says.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { haltLine } from '../src/cli/terminal.js';
import { parseReport } from '../src/report/load.js';
import type { Report } from '../src/report/types.js';
import { BAD_KEY_MESSAGE, wrongBaseUrlMessage } from '../src/session/preflight.js';

const ROOT = resolve(import.meta.dirname, '..');
const PAGE = readFileSync(resolve(ROOT, 'docs/troubleshooting.md'), 'utf8');
/** A real report to hang each halt on: haltLine reads only its halt and its counts. */
const REPORT = parseReport(readFileSync(resolve(ROOT, 'docs/report.json'), 'utf8'), 'docs/report.json');

type HaltReason = NonNullable<Report['halted']>['reason'];

/** The reasons report.json's schema allows for `halted.reason`. */
function schemaReasons(): string[] {
  const schema: unknown = JSON.parse(readFileSync(resolve(ROOT, 'schemas/report.schema.json'), 'utf8'));
  const reasons = (schema as { properties: { halted: { properties: { reason: { enum: string[] } } } } }).properties.halted.properties.reason.enum;
  expect(reasons.length).toBeGreaterThan(0);
  return reasons;
}

/** The rows of the page's halt table: reason, how stderr begins, what to do (code marks dropped). */
function haltRows(): Map<string, { begins: string; fix: string }> {
  const start = PAGE.indexOf('## A run that halted');
  expect(start, 'the page has the halt table').toBeGreaterThan(0);
  const rows = new Map<string, { begins: string; fix: string }>();
  for (const line of PAGE.slice(start).split('\n')) {
    const cells = /^\|\s*`([a-z-]+)`\s*\|(.*)\|(.*)\|\s*$/.exec(line);
    if (cells === null) continue;
    const plain = (cell: string | undefined): string => (cell ?? '').replace(/`/g, '').trim();
    rows.set(cells[1] ?? '', { begins: plain(cells[2]), fix: plain(cells[3]) });
  }
  return rows;
}

function halted(reason: HaltReason, message: string, signal?: 'SIGINT'): Report {
  return { ...REPORT, halted: { reason, message, unjudged: ['LIST-001'], ...(signal === undefined ? {} : { signal }) } };
}

describe('docs/troubleshooting.md says what the terminal says', () => {
  it('quotes the wrong base path\'s line as the preflight writes it', () => {
    const line = wrongBaseUrlMessage('http://127.0.0.1:8080/api/v1', '404', 'http://127.0.0.1:8080/v1', 200);
    expect(PAGE).toContain(line);
  });

  it('quotes the rejected key\'s line up to the source it names', () => {
    expect(PAGE).toContain(BAD_KEY_MESSAGE.replace('PETSTORE_API_KEY', ''));
    expect(haltLine(halted('bad-key', BAD_KEY_MESSAGE), undefined, '--api-key')).toBe(BAD_KEY_MESSAGE.replace('PETSTORE_API_KEY', '--api-key'));
  });

  it('has a row for every halt reason but the two the page explains above it, each as stderr begins, with its fix', () => {
    const rows = haltRows();
    const ownSections = ['bad-key', 'wrong-base-url'];
    expect([...rows.keys()].sort()).toEqual(schemaReasons().filter((r) => !ownSections.includes(r)).sort());
    for (const [reason, row] of rows) {
      const line = reason === 'interrupted' ? haltLine(halted('interrupted', 'stopped', 'SIGINT'), 'report.json') : haltLine(halted(reason as HaltReason, 'connect ECONNREFUSED 127.0.0.1:8080'));
      expect(line, reason).toBeDefined();
      const printed = line ?? '';
      if (reason === 'unreachable') {
        // The reason itself leads; the fix follows it.
        expect(printed.startsWith('connect ECONNREFUSED'), printed).toBe(true);
      } else {
        const headline = row.begins.replace(/\s*\(.*$/, '').replace(/\s*…$/, '');
        expect(printed.startsWith(headline), `${reason}: "${printed}" begins with "${headline}"`).toBe(true);
      }
      // The fix is what follows the message's "; ", before the count of what was left unjudged.
      const said = printed.replace(/ \(\d+ requirements could not be judged; see report\.json\)$/, '');
      const fix = said.includes('; ') ? said.slice(said.indexOf('; ') + 2) : undefined;
      if (fix !== undefined && reason !== 'interrupted') expect(row.fix, reason).toContain(fix);
    }
  });
});
