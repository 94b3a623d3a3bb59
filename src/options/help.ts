/**
 * What the option table gives the command line at run time: node:util's parseArgs configuration,
 * the `--help` text, "did you mean" for an unknown flag, and the name of the place a value came
 * from. The committed artefacts (config schema, action.yml, docs/cli.md) are in generate.ts.
 */
import { ENVIRONMENT_ONLY, OPTIONS, optionEntries, type FlagName, type OptionSpec } from './table.js';

/** parseArgs' configuration of one option, typed from the table so that parsed values keep their types. */
type ParseArgsOf<T> = {
  [K in keyof T]: T[K] extends { type: 'boolean'; short: infer S extends string }
    ? { type: 'boolean'; short: S }
    : T[K] extends { type: 'boolean' }
      ? { type: 'boolean' }
      : T[K] extends { multiple: true }
        ? { type: 'string'; multiple: true }
        : { type: 'string' };
};

/** Every flag the command line takes, as node:util's parseArgs wants them. */
export const PARSE_ARGS_OPTIONS = Object.fromEntries(
  optionEntries().map(([flag, o]) => [flag, { type: o.type, ...(o.short === undefined ? {} : { short: o.short }), ...(o.multiple === true ? { multiple: true } : {}) }]),
) as ParseArgsOf<typeof OPTIONS>;

/** Where the help's text column starts: two spaces, the widest flag with its placeholder, two spaces. */
const TEXT_COLUMN = 25;
/** The help's width: an option's lines, its suffix included, fit in it. */
export const HELP_COLUMNS = 100;
const TEXT_COLUMNS = HELP_COLUMNS - TEXT_COLUMN;

function flagColumn(flag: FlagName, o: OptionSpec): string {
  const name = `${o.short === undefined ? '' : `-${o.short}, `}--${flag}${o.placeholder === undefined ? '' : ` ${o.placeholder}`}`;
  return `  ${name}`.padEnd(TEXT_COLUMN - 1);
}

/** An option's range and default, as the help and docs/cli.md say them: "1 to 600000; default 10000". */
export function rangeAndDefault(o: OptionSpec): string[] {
  return [
    ...(o.integer === undefined ? [] : [o.integer.max === Number.MAX_SAFE_INTEGER ? `at least ${o.integer.min}` : `${o.integer.min} to ${o.integer.max}`]),
    ...(o.default === undefined ? [] : [`default ${o.default}`]),
  ];
}

/** What every option's help says besides its text: where else the value may come from, its range and default. */
export function helpSuffix(o: OptionSpec): string | undefined {
  const parts = [...(o.env === undefined ? [] : [`env ${o.env}`]), ...rangeAndDefault(o)];
  return parts.length === 0 ? undefined : `(${parts.join('; ')})`;
}

/** The help's lines of one option, the suffix on the last line when it fits. */
export function helpLines(o: OptionSpec): string[] {
  const lines = [...o.help];
  const suffix = helpSuffix(o);
  const last = lines.length - 1;
  if (suffix !== undefined) {
    if ((lines[last] ?? '').length + 1 + suffix.length <= TEXT_COLUMNS) lines[last] = `${lines[last] ?? ''} ${suffix}`;
    else lines.push(suffix);
  }
  return lines;
}

function optionsSection(): string[] {
  const out: string[] = [];
  for (const [flag, o] of optionEntries()) {
    const [first, ...rest] = helpLines(o);
    // A flag wider than the column (none today) still gets one space before its text.
    out.push(`${flagColumn(flag, o)} ${first ?? ''}`);
    for (const line of rest) out.push(`${' '.repeat(TEXT_COLUMN)}${line}`);
  }
  return out;
}

export const USAGE_HEAD = `Usage: petstore-conformance [options]
       petstore-conformance report <report.json> [--reporter <names>] [--report-dir <dir>]
       petstore-conformance replay <report.json> [--base-url <url>] [options]
       petstore-conformance coverage
       petstore-conformance diff <old/report.json> <new/report.json> [--format text|markdown] [--output <file>]
       petstore-conformance attest <report.json> [--key <ed25519-private.pem> [--output <file>]] [--predicate <file>]
       petstore-conformance verify <report.json> --envelope <file> --public-key <pem>

Runs the Pet Store Service conformance suite against a server and writes a report.
Without --base-url it runs against the embedded reference server.
'report' renders a saved report.json again; 'replay' re-sends the exchanges behind each failure
of a saved report and re-runs its tests (same seed, shrunk inputs), and says, per requirement,
fixed, still failing or could not tell (exit 1 while a must still fails, 2 when one could not be told).
'coverage' lists the tests that verify each requirement of the catalog (exit 1 on a gap).
'diff' lists what regressed (pass -> fail), was lost (pass -> inconclusive), was fixed, changed
level or evidence, and which targets, tool or spec versions differ; exit 1 on a must regression.
'attest' signs report.json: a DSSE envelope of an in-toto statement (default <report>.intoto.jsonl);
--predicate also writes the predicate alone (without --key, only it), for GitHub's attest action.
'verify' exits 0 only when the envelope is the key's signature of exactly this report.json, else 1.`;

export const USAGE_FOOT = `A value is taken from its flag, else its environment variable, else the config file.

Verdicts: pass, fail, inconclusive (tried and could not tell), not exercised (left out by choice).
Exit codes: 0 no must-requirement failed; 1 at least one failed; 2 the run could not be made
(bad usage, unreachable target, rejected key, wrong base URL) or halted before every must was judged.`;

function environmentSection(): string[] {
  return ENVIRONMENT_ONLY.flatMap((e) => [`  ${e.env}`, ...e.help.map((line) => `${' '.repeat(TEXT_COLUMN)}${line}`)]);
}

/** The whole `--help` text. */
export const USAGE = [USAGE_HEAD, '', 'Options:', ...optionsSection(), '', 'Environment only:', ...environmentSection(), '', USAGE_FOOT].join('\n');

/** Edits (insertions, deletions, substitutions) between two strings. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length] ?? 0;
}

/** The known flag an unknown one most likely meant: the same letters without hyphens or case, or within two edits. */
export function nearestFlag(unknown: string): string | undefined {
  const bare = (name: string): string => name.replace(/^-+/, '').replaceAll('-', '').replaceAll('_', '').toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of Object.keys(OPTIONS)) {
    const distance = bare(unknown).length >= 4 && bare(name).startsWith(bare(unknown)) ? 1 : editDistance(bare(unknown), bare(name));
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best === undefined ? undefined : `--${best.name}`;
}

/** Where a value came from, as messages name it. */
export type ValueSource = { kind: 'flag'; flag: FlagName } | { kind: 'env'; variable: string } | { kind: 'config'; file: string; key: string } | { kind: 'action'; input: string };

/** "--max-requests", "PETSTORE_MAX_REQUESTS", "config file x.json: maxRequests", "Action input max-requests". */
export function sourceName(source: ValueSource): string {
  switch (source.kind) {
    case 'flag':
      return `--${source.flag}`;
    case 'env':
      return source.variable;
    case 'config':
      return `config file ${source.file}: ${source.key}`;
    case 'action':
      return `Action input ${source.input}`;
  }
}

/** A flag's source: the Action's input when the Action's script passed it (it passes only its inputs), else the flag. */
export function flagSource(flag: FlagName, fromAction: boolean): ValueSource {
  const spec: OptionSpec = OPTIONS[flag];
  return fromAction && spec.action !== undefined ? { kind: 'action', input: spec.action.input } : { kind: 'flag', flag };
}
