/**
 * The normative units of the specification's sections 1 to 9, extracted mechanically from its
 * Markdown, so `coverage` can prove schemas/spec-map.yaml lists every one of them, verbatim. A unit is
 * a sentence of a paragraph or list item, or a table body row (its cells as written, without the
 * outer pipes). Headings, table header rows and the one- or two-word labels that only introduce a
 * nested list or table ("Responses:", "Query parameters:") are not units.
 */
export interface SpecUnit {
  section: string;
  text: string;
}

const SECTION_HEADING = /^##\s+([0-9]+)\.\s/;
const SUBSECTION_HEADING = /^###\s+([0-9]+\.[0-9]+)\s/;
const LIST_MARKER = /^\s*(?:[-*]|[0-9]+\.)\s+/;
const LABEL_ONLY = /^[A-Z][a-z]+(?: [a-z]+)?:$/;
/** A sentence ends with a full stop followed by the capital letter or code span that opens the next. */
const SENTENCE_BREAK = /(?<=\.)\s+(?=[A-Z`])/;

function sentences(text: string): string[] {
  return text
    .split(SENTENCE_BREAK)
    .map((s) => s.trim())
    .filter((s) => s !== '' && !LABEL_ONLY.test(s));
}

function tableRow(line: string): string {
  return line.trim().replace(/^\|\s*/, '').replace(/\s*\|$/, '');
}

/** The units of sections 1 to 9 in document order; the preamble before section 1 is not part of them. */
export function specUnits(markdown: string): SpecUnit[] {
  const units: SpecUnit[] = [];
  let section: string | undefined;
  let tableLine = 0;
  for (const line of markdown.split(/\r?\n/)) {
    const top = SECTION_HEADING.exec(line);
    const sub = SUBSECTION_HEADING.exec(line);
    if (top !== null || sub !== null) {
      section = (top ?? sub)?.[1];
      continue;
    }
    if (section === undefined || line.trim() === '' || line.startsWith('#')) {
      tableLine = 0;
      continue;
    }
    if (line.trim().startsWith('|')) {
      tableLine += 1;
      // Line 1 is the header row, line 2 the separator.
      if (tableLine > 2) units.push({ section, text: tableRow(line) });
      continue;
    }
    tableLine = 0;
    for (const text of sentences(line.replace(LIST_MARKER, ''))) units.push({ section, text });
  }
  return units;
}
