/**
 * `petstore-conformance diff old/report.json new/report.json`: both reports are validated like
 * `report` and `replay` read them (an unreadable one exits 2), compared, and the comparison is
 * printed or written. Exit 1 on a must regression, else 0, so it can gate a deployment.
 */
import { writeFile } from 'node:fs/promises';
import type { DiffOptions } from './args.js';
import { loadReport } from '../report/load.js';
import { diffExitCode, diffReports, incomparable } from '../report/diff.js';
import { renderDiffMarkdown, renderDiffText } from '../report/render/diff.js';

export async function diffCommand(command: DiffOptions): Promise<number> {
  const before = await loadReport(command.oldReport);
  const after = await loadReport(command.newReport);
  const refused = incomparable(before, after);
  if (refused !== undefined) {
    process.stderr.write(`petstore-conformance: ${refused}\n`);
    return 2;
  }
  const diff = diffReports(before, after);
  const text = command.format === 'markdown' ? renderDiffMarkdown(diff) : renderDiffText(diff);
  if (command.output === undefined) {
    process.stdout.write(text);
  } else {
    try {
      await writeFile(command.output, text, 'utf8');
    } catch (error) {
      process.stderr.write(`petstore-conformance: cannot write "${command.output}": ${(error as NodeJS.ErrnoException).code ?? 'error'}\n`);
      return 2;
    }
    process.stdout.write(`diff: ${command.output}\n`);
  }
  return diffExitCode(diff);
}
