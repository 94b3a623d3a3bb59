/**
 * The table of report formats: each a file name and a pure (Report) => string. Adding a format is
 * adding a row.
 */
import type { Report } from './types.js';

export type FormatName = 'json' | 'junit' | 'markdown' | 'html' | 'earl';

export interface Renderer {
  fileName: string;
  render(report: Report): string;
}

export const RENDERERS: Record<FormatName, Renderer> = {
  json: { fileName: 'report.json', render: (r) => `${JSON.stringify(r, null, 2)}\n` },
  junit: { fileName: 'junit.xml', render: () => '' },
  markdown: { fileName: 'summary.md', render: () => '' },
  html: { fileName: 'report.html', render: () => '' },
  earl: { fileName: 'earl.jsonld', render: () => '' },
};
