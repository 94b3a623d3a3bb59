/**
 * Command-line parsing and validation. Every mistake becomes a UsageError with one line of
 * text; main.ts prints it and exits 2. Nothing here touches the network.
 */
import { parseArgs } from 'node:util';
import { randomInt } from 'node:crypto';
import { dirname } from 'node:path';
import type { Plan } from '../plans.js';
import { checkRiskBreakingStore, ConformanceUsageError, DEFAULTS, requestBudget, resolvePlan, validateBaseUrl } from '../api/options.js';
import { loadConfigFile, showableVariable, type ConfigFile } from './config-file.js';
import { GatewayHeaderError, mergeGatewayHeaders, parseHeaderLine, type GatewayHeader } from '../http/gateway-headers.js';
import { environmentProxy, parseProxyUrl, ProxyConfigError } from '../http/proxy-route.js';
import { DEFAULT_REPORTERS, FLAGS_FROM_ACTION_VARIABLE, OPTIONS, optionEntries, REPORTERS, type FlagName, type OptionCommand, type OptionSpec, type ReporterName } from '../options/table.js';
import { flagSource, nearestFlag, PARSE_ARGS_OPTIONS, sourceName, USAGE, type ValueSource } from '../options/help.js';

/** The library's usage error: the CLI's mistakes and the library's are one kind (exit 2). */
export class UsageError extends ConformanceUsageError {}

export { REPORTERS, type ReporterName };

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

  // Reaching the target (docs/configuration.md).
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

export { USAGE, nearestFlag };

/** The value of an option and where it came from, as given: a flag, its environment variable or the config file. */
interface Given {
  raw: string;
  source: ValueSource;
}

/** An integer option in its table's range; a mistake names where the value came from. */
function integer(flag: FlagName, given: Given | undefined, fallback: number): number {
  if (given === undefined) return fallback;
  const range = (OPTIONS[flag] as OptionSpec).integer;
  const name = sourceName(given.source);
  if (!/^-?[0-9]+$/.test(given.raw.trim())) throw new UsageError(`${name} must be an integer, got "${given.raw}"`);
  const value = Number(given.raw);
  if (range !== undefined && (value < range.min || value > range.max)) throw new UsageError(`${name} must be between ${range.min} and ${range.max}, got ${value}`);
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

/** The flags the option table gives to a command. */
function flagsOf(command: OptionCommand): FlagName[] {
  return optionEntries().flatMap(([flag, o]) => (o.commands.includes(command) ? [flag] : []));
}

/** The flags only attest and verify take. */
const ATTESTATION_ONLY: readonly FlagName[] = optionEntries().flatMap(([flag, o]) => (o.commands.every((c) => c === 'attest' || c === 'verify') ? [flag] : []));

function fileFlag(values: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = values[name];
  if (value === '') throw new UsageError(`--${name} needs a file name`);
  return typeof value === 'string' ? value : undefined;
}

function attestationCommand(name: 'attest' | 'verify', files: readonly string[], values: Readonly<Record<string, unknown>>): AttestOptions | VerifyOptions {
  const allowed: readonly string[] = flagsOf(name);
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

export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string = process.cwd()): ParsedCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: true,
      options: PARSE_ARGS_OPTIONS,
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
  const attestationFlag = ATTESTATION_ONLY.find((flag) => v[flag] !== undefined);
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
  const fromAction = (env[FLAGS_FROM_ACTION_VARIABLE] ?? '') !== '';
  const given = (flag: FlagName): Given | undefined => givenValue(flag, v, env, config, fromAction);
  const url = given('base-url');
  const baseUrl = url === undefined || url.raw === '' ? undefined : validateBaseUrl(url.raw, sourceName(url.source));
  const apiKey = v['api-key'] ?? env['PETSTORE_API_KEY'] ?? (file.apiKeyEnv === undefined ? undefined : env[file.apiKeyEnv]);
  const apiKeySource =
    v['api-key'] !== undefined ? '--api-key' : env['PETSTORE_API_KEY'] !== undefined ? 'PETSTORE_API_KEY' : file.apiKeyEnv === undefined || config === undefined ? undefined : `${showableVariable(file.apiKeyEnv)} (${config.name}'s apiKeyEnv)`;
  if (apiKey !== undefined && /[\r\n]/.test(apiKey)) throw new UsageError('the API key must not contain line breaks');

  const reporters = reporterList(v.reporter ?? joined(file.reporters) ?? DEFAULT_REPORTERS);
  if (!reporters.includes('json')) reporters.unshift('json'); // report.json is the contract every run writes

  const plan = planOf(given('plan'));

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
  const named = (flag: FlagName, key: string, fromFlag: boolean): string => (fromFlag || config === undefined ? sourceName(flagSource(flag, fromAction)) : `${config.name}'s ${key}`);
  checkRiskBreakingStore(
    { riskBreakingStore, readOnly, exhaustDailyQuota, ...(file.dedicatedKey === false && v['dedicated-key'] !== true ? { dedicatedKey: false } : {}) },
    {
      risk: named('risk-breaking-store', 'riskBreakingStore', v['risk-breaking-store'] === true),
      readOnly: named('read-only', 'readOnly', v['read-only'] === true),
      exhaustDailyQuota: named('exhaust-daily-quota', 'exhaustDailyQuota', v['exhaust-daily-quota'] === true),
      shared: `${config?.name ?? 'the config file'}'s dedicatedKey: false`,
    },
  );
  const maxRequests = given('max-requests');
  const deadline = given('deadline');
  const caFile = v.ca ?? fromFile(file.ca);
  const givenReportDir = v['report-dir'] ?? fromFile(file.reportDir);
  const options = {
    ...(baseUrl === undefined ? {} : { baseUrl }),
    ...(apiKey === undefined || apiKey === '' ? {} : { apiKey, ...(apiKeySource === undefined ? {} : { apiKeySource }) }),
    reportDir: givenReportDir ?? 'conformance-report',
    reporters,
    seed: integer('seed', given('seed'), randomInt(0, 2 ** 31 - 1)),
    readOnly,
    maxRequests: requestBudget({
      plan,
      baseUrl,
      exhaustDailyQuota,
      maxRequests: maxRequests === undefined ? undefined : integer('max-requests', maxRequests, DEFAULTS.maxRequests),
    }),
    timeoutMs: integer('timeout', given('timeout'), DEFAULTS.timeoutMs),
    maxWaitMs: integer('max-wait', given('max-wait'), DEFAULTS.maxWaitMs / 1000) * 1000,
    ...(deadline === undefined ? {} : { deadlineMs: integer('deadline', deadline, 0) * 1000 }),
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

/** The plan, canonical; a malformed one is refused naming where it came from (the library's message names --plan). */
function planOf(given: Given | undefined): Plan | undefined {
  try {
    return resolvePlan(given?.raw);
  } catch (error) {
    if (error instanceof ConformanceUsageError && given !== undefined) throw new UsageError(error.message.replace(/^--plan\b/, sourceName(given.source)));
    throw error;
  }
}

/** An option's value from its flag, else its environment variable (empty is unset), else the config file. */
function givenValue(flag: FlagName, values: Readonly<Record<string, unknown>>, env: NodeJS.ProcessEnv, config: ConfigFile | undefined, fromAction: boolean): Given | undefined {
  const spec: OptionSpec = OPTIONS[flag];
  const fromFlag = values[flag];
  if (typeof fromFlag === 'string') return { raw: fromFlag, source: flagSource(flag, fromAction) };
  const variable = spec.env;
  const fromEnv = variable === undefined ? undefined : env[variable];
  if (variable !== undefined && fromEnv !== undefined && fromEnv !== '') return { raw: fromEnv, source: { kind: 'env', variable } };
  const key = spec.config?.key;
  if (config === undefined || key === undefined) return undefined;
  const fromFile: unknown = (config.values as Readonly<Record<string, unknown>>)[key];
  return typeof fromFile === 'string' || typeof fromFile === 'number' ? { raw: String(fromFile), source: { kind: 'config', file: config.name, key } } : undefined;
}

/** A list from the config file as the flag would carry it. */
function joined(value: string | ReadonlyArray<string | number> | undefined): string | undefined {
  return value === undefined || typeof value === 'string' ? value : value.map(String).join(',');
}

// Reaching the target: proxy, gateway headers, client certificate (docs/configuration.md).

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
