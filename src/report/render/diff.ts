/**
 * A report diff for people: a plain-text table for the terminal, Markdown for a PR comment.
 * Both render the same groups from one model, so they never disagree.
 */
import type { ReportDiff, StatusChange } from '../diff.js';
import { hasRegression } from '../diff.js';
import { visible } from './common.js';
import { cell } from './markdown.js';

interface Group {
  heading: string;
  columns: string[];
  rows: string[][];
}

const word = (status: string | undefined): string => (status === undefined ? '(absent)' : status);

function statusRows(changes: readonly StatusChange[]): string[][] {
  return changes.map((c) => [c.id, c.level === 'should' ? 'should (warning)' : c.level, `${word(c.before)} → ${word(c.after)}`, c.title, c.detail]);
}

function groups(diff: ReportDiff): Group[] {
  const status = ['requirement', 'level', 'status', 'title', 'now'];
  const all: Group[] = [
    { heading: 'Regressed (pass → fail)', columns: status, rows: statusRows(diff.regressed) },
    { heading: 'Lost (pass → inconclusive)', columns: status, rows: statusRows(diff.lost) },
    { heading: 'Fixed (fail → pass)', columns: status, rows: statusRows(diff.fixed) },
    { heading: 'Other status changes', columns: status, rows: statusRows(diff.otherStatus) },
    { heading: 'Level changed', columns: ['requirement', 'before', 'after'], rows: diff.levelChanged.map((c) => [c.id, c.before, c.after]) },
    {
      heading: 'Evidence changed (still failing, violations differ)',
      columns: ['requirement', 'change', 'violation'],
      rows: diff.evidenceChanged.flatMap((c) => [...c.gone.map((m) => [c.id, 'gone', m]), ...c.added.map((m) => [c.id, 'new', m])]),
    },
    { heading: 'Run context differs', columns: ['field', 'before', 'after'], rows: diff.context.map((c) => [c.field, c.before, c.after]) },
  ];
  return all.filter((g) => g.rows.length > 0);
}

function headline(diff: ReportDiff): string {
  const must = diff.regressed.filter((c) => c.level === 'must').length;
  const warnings = diff.regressed.length - must;
  const parts = [
    hasRegression(diff) ? `REGRESSION: ${must} must-requirement(s) went from pass to fail` : 'NO REGRESSION',
    ...(warnings > 0 ? [`${warnings} should-requirement(s) regressed (warnings)`] : []),
    `${diff.fixed.length} fixed`,
    `${diff.lost.length} lost`,
  ];
  return parts.join('; ');
}

const MAX_TEXT_CELL = 100;

function textCell(text: string): string {
  const one = visible(text).replace(/\s+/g, ' ');
  return one.length <= MAX_TEXT_CELL ? one : `${one.slice(0, MAX_TEXT_CELL - 1)}…`;
}

export function renderDiffText(diff: ReportDiff): string {
  const lines = [headline(diff)];
  for (const g of groups(diff)) {
    const rows = [g.columns, ...g.rows].map((r) => r.map(textCell));
    // The last column is left ragged: padding it would only add trailing spaces.
    const widths = g.columns.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
    lines.push('', `${g.heading}:`);
    for (const r of rows) lines.push(`  ${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ')}`.trimEnd());
  }
  return `${lines.join('\n')}\n`;
}

export function renderDiffMarkdown(diff: ReportDiff): string {
  const lines = ['## Conformance report diff', '', `**${headline(diff)}**`];
  for (const g of groups(diff)) {
    lines.push('', `### ${g.heading}`, '', `| ${g.columns.join(' | ')} |`, `|${g.columns.map(() => ' --- |').join('')}`);
    for (const r of g.rows) lines.push(`| ${r.map((c) => cell(c)).join(' | ')} |`);
  }
  return `${lines.join('\n')}\n`;
}
