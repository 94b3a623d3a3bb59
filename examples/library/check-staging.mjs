/* global AbortController */
// The library from a script of your own, e.g. a deploy step:
//   PETSTORE_BASE_URL=https://staging.example.com/v1 PETSTORE_API_KEY=... node check-staging.mjs
// Without PETSTORE_BASE_URL it runs against the embedded reference server.
import { exitCodeOf, runConformance, writeReports } from 'petstore-conformance';

const controller = new AbortController();
// Ctrl-C stops the run and keeps what it found: the signal's name as the abort's reason makes the
// report say halted: interrupted (signal SIGINT), and exitCodeOf gives 130.
process.once('SIGINT', () => controller.abort('SIGINT'));

const report = await runConformance({
  baseUrl: process.env.PETSTORE_BASE_URL,
  apiKey: process.env.PETSTORE_API_KEY,
  plan: 'free',
  signal: controller.signal,
});
const paths = await writeReports(report, 'conformance-report', ['json', 'markdown']);
console.log(`${report.summary.pass} pass, ${report.summary.fail} fail, ${report.summary.inconclusive} inconclusive; ${paths.join(', ')}`);
if (report.halted !== undefined) console.error(report.halted.message);
process.exitCode = exitCodeOf(report);
