/**
 * Writes the reports of a run. report.json is always written (it is the contract); every other
 * format is rendered from the same Report object by a pure renderer. report.json goes first: the
 * others show the SHA-256 of exactly the bytes written (digest.ts).
 */
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Report } from './types.js';
import { RENDERERS, type FormatName } from './renderers.js';
import { sha256Hex, type RenderContext } from './digest.js';

/**
 * `context`: for a re-render without report.json among the formats, what is known of the saved
 * one (renderContextOfFile); when report.json is written here, its digest replaces the given one.
 */
export async function writeReports(report: Report, dir: string, formats: readonly FormatName[], context: RenderContext = {}): Promise<string[]> {
  const outDir = resolve(dir);
  await mkdir(outDir, { recursive: true });
  const written: string[] = [];
  let known = context;
  const ordered = [...formats.filter((f) => f === 'json'), ...formats.filter((f) => f !== 'json')];
  for (const format of ordered) {
    const renderer = RENDERERS[format];
    const path = join(outDir, renderer.fileName);
    const bytes = Buffer.from(await renderer.render(report, known), 'utf8');
    await writeFile(path, bytes);
    if (format === 'json') known = { ...known, reportSha256: sha256Hex(bytes) };
    written.push(path);
  }
  return written;
}

/** On GitHub Actions, the Markdown summary also goes to the job's summary page. */
export async function appendStepSummary(report: Report, env: NodeJS.ProcessEnv, context: RenderContext = {}): Promise<string | undefined> {
  const path = env['GITHUB_STEP_SUMMARY'];
  if (path === undefined || path === '') return undefined;
  await appendFile(path, await RENDERERS.markdown.render(report, context), 'utf8');
  return path;
}
