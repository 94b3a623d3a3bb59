/**
 * Writes the reports of a run. report.json is always written (it is the contract); every other
 * format is rendered from the same Report object by a pure renderer.
 */
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Report } from './types.js';
import { RENDERERS, type FormatName } from './renderers.js';

export async function writeReports(report: Report, dir: string, formats: readonly FormatName[]): Promise<string[]> {
  const outDir = resolve(dir);
  await mkdir(outDir, { recursive: true });
  const written: string[] = [];
  for (const format of formats) {
    const renderer = RENDERERS[format];
    const path = join(outDir, renderer.fileName);
    await writeFile(path, renderer.render(report), 'utf8');
    written.push(path);
  }
  return written;
}

/** On GitHub Actions, the Markdown summary also goes to the job's summary page. */
export async function appendStepSummary(report: Report, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const path = env['GITHUB_STEP_SUMMARY'];
  if (path === undefined || path === '') return undefined;
  await appendFile(path, RENDERERS.markdown.render(report), 'utf8');
  return path;
}
