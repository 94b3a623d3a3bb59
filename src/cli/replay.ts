/**
 * `petstore-conformance replay <report.json>`: the implementer's loop. Re-runs only the failing
 * requirements of a saved report (and what they need), with the report's seed and, for property
 * tests, the exact shrunk counterexample, then says per requirement: fixed or still failing.
 */
import type { ReplayOptions } from './args.js';
import { loadReport } from '../report/load.js';
import { writeReports } from '../report/write.js';
import { runConformance } from '../api/run.js';
import { libraryOptions } from './library-options.js';
import { renderSummary, styleFor } from './terminal.js';

export async function replay(command: ReplayOptions): Promise<number> {
  const saved = await loadReport(command.reportFile);
  const failing = saved.requirements.filter((r) => r.status === 'fail');
  if (failing.length === 0) {
    process.stdout.write(`nothing to replay: ${command.reportFile} has no failing requirement\n`);
    return 0;
  }
  const baseUrl = command.baseUrl ?? (saved.target.embedded ? undefined : saved.target.baseUrl);
  if (baseUrl !== undefined && command.apiKey === undefined) {
    process.stderr.write('petstore-conformance: an API key is required for a remote target: set PETSTORE_API_KEY or pass --api-key\n');
    return 2;
  }
  const replayPaths = Object.fromEntries(failing.flatMap((r) => (r.property === undefined ? [] : [[r.id, { seed: r.property.seed, path: r.property.path }]])));
  process.stdout.write(`replaying ${failing.length} failing requirement(s) of ${command.reportFile} against ${baseUrl ?? 'the embedded reference server'} (seed ${saved.seed})\n`);
  const report = await runConformance(
    await libraryOptions({ ...command, ...(baseUrl === undefined ? {} : { baseUrl }), seed: saved.seed, only: failing.map((r) => r.id) }, { replay: replayPaths }),
  );
  const paths = await writeReports(report, command.reportDir, command.reporters);
  process.stdout.write(renderSummary(report, paths, styleFor(process.stdout, process.env)));
  let stillFailing = false;
  for (const before of failing) {
    const after = report.requirements.find((r) => r.id === before.id);
    const verdict = after?.status === 'pass' ? 'fixed' : after?.status === 'fail' ? 'still failing' : `could not tell (${after?.reason ?? 'not run'})`;
    if (after?.status === 'fail' && after.level === 'must') stillFailing = true;
    process.stdout.write(`  ${before.id.padEnd(11)} ${verdict}\n`);
  }
  return stillFailing ? 1 : 0;
}
