/**
 * The table of report formats: each a file name and a pure (Report, RenderContext) => string, or
 * a Promise of one where the format loads a library first (html: the timeline's charting library,
 * loaded only when a report.html is rendered). Adding a format is adding a row.
 */
import type { Report } from './types.js';
import type { RenderContext } from './digest.js';
import { renderEarl } from './render/earl.js';
import { renderHar } from './render/har.js';
import { renderHtml } from './render/html.js';
import { renderJson } from './render/json.js';
import { renderJunit } from './render/junit.js';
import { renderMarkdown } from './render/markdown.js';

export type FormatName = 'json' | 'junit' | 'markdown' | 'html' | 'earl' | 'har';

export interface Renderer {
  fileName: string;
  /** `context`: what is known beside the report (report.json's digest), for the formats that show it. */
  render(report: Report, context?: RenderContext): string | Promise<string>;
}

export const RENDERERS: Record<FormatName, Renderer> = {
  json: { fileName: 'report.json', render: renderJson },
  junit: { fileName: 'junit.xml', render: renderJunit },
  markdown: { fileName: 'summary.md', render: renderMarkdown },
  html: { fileName: 'report.html', render: renderHtml },
  earl: { fileName: 'earl.jsonld', render: renderEarl },
  /** From the run's exchange log (Report.exchanges), kept only when the run was asked for this format. */
  har: { fileName: 'exchanges.har', render: renderHar },
};
