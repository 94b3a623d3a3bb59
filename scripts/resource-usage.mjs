// What a Node program cost, without /usr/bin/time (not on a bare machine with only Node):
//
//   node scripts/resource-usage.mjs <out-file> <program.js> [args...]
//
// runs the program in this very process and, as it exits, writes to <out-file> one JSON object:
// {"maxRssKiB", "userMs", "systemMs"}, the process's maximum resident set size and its CPU time
// (process.resourceUsage()). Worker threads share the process, so they are counted too.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [outFile, program, ...args] = process.argv.slice(2);
if (outFile === undefined || program === undefined) {
  process.stderr.write('usage: node scripts/resource-usage.mjs <out-file> <program.js> [args...]\n');
  process.exit(2);
}
process.on('exit', () => {
  const usage = process.resourceUsage();
  writeFileSync(outFile, `${JSON.stringify({ maxRssKiB: usage.maxRSS, userMs: usage.userCPUTime / 1000, systemMs: usage.systemCPUTime / 1000 })}\n`);
});
process.argv = [process.argv[0], resolve(program), ...args];
await import(pathToFileURL(resolve(program)).href);
