/**
 * Command-line parsing and validation. Every mistake becomes a UsageError with one line of
 * text; main.ts prints it and exits 2. Nothing here touches the network.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { randomInt } from 'node:crypto';
import { dirname } from 'node:path';
import type { Plan } from '../plans.js';
import { checkRiskBreakingStore, ConformanceUsageError, DEFAULTS, requestBudget, resolvePlan, validateBaseUrl } from '../api/options.js';
import { loadConfigFile, showableVariable, type ConfigFile } from './config-file.js';
import { GatewayHeaderError, mergeGatewayHeaders, parseHeaderLine, type GatewayHeader } from '../http/gateway-headers.js';
import { environmentProxy, parseProxyUrl, ProxyConfigError } from '../http/proxy-route.js';

/** The library's usage error: the CLI's mistakes and the library's are one kind (exit 2). */
export class UsageError extends ConformanceUsageError {}

export const REPORTERS = ['json', 'junit', 'markdown', 'html', 'earl', 'har'] as const;
export type ReporterName = (typeof REPORTERS)[number];

export interface RunOptions {
  command: 'run';
  /** Undefined: run against the embedded reference server. */
  baseUrl?: string;
  apiKey?: string;
  /** Where the key came from, as the user would name it ("--api-key", "PETSTORE_API_KEY"): a rejected key's line points there. */
  apiKeySource?: string;
  reportDir: string;
  reporters: ReporterName[];
  seed: number;
  readOnly: boolean;
  maxRequests: number;
  timeoutMs: number;
  maxWaitMs: number;
  /** Whole-run deadline in ms from the start, when given. */
  deadlineMs?: number;
  only: string[];
  plan?: Plan;
  caFile?: string;
  /** RATE-007: spend the key's whole daily quota to see it enforced (a key made for the test only). */
  exhaustDailyQuota: boolean;
  /** Nobody else uses the key during the run: every unit the rate-limit headers count must be the run's. */
  dedicatedKey: boolean;
  /** CREATE-005: names a store may not survive, sent last (a store nobody else uses only; implies dedicatedKey). */
  riskBreakingStore: boolean;

  // Reaching the target (README "Gating CI on staging").
  /** --proxy ('' disables the environment's), or the config file's when the environment names none; `from` names it in messages. */
  proxy?: { value: string; from: string };
  /** --header, then PETSTORE_HEADERS, then the config file's, merged by name in that order. */
  headers: GatewayHeader[];
  clientCertFile?: string;
  clientKeyFile?: string;
  /** The config file read, as the user would name it. */
  configFile?: string;
}

/** Re-render a saved report.json in other formats. */
export interface RenderOptions {
  command: 'report';
  reportFile: string;
  reportDir: string;
  reporters: ReporterName[];
}

/** Re-send the failing exchanges of a saved report, re-run its failing tests, and say fixed, still failing or could not tell. */
export interface ReplayOptions extends Omit<RunOptions, 'command' | 'reportDir'> {
  command: 'replay';
  reportFile: string;
  /** Absent: a directory of the replay's own beside the input (src/cli/replay.ts), never the input's. */
  reportDir?: string;
}

/** Compare two saved reports: regressions, fixes, level, evidence and run-context changes. */
export interface DiffOptions {
  command: 'diff';
  oldReport: string;
  newReport: string;
  format: 'text' | 'markdown';
  /** Write the rendering here instead of stdout. */
  output?: string;
}

/** Sign a saved report.json (a DSSE envelope of an in-toto statement), or write the predicate alone. */
export interface AttestOptions {
  command: 'attest';
  reportFile: string;
  /** Ed25519 private key (PEM); absent: only the predicate is written. */
  keyFile?: string;
  /** Where the envelope goes; default <report>.intoto.jsonl beside the report. */
  output?: string;
  /** Where the predicate alone goes, for a keyless signer (GitHub's attest action). */
  predicateFile?: string;
}

/** Check that an envelope is the given key's signature of exactly this report.json. */
export interface VerifyOptions {
  command: 'verify';
  reportFile: string;
  envelopeFile: string;
  publicKeyFile: string;
}

export type ParsedCommand =
  | RunOptions
  | RenderOptions
  | ReplayOptions
  | DiffOptions
  | AttestOptions
  | VerifyOptions
  | { command: 'help' }
  | { command: 'version' }
  | { command: 'coverage' };

export const USAGE = `Usage: petstore-conformance [options]
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
'verify' exits 0 only when the envelope is the key's signature of exactly this report.json, else 1.

Options:
  --base-url <url>       Base URL ending in /v1 (env PETSTORE_BASE_URL)
  --api-key <key>        API key sent as a bearer token (env PETSTORE_API_KEY; prefer the env var)
  --report-dir <dir>     Where reports are written (default ./conformance-report)
  --reporter <names>     Comma-separated: ${REPORTERS.join(', ')} (default json,junit,markdown,html)
  --seed <int>           Seed for property-based tests; replays a run
  --read-only            Send no POST; requirements that need writes are not exercised
  --max-requests <n>     Run-wide request budget (default ${DEFAULTS.maxRequests}; with --exhaust-daily-quota,
                         the day's quota plus ${DEFAULTS.maxRequests})
  --timeout <ms>         Per-request timeout (default ${DEFAULTS.timeoutMs})
  --max-wait <s>         Longest wait on the target's rate limit before stopping (default ${DEFAULTS.maxWaitMs / 1000})
  --deadline <s>         Whole-run deadline: past it, no request is sent and what is left is inconclusive
  --only <list>          Comma-separated requirement ids, sections (4.1) or areas (LIST); the others
                         are not exercised
  --dedicated-key        The key is the run's alone: consumption the run did not cause fails RATE-002
                         (default: the key may be shared, and others' use is only recorded)
  --plan <plan>          The key's plan: free | pro | business, or custom:PER_MINUTE/PER_DAY for an
                         Enterprise key (e.g. custom:500/50000). X-RateLimit-Limit is checked against it
                         and the burst tests its limit; without it RATE-004 is not exercised
  --exhaust-daily-quota  Check the daily quota (RATE-007) by using it up, only on a key made for the
                         test (without it RATE-007 is not exercised). Needs --plan on a remote target;
                         raises the budget to the day's quota plus ${DEFAULTS.maxRequests} and prints the cost first
  --risk-breaking-store  Check CREATE-005 by sending, last, names a store may not survive (bytes that are
                         not UTF-8, lone surrogates, NUL) and reading the store after them. Only on a
                         store nobody else uses during the run: implies --dedicated-key (without it
                         CREATE-005 is not exercised); not with --read-only or --exhaust-daily-quota
  --ca <file>            Extra CA certificate (PEM) for a private TLS target (or proxy)
  --proxy <url>          Proxy for every request (http:// or https://, credentials in the URL), tunnelled
                         with CONNECT; '' for none. Default: https_proxy / HTTPS_PROXY (https target),
                         http_proxy / HTTP_PROXY (http target; not HTTP_PROXY while REQUEST_METHOD
                         is set), then all_proxy / ALL_PROXY, with no_proxy / NO_PROXY
  --header 'Name: value' Header every request carries, for a gateway in front of the target; repeatable
                         (also PETSTORE_HEADERS, one per line). Values are secrets: never recorded
  --client-cert <file>   Client certificate (PEM) for mutual TLS; the key's passphrase comes from
  --client-key <file>    PETSTORE_CLIENT_KEY_PASSPHRASE only
  --config <file>        Options from a YAML or JSON file (default: petstore-conformance.config.yaml, .yml
                         or .json in the working directory); flags, then environment, then file
  --format <f>           diff only: text (default) or markdown (for a PR comment)
  --output <file>        diff: write the diff to a file instead of stdout; attest: the envelope's path
  --key <pem>            attest: the Ed25519 private key that signs
  --predicate <file>     attest: also write the in-toto predicate alone
  --envelope <file>      verify: the envelope attest wrote
  --public-key <pem>     verify: the Ed25519 public key to check it with
  -h, --help             Show this help
  -v, --version          Show the version

Verdicts: pass, fail, inconclusive (tried and could not tell), not exercised (left out by choice).
Exit codes: 0 no must-requirement failed; 1 at least one failed; 2 the run could not be made
(bad usage, unreachable target, rejected key, wrong base URL) or halted before every must was judged.`;

function integer(name: string, raw: string | undefined, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (raw === undefined) return fallback;
  if (!/^-?[0-9]+$/.test(raw.trim())) throw new UsageError(`--${name} must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new UsageError(`--${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function list(raw: string | undefined): string[] {
  return (raw ?? '').split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

/** Reporter names in any case ("JSON" is json); an empty item ("junit,,html") is a typo, not a choice. */
function reporterList(raw: string): ReporterName[] {
  const names = raw.split(',').map((s) => s.trim().toLowerCase());
  if (names.some((n) => n === '')) throw new UsageError(`--reporter has an empty item in "${raw}"; choose from ${REPORTERS.join(', ')}, separated by commas`);
  return names.map((name) => {
    const known = REPORTERS.find((r) => r === name);
    if (known === undefined) throw new UsageError(`unknown reporter "${name}"; choose from ${REPORTERS.join(', ')}`);
    return known;
  });
}

export { validateBaseUrl };

function diffCommand(files: readonly string[], format: string | undefined, output: string | undefined): DiffOptions {
  const [oldReport, newReport, ...extra] = files;
  if (oldReport === undefined || newReport === undefined) throw new UsageError('diff needs two report.json paths: the old one, then the new one');
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  if (format !== undefined && format !== 'text' && format !== 'markdown') throw new UsageError(`--format must be text or markdown, got "${format}"`);
  if (output === '') throw new UsageError('--output needs a file name');
  return { command: 'diff', oldReport, newReport, format: format ?? 'text', ...(output === undefined ? {} : { output }) };
}

const ATTESTATION_FLAGS = { attest: ['key', 'output', 'predicate'], verify: ['envelope', 'public-key'] } as const;

function fileFlag(values: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = values[name];
  if (value === '') throw new UsageError(`--${name} needs a file name`);
  return typeof value === 'string' ? value : undefined;
}

function attestationCommand(name: 'attest' | 'verify', files: readonly string[], values: Readonly<Record<string, unknown>>): AttestOptions | VerifyOptions {
  const allowed: readonly string[] = ATTESTATION_FLAGS[name];
  const foreign = Object.keys(values).find((flag) => values[flag] !== undefined && !allowed.includes(flag));
  if (foreign !== undefined) throw new UsageError(`--${foreign} does not apply to ${name}`);
  const [reportFile, ...extra] = files;
  if (reportFile === undefined) throw new UsageError(`${name} needs the path of a report.json`);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  if (name === 'verify') {
    const envelopeFile = fileFlag(values, 'envelope');
    const publicKeyFile = fileFlag(values, 'public-key');
    if (envelopeFile === undefined || publicKeyFile === undefined) throw new UsageError('verify needs --envelope <file> and --public-key <pem>');
    return { command: 'verify', reportFile, envelopeFile, publicKeyFile };
  }
  const keyFile = fileFlag(values, 'key');
  const output = fileFlag(values, 'output');
  const predicateFile = fileFlag(values, 'predicate');
  if (keyFile === undefined && predicateFile === undefined) throw new UsageError('attest needs --key <ed25519-private.pem> to sign, or --predicate <file> to write the predicate alone');
  if (keyFile === undefined && output !== undefined) throw new UsageError('--output names the signed envelope: attest needs --key to write one');
  return { command: 'attest', reportFile, ...(keyFile === undefined ? {} : { keyFile }), ...(output === undefined ? {} : { output }), ...(predicateFile === undefined ? {} : { predicateFile }) };
}

/** Every flag the command line takes. */
const FLAGS = {
    'base-url': { type: 'string' },
    'api-key': { type: 'string' },
    'report-dir': { type: 'string' },
    reporter: { type: 'string' },
    seed: { type: 'string' },
    'read-only': { type: 'boolean' },
    'max-requests': { type: 'string' },
    timeout: { type: 'string' },
    'max-wait': { type: 'string' },
    deadline: { type: 'string' },
    only: { type: 'string' },
    plan: { type: 'string' },
    ca: { type: 'string' },
    format: { type: 'string' },
    output: { type: 'string' },
    key: { type: 'string' },
    predicate: { type: 'string' },
    envelope: { type: 'string' },
    'public-key': { type: 'string' },
    'exhaust-daily-quota': { type: 'boolean' },
    'dedicated-key': { type: 'boolean' },
    'risk-breaking-store': { type: 'boolean' },
    proxy: { type: 'string' },
    header: { type: 'string', multiple: true },
    'client-cert': { type: 'string' },
    'client-key': { type: 'string' },
    config: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean', short: 'v' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

/** Edits (insertions, deletions, substitutions) between two strings. */
function editDistance(a: string, b: string): number {
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
  for (const name of Object.keys(FLAGS)) {
    const distance = bare(unknown).length >= 4 && bare(name).startsWith(bare(unknown)) ? 1 : editDistance(bare(unknown), bare(name));
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best === undefined ? undefined : `--${best.name}`;
}

export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string = process.cwd()): ParsedCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: true,
      options: FLAGS,
    });
  } catch (error) {
    // node:util's messages are one line and name the flag; drop its long hints.
    const message = error instanceof Error ? error.message.split('\n')[0] ?? error.message : String(error);
    const unknown = /^Unknown option '([^']+)'/.exec(message)?.[1];
    const meant = unknown === undefined ? undefined : nearestFlag(unknown);
    throw new UsageError(`${message.replace(/\. To specify.*$/, '')}${meant === undefined ? '' : `; did you mean ${meant}?`} (see --help)`);
  }
  const v = parsed.values;
  if (v.help === true) return { command: 'help' };
  if (v.version === true) return { command: 'version' };
  const [subcommand, reportFile, ...extra] = parsed.positionals;
  if (subcommand === 'attest' || subcommand === 'verify') return attestationCommand(subcommand, parsed.positionals.slice(1), v);
  const attestationFlag = ['key', 'predicate', 'envelope', 'public-key'].find((flag) => v[flag as keyof typeof v] !== undefined);
  if (attestationFlag !== undefined) throw new UsageError(`--${attestationFlag} applies to attest and verify only`);
  if (subcommand === 'diff') return diffCommand(parsed.positionals.slice(1), v.format, v.output);
  if (v.format !== undefined || v.output !== undefined) throw new UsageError('--format applies to diff only, --output to diff and attest');
  if (subcommand === 'coverage' && reportFile === undefined) return { command: 'coverage' };
  if (subcommand !== undefined && subcommand !== 'report' && subcommand !== 'replay') {
    throw new UsageError(`unknown command "${subcommand}" (commands: report, replay, coverage, diff, attest, verify; see --help)`);
  }
  if (subcommand !== undefined && reportFile === undefined) throw new UsageError(`${subcommand} needs the path of a report.json`);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  const runFlag = (['proxy', 'header', 'client-cert', 'client-key', 'config'] as const).find((flag) => v[flag] !== undefined);
  if (subcommand === 'report' && runFlag !== undefined) throw new UsageError(`--${runFlag} applies to runs and replay only`);

  // Flags, then environment, then the config file.
  const config = subcommand === 'report' ? undefined : loadConfigFile(v.config, cwd);
  const file = config?.values ?? {};
  const fromFile = (value: string | undefined): string | undefined => (value === undefined || config === undefined ? undefined : config.path(value));
  const rawUrl = v['base-url'] ?? env['PETSTORE_BASE_URL'] ?? file.baseUrl;
  const baseUrl = rawUrl === undefined || rawUrl === '' ? undefined : validateBaseUrl(rawUrl);
  const apiKey = v['api-key'] ?? env['PETSTORE_API_KEY'] ?? (file.apiKeyEnv === undefined ? undefined : env[file.apiKeyEnv]);
  const apiKeySource =
    v['api-key'] !== undefined ? '--api-key' : env['PETSTORE_API_KEY'] !== undefined ? 'PETSTORE_API_KEY' : file.apiKeyEnv === undefined || config === undefined ? undefined : `${showableVariable(file.apiKeyEnv)} (${config.name}'s apiKeyEnv)`;
  if (apiKey !== undefined && /[\r\n]/.test(apiKey)) throw new UsageError('the API key must not contain line breaks');

  const reporters = reporterList(v.reporter ?? joined(file.reporters) ?? 'json,junit,markdown,html');
  if (!reporters.includes('json')) reporters.unshift('json'); // report.json is the contract every run writes

  const plan = resolvePlan(v.plan ?? file.plan);

  if (subcommand === 'report' && reportFile !== undefined) {
    return { command: 'report', reportFile, reportDir: v['report-dir'] ?? dirname(reportFile), reporters };
  }
  if (baseUrl !== undefined && (apiKey === undefined || apiKey === '')) {
    if (config !== undefined && file.apiKeyEnv !== undefined) {
      throw new UsageError(`an API key is required for a remote target: ${config.name}'s apiKeyEnv names ${showableVariable(file.apiKeyEnv)}, which is not set (or set PETSTORE_API_KEY)`);
    }
    throw new UsageError('an API key is required for a remote target: set PETSTORE_API_KEY or pass --api-key');
  }
  const exhaustDailyQuota = v['exhaust-daily-quota'] === true || file.exhaustDailyQuota === true;
  const readOnly = v['read-only'] === true || file.readOnly === true;
  const riskBreakingStore = v['risk-breaking-store'] === true || file.riskBreakingStore === true;
  // Named as the user gave them: a flag, or the config file's key (a file's dedicatedKey: false is the only way to say "shared").
  const named = (flag: string, key: string, fromFlag: boolean): string => (fromFlag || config === undefined ? `--${flag}` : `${config.name}'s ${key}`);
  checkRiskBreakingStore(
    { riskBreakingStore, readOnly, exhaustDailyQuota, ...(file.dedicatedKey === false && v['dedicated-key'] !== true ? { dedicatedKey: false } : {}) },
    {
      risk: named('risk-breaking-store', 'riskBreakingStore', v['risk-breaking-store'] === true),
      readOnly: named('read-only', 'readOnly', v['read-only'] === true),
      exhaustDailyQuota: named('exhaust-daily-quota', 'exhaustDailyQuota', v['exhaust-daily-quota'] === true),
      shared: `${config?.name ?? 'the config file'}'s dedicatedKey: false`,
    },
  );
  const maxRequests = v['max-requests'] ?? text(file.maxRequests);
  const deadline = v.deadline ?? text(file.deadline);
  const caFile = v.ca ?? fromFile(file.ca);
  const givenReportDir = v['report-dir'] ?? fromFile(file.reportDir);
  const options = {
    ...(baseUrl === undefined ? {} : { baseUrl }),
    ...(apiKey === undefined || apiKey === '' ? {} : { apiKey, ...(apiKeySource === undefined ? {} : { apiKeySource }) }),
    reportDir: givenReportDir ?? 'conformance-report',
    reporters,
    seed: integer('seed', v.seed ?? text(file.seed), randomInt(0, 2 ** 31 - 1), -(2 ** 31), 2 ** 31 - 1),
    readOnly,
    maxRequests: requestBudget({
      plan,
      baseUrl,
      exhaustDailyQuota,
      maxRequests: maxRequests === undefined ? undefined : integer('max-requests', maxRequests, DEFAULTS.maxRequests, 1),
    }),
    timeoutMs: integer('timeout', v.timeout ?? text(file.timeout), DEFAULTS.timeoutMs, 1, 600_000),
    maxWaitMs: integer('max-wait', v['max-wait'] ?? text(file.maxWait), DEFAULTS.maxWaitMs / 1000, 0, 3_600) * 1000,
    ...(deadline === undefined ? {} : { deadlineMs: integer('deadline', deadline, 0, 1, 86_400) * 1000 }),
    only: list(v.only ?? joined(file.only)),
    ...(plan === undefined ? {} : { plan }),
    ...(caFile === undefined ? {} : { caFile }),
    exhaustDailyQuota,
    dedicatedKey: v['dedicated-key'] === true || file.dedicatedKey === true,
    riskBreakingStore,
    ...reachOf(v, env, config, baseUrl),
  };
  if (subcommand === 'replay' && reportFile !== undefined) {
    const { reportDir: _default, ...rest } = options;
    return { command: 'replay', reportFile, ...rest, ...(givenReportDir === undefined ? {} : { reportDir: givenReportDir }) };
  }
  return { command: 'run', ...options };
}

/** A number from the config file as the flag would carry it. */
function text(value: number | undefined): string | undefined {
  return value === undefined ? undefined : String(value);
}

/** A list from the config file as the flag would carry it. */
function joined(value: string | ReadonlyArray<string | number> | undefined): string | undefined {
  return value === undefined || typeof value === 'string' ? value : value.map(String).join(',');
}

// Reaching the target: proxy, gateway headers, client certificate (README "Gating CI on staging").

type ReachFlags = { proxy?: string | undefined; header?: string[] | undefined; 'client-cert'?: string | undefined; 'client-key'?: string | undefined };
type Reach = Pick<RunOptions, 'proxy' | 'headers' | 'clientCertFile' | 'clientKeyFile' | 'configFile'>;

/** "Name: value" lines; a line without a colon is named by its place, never quoted (it may be a secret). */
function headerLines(lines: readonly string[], where: (index: number) => string): GatewayHeader[] {
  return lines.map((line, index) => {
    const header = parseHeaderLine(line);
    if (header === undefined) throw new UsageError(`${where(index)} must be "Name: value"`);
    return header;
  });
}

/** PETSTORE_HEADERS: one header a line; blank lines and lines starting with # are skipped. */
export const HEADERS_VARIABLE = 'PETSTORE_HEADERS';

function gatewayHeaders(flags: readonly string[], env: NodeJS.ProcessEnv, config: ConfigFile | undefined): GatewayHeader[] {
  const lines = (env[HEADERS_VARIABLE] ?? '').split(/\r?\n/).map((line, index) => ({ line: line.trim(), index })).filter(({ line }) => line !== '' && !line.startsWith('#'));
  const fromEnv = lines.map(({ line, index }) => headerLines([line], () => `${HEADERS_VARIABLE} line ${index + 1}`)[0]).filter((h): h is GatewayHeader => h !== undefined);
  const fromFile = Object.entries(config?.values.headers ?? {}).map(([name, value]) => {
    if (typeof value === 'string') return { name, value };
    const held = env[value.env];
    if (held === undefined || held === '') throw new UsageError(`${config?.name ?? 'the config file'}: header ${name} takes its value from ${showableVariable(value.env)}, which is not set`);
    return { name, value: held };
  });
  try {
    return mergeGatewayHeaders([
      { where: '--header', headers: headerLines(flags, (index) => `--header number ${index + 1}`) },
      { where: HEADERS_VARIABLE, headers: fromEnv },
      { where: config?.name ?? 'the config file', headers: fromFile },
    ]);
  } catch (error) {
    if (error instanceof GatewayHeaderError) throw new UsageError(error.message);
    throw error;
  }
}

/** --proxy, else the config file's when the environment names no proxy for this target (the embedded server ignores the environment's). */
function proxyOf(flag: string | undefined, env: NodeJS.ProcessEnv, config: ConfigFile | undefined, baseUrl: string | undefined): RunOptions['proxy'] {
  const fileProxy = config?.values.proxy;
  const chosen =
    flag !== undefined
      ? { value: flag, from: '--proxy' }
      : fileProxy !== undefined && config !== undefined && (baseUrl === undefined || environmentProxy(baseUrl, env) === undefined)
        ? { value: fileProxy, from: `${config.name}'s proxy` }
        : undefined;
  if (chosen === undefined || chosen.value.trim() === '') return chosen;
  try {
    parseProxyUrl(chosen.value.trim(), { option: chosen.from });
  } catch (error) {
    if (error instanceof ProxyConfigError) throw new UsageError(error.message);
    throw error;
  }
  return chosen;
}

function reachOf(v: ReachFlags, env: NodeJS.ProcessEnv, config: ConfigFile | undefined, baseUrl: string | undefined): Reach {
  const proxy = proxyOf(v.proxy, env, config, baseUrl);
  const clientCertFile = v['client-cert'] ?? (config?.values.clientCert === undefined ? undefined : config.path(config.values.clientCert));
  const clientKeyFile = v['client-key'] ?? (config?.values.clientKey === undefined ? undefined : config.path(config.values.clientKey));
  return {
    ...(proxy === undefined ? {} : { proxy }),
    headers: gatewayHeaders(v.header ?? [], env, config),
    ...(clientCertFile === undefined ? {} : { clientCertFile }),
    ...(clientKeyFile === undefined ? {} : { clientKeyFile }),
    ...(config === undefined ? {} : { configFile: config.name }),
  };
}
