/**
 * Command-line parsing and validation. Every mistake becomes a UsageError with one line of
 * text; main.ts prints it and exits 2. Nothing here touches the network.
 */
import { parseArgs } from 'node:util';
import { randomInt } from 'node:crypto';
import { dirname } from 'node:path';
import type { PlanName } from '../run-config.js';
import { checkDailyQuotaBudget, ConformanceUsageError, DEFAULTS, validateBaseUrl } from '../api/options.js';

/** The library's usage error: the CLI's mistakes and the library's are one kind (exit 2). */
export class UsageError extends ConformanceUsageError {}

export const REPORTERS = ['json', 'junit', 'markdown', 'html', 'earl'] as const;
export type ReporterName = (typeof REPORTERS)[number];
const PLANS: readonly PlanName[] = ['free', 'pro', 'business'];

export interface RunOptions {
  command: 'run';
  /** Undefined: run against the embedded reference server. */
  baseUrl?: string;
  apiKey?: string;
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
  plan?: PlanName;
  caFile?: string;
  /** RATE-007: spend the key's whole daily quota to see it enforced (a key made for the test only). */
  exhaustDailyQuota: boolean;
  /** Nobody else uses the key during the run: every unit the rate-limit headers count must be the run's. */
  dedicatedKey: boolean;
}

/** Re-render a saved report.json in other formats. */
export interface RenderOptions {
  command: 'report';
  reportFile: string;
  reportDir: string;
  reporters: ReporterName[];
}

/** Re-send the failing exchanges of a saved report, re-run its failing tests, and say fixed, still failing or could not tell. */
export interface ReplayOptions extends Omit<RunOptions, 'command'> {
  command: 'replay';
  reportFile: string;
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

export type ParsedCommand =
  | RunOptions
  | RenderOptions
  | ReplayOptions
  | DiffOptions
  | { command: 'help' }
  | { command: 'version' }
  | { command: 'coverage' };

export const USAGE = `Usage: petstore-conformance [options]
       petstore-conformance report <report.json> [--reporter <names>] [--report-dir <dir>]
       petstore-conformance replay <report.json> [--base-url <url>] [options]
       petstore-conformance coverage
       petstore-conformance diff <old/report.json> <new/report.json> [--format text|markdown] [--output <file>]

Runs the Pet Store Service conformance suite against a server and writes a report.
Without --base-url it runs against the embedded reference server.
'report' renders a saved report.json again; 'replay' re-sends the exchanges behind each failure
of a saved report and re-runs its tests (same seed, shrunk inputs), and says, per requirement,
fixed, still failing or could not tell (exit 1 while a must still fails, 2 when one could not be told).
'coverage' lists the tests that verify each requirement of the catalog (exit 1 on a gap).
'diff' lists what regressed (pass -> fail), was lost (pass -> inconclusive), was fixed, changed
level or evidence, and which targets, tool or spec versions differ; exit 1 on a must regression.

Options:
  --base-url <url>       Base URL ending in /v1 (env PETSTORE_BASE_URL)
  --api-key <key>        API key sent as a bearer token (env PETSTORE_API_KEY; prefer the env var)
  --report-dir <dir>     Where reports are written (default ./conformance-report)
  --reporter <names>     Comma-separated: ${REPORTERS.join(', ')} (default json,junit,markdown,html)
  --seed <int>           Seed for property-based tests; replays a run
  --read-only            Send no POST; write-dependent requirements become inconclusive
  --max-requests <n>     Run-wide request budget (default ${DEFAULTS.maxRequests})
  --timeout <ms>         Per-request timeout (default ${DEFAULTS.timeoutMs})
  --max-wait <s>         Longest wait on the target's rate limit before stopping (default ${DEFAULTS.maxWaitMs / 1000})
  --deadline <s>         Whole-run deadline: past it, no request is sent and what is left is inconclusive
  --only <list>          Comma-separated requirement ids, sections (4.1) or areas (LIST)
  --dedicated-key        The key is the run's alone: consumption the run did not cause fails RATE-002
                         (default: the key may be shared, and others' use is only recorded)
  --plan <plan>          free | pro | business: check X-RateLimit-Limit against the plan table
  --exhaust-daily-quota  Check the daily quota (RATE-007) by using it up: only on a key made for the
                         test; needs --plan and --max-requests above the plan's daily quota
  --ca <file>            Extra CA certificate (PEM) for a private TLS target
  --format <f>           diff only: text (default) or markdown (for a PR comment)
  --output <file>        diff only: write the diff to a file instead of stdout
  -h, --help             Show this help
  -v, --version          Show the version

Exit codes: 0 no must-requirement failed; 1 at least one failed; 2 could not run.`;

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

export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv): ParsedCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: true,
      options: {
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
        'exhaust-daily-quota': { type: 'boolean' },
        'dedicated-key': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (error) {
    // node:util's messages are one line and name the flag; drop its long hints.
    const message = error instanceof Error ? error.message.split('\n')[0] ?? error.message : String(error);
    throw new UsageError(`${message.replace(/\. To specify.*$/, '')} (see --help)`);
  }
  const v = parsed.values;
  if (v.help === true) return { command: 'help' };
  if (v.version === true) return { command: 'version' };
  const [subcommand, reportFile, ...extra] = parsed.positionals;
  if (subcommand === 'diff') return diffCommand(parsed.positionals.slice(1), v.format, v.output);
  if (v.format !== undefined || v.output !== undefined) throw new UsageError('--format and --output apply to diff only');
  if (subcommand === 'coverage' && reportFile === undefined) return { command: 'coverage' };
  if (subcommand !== undefined && subcommand !== 'report' && subcommand !== 'replay') {
    throw new UsageError(`unknown command "${subcommand}" (commands: report, replay, coverage, diff; see --help)`);
  }
  if (subcommand !== undefined && reportFile === undefined) throw new UsageError(`${subcommand} needs the path of a report.json`);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);

  const rawUrl = v['base-url'] ?? env['PETSTORE_BASE_URL'];
  const baseUrl = rawUrl === undefined || rawUrl === '' ? undefined : validateBaseUrl(rawUrl);
  const apiKey = v['api-key'] ?? env['PETSTORE_API_KEY'];
  if (apiKey !== undefined && /[\r\n]/.test(apiKey)) throw new UsageError('the API key must not contain line breaks');

  const reporters = reporterList(v.reporter ?? 'json,junit,markdown,html');
  if (!reporters.includes('json')) reporters.unshift('json'); // report.json is the contract every run writes

  const plan = v.plan;
  if (plan !== undefined && !(PLANS as readonly string[]).includes(plan)) {
    throw new UsageError(`--plan must be one of ${PLANS.join(', ')} (Enterprise limits are custom), got "${plan}"`);
  }

  if (subcommand === 'report' && reportFile !== undefined) {
    return { command: 'report', reportFile, reportDir: v['report-dir'] ?? dirname(reportFile), reporters };
  }
  if (baseUrl !== undefined && (apiKey === undefined || apiKey === '')) {
    throw new UsageError('an API key is required for a remote target: set PETSTORE_API_KEY or pass --api-key');
  }
  const options = {
    ...(baseUrl === undefined ? {} : { baseUrl }),
    ...(apiKey === undefined || apiKey === '' ? {} : { apiKey }),
    reportDir: v['report-dir'] ?? 'conformance-report',
    reporters,
    seed: integer('seed', v.seed, randomInt(0, 2 ** 31 - 1), -(2 ** 31), 2 ** 31 - 1),
    readOnly: v['read-only'] === true,
    maxRequests: integer('max-requests', v['max-requests'], DEFAULTS.maxRequests, 1),
    timeoutMs: integer('timeout', v.timeout, DEFAULTS.timeoutMs, 1, 600_000),
    maxWaitMs: integer('max-wait', v['max-wait'], DEFAULTS.maxWaitMs / 1000, 0, 3_600) * 1000,
    ...(v.deadline === undefined ? {} : { deadlineMs: integer('deadline', v.deadline, 0, 1, 86_400) * 1000 }),
    only: list(v.only),
    ...(plan === undefined ? {} : { plan: plan as PlanName }),
    ...(v.ca === undefined ? {} : { caFile: v.ca }),
    exhaustDailyQuota: v['exhaust-daily-quota'] === true,
    dedicatedKey: v['dedicated-key'] === true,
  };
  if (options.exhaustDailyQuota) checkDailyQuotaBudget(plan as PlanName | undefined, baseUrl, options.maxRequests);
  if (subcommand === 'replay' && reportFile !== undefined) return { command: 'replay', reportFile, ...options };
  return { command: 'run', ...options };
}
