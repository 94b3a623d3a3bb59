/**
 * docs/requirements.md, rendered from the requirement catalog: every requirement with what the
 * spec says, how the suite tests it and the interpretation applied where the spec is silent, and
 * the statements no client-side test can check. The catalog stays the one source; the page is
 * written by `npm run docs:requirements` and a test fails when it no longer matches the catalog.
 */
import { compareSections, type Catalog, type Requirement } from './catalog.js';

/** The command that writes the page, named on it and in the test that holds it to the catalog. */
export const CATALOG_PAGE_COMMAND = 'npm run docs:requirements';

/**
 * Catalog prose as Markdown text: outside its code spans, the characters Markdown would read as
 * markup (emphasis, links, HTML such as `<API_KEY>`) are escaped, so the page shows the catalog's
 * words exactly.
 */
export function markdownText(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/[\\*_[\]]/g, '\\$&').replace(/</g, '&lt;').replace(/>/g, '&gt;')))
    .join('');
}

/** A table cell: text, with its pipes escaped. */
const cell = (text: string): string => markdownText(text).replace(/\|/g, '\\|');

/** The heading (and so the anchor) of a requirement: its id alone, `#list-003`. */
const anchorOf = (id: string): string => id.toLowerCase();

function requirementSection(r: Requirement): string[] {
  const facts = [
    `- **Tested:** ${markdownText(r.test)}`,
    ...(r.interpretation === undefined ? [] : [`- **Interpretation:** ${markdownText(r.interpretation)}`]),
    ...(r.levelReason === undefined ? [] : [`- **Why ${r.level}:** ${markdownText(r.levelReason)}`]),
    ...(r.crossCutting === true ? ['- **Checked on every response of the run**, not only on its own requests.'] : []),
    ...(r.needs === undefined || r.needs.length === 0 ? [] : [`- **Needs:** ${r.needs.map((id) => `[${id}](#${anchorOf(id)})`).join(', ')} (selected along with it)`]),
    ...(r.commonCauses ?? []).map((c) => `- **Common cause:** ${markdownText(c.cause)} **How stacks fix it:** ${markdownText(c.fix)}`),
  ];
  return [
    `### ${r.id}`,
    '',
    `**${markdownText(r.title)}** (${r.level}, § ${r.section})`,
    '',
    markdownText(r.statement),
    '',
    `> ${markdownText(r.quote)}`,
    '',
    ...facts,
    '',
  ];
}

/** The whole page, sections in the spec's order and requirements in catalog order within each. */
export function catalogPage(catalog: Catalog): string {
  const sections = [...new Set(catalog.requirements.map((r) => r.section))].sort(compareSections);
  const lines = [
    '# Requirements and their interpretations',
    '',
    `<!-- Written by ${CATALOG_PAGE_COMMAND} from schemas/requirements.yaml: edit the catalog, then run it. -->`,
    '',
    `Every requirement the suite checks, from the requirement catalog (\`schemas/requirements.yaml\`) of the ${markdownText(catalog.specTitle)} ${catalog.specVersion}:`,
    'what the spec says (its own words quoted), how the suite tests it from outside, and, where the spec is silent, the',
    'interpretation applied: what is accepted, and what is only recorded as an observation. A `must` failure fails the run;',
    'a `should` failure is a warning. The ids are the ones reports, JUnit and `--only` use. The readings that shape a whole',
    'run (verdicts, levels, shared keys, the server\'s clock): [interpretations.md](interpretations.md).',
    '',
    '| id | level | § | title |',
    '|---|---|---|---|',
    ...catalog.requirements.map((r) => `| [${r.id}](#${anchorOf(r.id)}) | ${r.level} | ${r.section} | ${cell(r.title)} |`),
    '',
  ];
  for (const section of sections) {
    lines.push(`## Section ${section}`, '');
    for (const r of catalog.requirements.filter((q) => q.section === section)) lines.push(...requirementSection(r));
  }
  lines.push('## What no client-side test can check', '', '| § | statement | why not |', '|---|---|---|');
  for (const n of catalog.notTested) lines.push(`| ${n.section} | ${cell(n.statement)} | ${cell(n.reason)} |`);
  return `${lines.join('\n')}\n`;
}
