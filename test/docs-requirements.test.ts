/**
 * docs/requirements.md is the requirement catalog as a page a person reads: it must be exactly what
 * the catalog renders to today, so an edited requirement, interpretation or common cause without
 * the page written again fails here (and says which command writes it).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../src/catalog.js';
import { CATALOG_PAGE_COMMAND, catalogPage, markdownText } from '../src/catalog-page.js';

const PAGE = resolve(import.meta.dirname, '../docs/requirements.md');

describe('docs/requirements.md', () => {
  it('shows catalog prose as written: markup characters escaped, code spans left alone', () => {
    expect(markdownText('Authorization Bearer <API_KEY>')).toBe('Authorization Bearer &lt;API\\_KEY&gt;');
    expect(markdownText('keys[token] and 1_000 in `a_b <c>`')).toBe('keys\\[token\\] and 1\\_000 in `a_b <c>`');
    expect(markdownText('2 * 3')).toBe('2 \\* 3');
  });

  it('gives every requirement of the catalog its own heading, its interpretation and its quote', () => {
    const catalog = loadCatalog();
    const page = catalogPage(catalog);
    for (const r of catalog.requirements) {
      expect(page).toContain(`\n### ${r.id}\n`);
      expect(page).toContain(`> ${markdownText(r.quote)}`);
      if (r.interpretation !== undefined) expect(page).toContain(markdownText(r.interpretation));
    }
    for (const n of catalog.notTested) expect(page).toContain(markdownText(n.reason));
  });

  it(`is what the catalog renders to today (${CATALOG_PAGE_COMMAND} writes it)`, () => {
    const written = readFileSync(PAGE, 'utf8');
    expect(written === catalogPage(loadCatalog()), `docs/requirements.md is out of date: run ${CATALOG_PAGE_COMMAND}`).toBe(true);
  });
});
