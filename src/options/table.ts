/**
 * Every option of the CLI, declared once: its flag, environment variable, config file key, Action
 * input, range, default and help text. The argument parser (src/cli/args.ts), `--help`, the config
 * file's JSON Schema (schemas/config.schema.json), the Action's inputs (action.yml), the library's
 * ranges (src/api/options.ts) and the CLI reference (docs/cli.md) are derived from it
 * (src/options/generate.ts writes the committed ones; test/options-table.test.ts fails on drift).
 *
 * A leaf module: it imports nothing of the library at run time (a type only), so the library and
 * the CLI can both read it.
 */
import type { ConformanceOptions } from '../api/options.js';

export const REPORTERS = ['json', 'junit', 'markdown', 'html', 'earl', 'har'] as const;
export type ReporterName = (typeof REPORTERS)[number];

/** The default report formats, as --reporter takes them. */
export const DEFAULT_REPORTERS = 'json,junit,markdown,html';

/** The commands an option applies to; `run` includes `replay`, which re-runs with the run's options. */
export type OptionCommand = 'run' | 'report' | 'diff' | 'attest' | 'verify' | 'any';

/** A JSON Schema fragment of one config file key (schemas/config.schema.json). */
export type JsonSchema = { readonly [key: string]: unknown };

/** An integer option: its range in the flag's unit, and how the library counts it. */
export interface IntegerRange {
  min: number;
  max: number;
  /**
   * The library's option (src/api/options.ts): its name, and its unit as the flag's times `scale`;
   * its range is the flag's times `scale`, but for `min` where the library's finer unit allows less.
   */
  library: { name: keyof ConformanceOptions & string; scale: number; min?: number };
}

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** Repeatable: every occurrence is kept, in order. */
  multiple?: true;
  short?: string;
  /** What the help shows after the flag: `<url>`; absent for a boolean. */
  placeholder?: string;
  /** The help text, as lines of at most 75 characters (src/options/help.ts appends where else the value comes from). */
  help: readonly string[];
  commands: readonly OptionCommand[];
  /** The environment variable that gives the value when the flag is absent (flags win over it, it wins over the file). */
  env?: string;
  /** The config file's key, its schema (without the description) and its description. */
  config?: { key: string; schema: JsonSchema; description: string };
  /** The GitHub Action's input (action.yml): its name, description and default. */
  action?: { input: string; description: string; default: string };
  integer?: IntegerRange;
  /** The value used when no source gives one, as the flag would be written. */
  default?: string;
}

const RUN: readonly OptionCommand[] = ['run'];
const ENV_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';

/** The options in the order --help lists them. */
export const OPTIONS = {
  'base-url': {
    type: 'string',
    placeholder: '<url>',
    help: ['Base URL ending in /v1; absent: the embedded reference server'],
    commands: RUN,
    env: 'PETSTORE_BASE_URL',
    config: { key: 'baseUrl', schema: { type: 'string' }, description: 'Base URL of the server under test, ending in /v1 (--base-url; PETSTORE_BASE_URL wins). Absent: the embedded reference server.' },
    action: { input: 'base-url', description: 'Base URL of the server under test, ending in /v1. Empty runs against the embedded reference server.', default: '' },
  },
  'api-key': {
    type: 'string',
    placeholder: '<key>',
    help: ['API key sent as a bearer token; prefer the variable to the flag'],
    commands: RUN,
    env: 'PETSTORE_API_KEY',
    config: {
      key: 'apiKeyEnv',
      schema: { type: 'string', pattern: ENV_NAME_PATTERN },
      description: 'The name of the environment variable that holds the API key, e.g. STAGING_PETSTORE_KEY; --api-key and PETSTORE_API_KEY win. Never the key itself.',
    },
  },
  'report-dir': {
    type: 'string',
    placeholder: '<dir>',
    help: ['Where reports are written; replay: a directory of its own beside', 'the input'],
    commands: ['run', 'report'],
    default: 'conformance-report',
    config: { key: 'reportDir', schema: { type: 'string' }, description: 'Where the reports are written (--report-dir), relative to this file.' },
    action: { input: 'report-dir', description: 'Where the reports are written, relative to the workspace.', default: 'conformance-report' },
  },
  reporter: {
    type: 'string',
    placeholder: '<names>',
    help: [`Comma-separated: ${REPORTERS.join(', ')}; report.json`, 'is always written'],
    commands: ['run', 'report'],
    default: DEFAULT_REPORTERS,
    config: {
      key: 'reporters',
      schema: { anyOf: [{ type: 'string' }, { type: 'array', items: { enum: [...REPORTERS] } }] },
      description: 'Report formats (--reporter); report.json is always written.',
    },
    action: {
      input: 'reporters',
      description: `Comma-separated report formats (${REPORTERS.join(', ')}); report.json is always written. Empty: the CLI's default, ${DEFAULT_REPORTERS}.`,
      default: '',
    },
  },
  seed: {
    type: 'string',
    placeholder: '<int>',
    help: ['Seed of the property-based tests, to replay a run; absent: random'],
    commands: RUN,
    env: 'PETSTORE_SEED',
    integer: { min: -(2 ** 31), max: 2 ** 31 - 1, library: { name: 'seed', scale: 1 } },
    config: { key: 'seed', schema: { type: 'integer' }, description: 'Seed of the property-based tests (--seed); absent: random, printed.' },
  },
  'read-only': {
    type: 'boolean',
    help: ['Send no POST; requirements that need writes are not exercised'],
    commands: RUN,
    config: { key: 'readOnly', schema: { type: 'boolean' }, description: 'Send no POST (--read-only).' },
    action: { input: 'read-only', description: "'true' sends no POST (no pets are created); write-dependent requirements are not exercised.", default: 'false' },
  },
  'max-requests': {
    type: 'string',
    placeholder: '<n>',
    help: ["Run-wide request budget; with --exhaust-daily-quota, the day's quota", 'plus the default'],
    commands: RUN,
    env: 'PETSTORE_MAX_REQUESTS',
    default: '400',
    integer: { min: 1, max: Number.MAX_SAFE_INTEGER, library: { name: 'maxRequests', scale: 1 } },
    config: { key: 'maxRequests', schema: { type: 'integer' }, description: 'Run-wide request budget (--max-requests).' },
    action: { input: 'max-requests', description: "Run-wide request budget (the CLI's default when empty).", default: '' },
  },
  timeout: {
    type: 'string',
    placeholder: '<ms>',
    help: ['Per-request timeout in milliseconds'],
    commands: RUN,
    env: 'PETSTORE_TIMEOUT',
    default: '10000',
    integer: { min: 1, max: 600_000, library: { name: 'timeoutMs', scale: 1 } },
    config: { key: 'timeout', schema: { type: 'integer' }, description: 'Per-request timeout in milliseconds (--timeout).' },
  },
  'max-wait': {
    type: 'string',
    placeholder: '<s>',
    help: ["Longest wait on the target's rate limit, in seconds, before stopping"],
    commands: RUN,
    env: 'PETSTORE_MAX_WAIT',
    default: '65',
    integer: { min: 0, max: 3_600, library: { name: 'maxWaitMs', scale: 1000 } },
    config: { key: 'maxWait', schema: { type: 'integer' }, description: "Longest wait on the target's rate limit, in seconds (--max-wait)." },
  },
  deadline: {
    type: 'string',
    placeholder: '<s>',
    help: ['Whole-run deadline in seconds: past it, no request is sent and what is', 'left is inconclusive'],
    commands: RUN,
    env: 'PETSTORE_DEADLINE',
    integer: { min: 1, max: 86_400, library: { name: 'deadlineMs', scale: 1000, min: 1 } },
    config: { key: 'deadline', schema: { type: 'integer' }, description: 'Whole-run deadline in seconds (--deadline).' },
  },
  only: {
    type: 'string',
    placeholder: '<list>',
    help: ['Comma-separated requirement ids, sections (4.1) or areas (LIST); the others', 'are not exercised'],
    commands: RUN,
    config: {
      key: 'only',
      schema: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: ['string', 'number'] } }] },
      description: 'Requirement ids, sections (4.1) or areas (LIST) to run (--only). A section may be written as a YAML number.',
    },
    action: { input: 'only', description: 'Comma-separated requirement ids, sections (4.1) or areas (LIST) to run.', default: '' },
  },
  'dedicated-key': {
    type: 'boolean',
    help: ["The key is the run's alone: consumption the run did not cause fails", "RATE-002 (default: the key may be shared, and others' use is only", 'recorded)'],
    commands: RUN,
    config: { key: 'dedicatedKey', schema: { type: 'boolean' }, description: "The key is the run's alone during the run (--dedicated-key)." },
    action: {
      input: 'rate-limit-sharing',
      description:
        "'shared' (the default, also when empty): other clients may use the key, and their use is only recorded. 'dedicated' (--dedicated-key): nobody else uses it during the run, so consumption the run did not cause fails RATE-002.",
      default: '',
    },
  },
  plan: {
    type: 'string',
    placeholder: '<plan>',
    help: [
      "The key's plan (without it RATE-004 is not exercised): free | pro |",
      'business, or custom:PER_MINUTE/PER_DAY for an Enterprise key (e.g.',
      'custom:500/50000). X-RateLimit-Limit is checked against it and the',
      'burst tests its limit',
    ],
    commands: RUN,
    config: {
      key: 'plan',
      schema: { type: 'string', pattern: '^(free|pro|business|custom:[1-9][0-9]*/[1-9][0-9]*)$' },
      description: "The key's plan (--plan): free, pro, business, or custom:PER_MINUTE/PER_DAY for an Enterprise key.",
    },
    action: {
      input: 'plan',
      description:
        "The key's plan: free, pro, business, or custom:PER_MINUTE/PER_DAY for an Enterprise key (e.g. custom:500/50000). X-RateLimit-Limit is checked against it and the burst tests its limit; empty leaves RATE-004 not exercised.",
      default: '',
    },
  },
  'exhaust-daily-quota': {
    type: 'boolean',
    help: [
      'Check the daily quota (RATE-007) by using it up, only on a key made for',
      'the test (without it RATE-007 is not exercised). Needs --plan on a',
      "remote target; raises the budget to the day's quota plus the default and",
      'prints the cost first',
    ],
    commands: RUN,
    config: { key: 'exhaustDailyQuota', schema: { type: 'boolean' }, description: "Use up the key's daily quota to check RATE-007 (--exhaust-daily-quota); only on a key made for the test." },
  },
  'risk-breaking-store': {
    type: 'boolean',
    help: [
      'Check CREATE-005 by sending, last, names a store may not survive (bytes',
      'that are not UTF-8, lone surrogates, NUL) and reading the store after',
      'them. Only on a store nobody else uses during the run: implies',
      '--dedicated-key (without it CREATE-005 is not exercised); not with',
      '--read-only or --exhaust-daily-quota',
    ],
    commands: RUN,
    config: {
      key: 'riskBreakingStore',
      schema: { type: 'boolean' },
      description:
        'Check CREATE-005 by sending, last, names a store may not survive (bytes that are not UTF-8, lone surrogates, NUL) and reading the store after them (--risk-breaking-store); only on a store nobody else uses. Implies a dedicated key: refused with dedicatedKey: false, readOnly or exhaustDailyQuota.',
    },
    action: {
      input: 'risk-breaking-store',
      description:
        "'true' checks CREATE-005 (--risk-breaking-store): names a store may not survive (bytes that are not UTF-8, lone surrogates, NUL) are sent last and the store read after them. Only on a store nobody else uses: it implies a dedicated key, and is refused beside rate-limit-sharing: shared, read-only or a config file's dedicatedKey: false.",
      default: 'false',
    },
  },
  ca: {
    type: 'string',
    placeholder: '<file>',
    help: ['Extra CA certificate (PEM) for a private TLS target (or proxy)'],
    commands: RUN,
    config: { key: 'ca', schema: { type: 'string' }, description: 'Extra CA certificate (PEM file) for a private TLS target or proxy (--ca).' },
  },
  proxy: {
    type: 'string',
    placeholder: '<url>',
    help: [
      'Proxy for every request (http:// or https://, credentials in the URL),',
      "tunnelled with CONNECT; '' for none. Default: https_proxy / HTTPS_PROXY",
      '(https target), http_proxy / HTTP_PROXY (http target; not HTTP_PROXY',
      'while REQUEST_METHOD is set), then all_proxy / ALL_PROXY, with no_proxy /',
      'NO_PROXY',
    ],
    commands: RUN,
    config: {
      key: 'proxy',
      schema: { type: 'string' },
      description:
        'Proxy URL (--proxy), used when neither --proxy nor the environment (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, in either case) names one; NO_PROXY still applies. Prefer the environment for a proxy with credentials.',
    },
    action: {
      input: 'proxy',
      description:
        "Proxy URL for every request (--proxy); empty: the runner's HTTPS_PROXY / HTTP_PROXY / ALL_PROXY (either case) with NO_PROXY, as docs/configuration.md's Behind a proxy says. A proxy with credentials belongs in HTTPS_PROXY from a secret, not here.",
      default: '',
    },
  },
  header: {
    type: 'string',
    multiple: true,
    placeholder: "'Name: value'",
    help: ['Header every request carries, for a gateway in front of the target;', 'repeatable; the variable holds one a line. Values are secrets: never', 'recorded'],
    commands: RUN,
    env: 'PETSTORE_HEADERS',
    config: {
      key: 'headers',
      schema: {
        type: 'object',
        additionalProperties: {
          anyOf: [{ type: 'string' }, { type: 'object', additionalProperties: false, required: ['env'], properties: { env: { type: 'string', pattern: ENV_NAME_PATTERN } } }],
        },
      },
      description:
        'Headers every request carries, for a gateway in front of the target (--header; PETSTORE_HEADERS and --header win by name). A value, or { env: NAME } to read it from an environment variable. Values are never recorded.',
    },
    action: {
      input: 'headers',
      description: "Headers every request carries, for a gateway in front of staging, one 'Name: value' a line (--header). Values are secrets: prefer PETSTORE_HEADERS in the step's env, from a secret.",
      default: '',
    },
  },
  'client-cert': {
    type: 'string',
    placeholder: '<file>',
    help: ["Client certificate (PEM) for mutual TLS; the key's passphrase comes", 'from PETSTORE_CLIENT_KEY_PASSPHRASE only'],
    commands: RUN,
    config: { key: 'clientCert', schema: { type: 'string' }, description: "Client certificate (PEM file) for mutual TLS (--client-cert); the key's passphrase comes only from PETSTORE_CLIENT_KEY_PASSPHRASE." },
    action: { input: 'client-cert', description: "Client certificate (PEM file) for mutual TLS; its key's passphrase comes only from PETSTORE_CLIENT_KEY_PASSPHRASE in the step's env.", default: '' },
  },
  'client-key': {
    type: 'string',
    placeholder: '<file>',
    help: ['Private key (PEM) of --client-cert'],
    commands: RUN,
    config: { key: 'clientKey', schema: { type: 'string' }, description: 'Private key (PEM file) of clientCert (--client-key).' },
    action: { input: 'client-key', description: 'Private key (PEM file) of client-cert.', default: '' },
  },
  config: {
    type: 'string',
    placeholder: '<file>',
    help: ["Options from a YAML or JSON file (default: the working directory's", 'petstore-conformance.config.yaml, .yml or .json); flags, then', 'environment, then file'],
    commands: RUN,
    action: {
      input: 'config',
      description:
        'A config file (YAML or JSON, schemas/config.schema.json), relative to the workspace; empty: petstore-conformance.config.yaml, .yml or .json in the workspace when there is one. Inputs win over it.',
      default: '',
    },
  },
  format: { type: 'string', placeholder: '<f>', help: ['diff only: text (default) or markdown (for a PR comment)'], commands: ['diff'] },
  output: { type: 'string', placeholder: '<file>', help: ['diff: write the diff to a file instead of stdout; attest: the', "envelope's path"], commands: ['diff', 'attest'] },
  key: { type: 'string', placeholder: '<pem>', help: ['attest: the Ed25519 private key that signs'], commands: ['attest'] },
  predicate: { type: 'string', placeholder: '<file>', help: ['attest: also write the in-toto predicate alone'], commands: ['attest'] },
  envelope: { type: 'string', placeholder: '<file>', help: ['verify: the envelope attest wrote'], commands: ['verify'] },
  'public-key': { type: 'string', placeholder: '<pem>', help: ['verify: the Ed25519 public key to check it with'], commands: ['verify'] },
  help: { type: 'boolean', short: 'h', help: ['Show this help'], commands: ['any'] },
  version: { type: 'boolean', short: 'v', help: ['Show the version'], commands: ['any'] },
} as const satisfies Record<string, OptionSpec>;

export type FlagName = keyof typeof OPTIONS;

/** Variables read that no flag sets: secrets that must not appear on a command line or in a file, and the Action's marker. */
export const ENVIRONMENT_ONLY = [
  { env: 'PETSTORE_CLIENT_KEY_PASSPHRASE', help: ['Passphrase of an encrypted --client-key; never a flag or a config key,', 'which show up in logs and repositories'] },
  { env: 'PETSTORE_FLAGS_FROM_ACTION', help: ["Set by the GitHub Action's script, which passes only its inputs: a", 'mistake in a value is named by its Action input'] },
] as const;

export const PASSPHRASE_VARIABLE = ENVIRONMENT_ONLY[0].env;
export const FLAGS_FROM_ACTION_VARIABLE = ENVIRONMENT_ONLY[1].env;

/** Every option with its flag name, in the table's order. */
export function optionEntries(): Array<[FlagName, OptionSpec]> {
  return Object.entries(OPTIONS) as Array<[FlagName, OptionSpec]>;
}

export function optionOf(flag: FlagName): OptionSpec {
  return OPTIONS[flag];
}

/** An integer option's range in the library's unit. */
export function libraryRange(flag: FlagName): { name: keyof ConformanceOptions & string; min: number; max: number } {
  const range = (OPTIONS[flag] as OptionSpec).integer;
  if (range === undefined) throw new Error(`--${flag} is not an integer option`);
  const { name, scale, min } = range.library;
  return { name, min: min ?? range.min * scale, max: range.max === Number.MAX_SAFE_INTEGER ? range.max : range.max * scale };
}

/** An option's default in the library's unit. */
export function libraryDefault(flag: FlagName): number {
  const o: OptionSpec = OPTIONS[flag];
  return Number(o.default) * (o.integer?.library.scale ?? 1);
}
