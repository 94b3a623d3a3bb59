// Peak memory of a Node program without /usr/bin/time (not on a bare machine with only Node):
//
//   node scripts/max-rss.mjs <out-file> <program.js> [args...]
//
// runs the program in this very process and, as it exits, writes the process's maximum resident
// set size in KiB to <out-file>. Worker threads share the process, so their memory is counted too.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [outFile, program, ...args] = process.argv.slice(2);
if (outFile === undefined || program === undefined) {
  process.stderr.write('usage: node scripts/max-rss.mjs <out-file> <program.js> [args...]\n');
  process.exit(2);
}
process.on('exit', () => writeFileSync(outFile, `${process.resourceUsage().maxRSS}\n`));
process.argv = [process.argv[0], resolve(program), ...args];
await import(pathToFileURL(resolve(program)).href);
