/**
 * The config file: a run's options in YAML or JSON, so a CI job does not repeat a long command
 * line in every pipeline. `--config <file>`, or else the one file of CONFIG_FILE_NAMES in the
 * working directory (two or more there is a mistake: which one was meant cannot be guessed).
 * Flags win over the environment, which wins over the file (args.ts merges them).
 *
 * Checked before anything is sent, each mistake one line and exit 2: an API key in the file
 * (only the name of the variable holding it may be there, `apiKeyEnv`), an unknown key (with the
 * nearest valid name), a value of the wrong type (schemas/config.schema.json, which editors
 * complete the file with). Paths in the file are relative to the file. Values are never quoted
 * in messages: a header's may be a secret, and a key put in the wrong place would be one.
 *
 * The YAML parser and Ajv are loaded only when there is a file to read.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import type * as AjvModule from 'ajv/dist/2020.js';
import { packagePath } from '../interface/package-root.js';
import { ConformanceUsageError as UsageError } from '../api/options.js';
import { editDistance } from '../options/help.js';
import type { FlagName, OPTIONS } from '../options/table.js';

const require = createRequire(import.meta.url);

/** Looked for in the working directory, in this order, when --config is not given. */
export const CONFIG_FILE_NAMES = ['petstore-conformance.config.yaml', 'petstore-conformance.config.yml', 'petstore-conformance.config.json'] as const;

export const CONFIG_SCHEMA_FILE = 'config.schema.json';

/** A header's value in the file: the value, or the environment variable that holds it. */
export type ConfigHeaderValue = string | { env: string };

/** The file's options, as schemas/config.schema.json describes them. */
export interface ConfigValues {
  baseUrl?: string;
  apiKeyEnv?: string;
  plan?: string;
  /** Sections may come as YAML numbers (`[LIST, 4.1]`). */
  only?: string | Array<string | number>;
  readOnly?: boolean;
  dedicatedKey?: boolean;
  exhaustDailyQuota?: boolean;
  riskBreakingStore?: boolean;
  maxRequests?: number;
  timeout?: number;
  maxWait?: number;
  deadline?: number;
  seed?: number;
  reportDir?: string;
  reporters?: string | string[];
  ca?: string;
  proxy?: string;
  headers?: Record<string, ConfigHeaderValue>;
  clientCert?: string;
  clientKey?: string;
}

/** The config keys of the option table (src/options/table.ts). */
type TableConfigKey = { [F in FlagName]: (typeof OPTIONS)[F] extends { config: { key: infer K } } ? K : never }[FlagName];
/** Compiles only while ConfigValues has exactly the table's keys: a key added to one and not the other fails the typecheck. */
export const CONFIG_VALUES_MATCH_THE_TABLE: [Exclude<TableConfigKey, keyof ConfigValues>, Exclude<keyof ConfigValues, TableConfigKey>] extends [never, never] ? true : never = true;

export interface ConfigFile {
  /** As the user would name it: relative to the working directory when inside it. */
  name: string;
  values: ConfigValues;
  /** A path from the file, resolved against the file's directory. */
  path(value: string): string;
}

/** Keys that would hold the key itself, compared without case, dashes or underscores. */
const KEY_VALUE_NAMES = new Set(['apikey', 'key', 'token', 'bearer', 'petstoreapikey']);

interface SchemaShape {
  properties: Record<string, unknown>;
}

function schema(): SchemaShape & Record<string, unknown> {
  return JSON.parse(readFileSync(packagePath('schemas', CONFIG_SCHEMA_FILE), 'utf8')) as SchemaShape & Record<string, unknown>;
}

export { editDistance };

/** The valid name nearest to `name` (case-insensitively), ties to the first in the schema's order. */
export function nearestName(name: string, valid: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of valid) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (best === undefined || distance < best.distance) best = { name: candidate, distance };
  }
  return best?.name;
}

/** The file to read: --config's, or the one in `cwd` by its documented name. */
export function findConfigFile(explicit: string | undefined, cwd: string): string | undefined {
  if (explicit !== undefined) {
    if (explicit === '') throw new UsageError('--config needs a file name');
    const path = resolve(cwd, explicit);
    if (!existsSync(path)) throw new UsageError(`--config: no file "${explicit}"`);
    return path;
  }
  const found = CONFIG_FILE_NAMES.filter((name) => existsSync(join(cwd, name)));
  if (found.length > 1) throw new UsageError(`several config files in ${cwd}: ${found.join(', ')}; keep one, or choose one with --config <file>`);
  return found[0] === undefined ? undefined : join(cwd, found[0]);
}

function parse(text: string, path: string, name: string): unknown {
  const json = extname(path).toLowerCase() === '.json';
  try {
    if (json) return JSON.parse(text) as unknown;
    const yaml = require('yaml') as { parse(text: string): unknown };
    return yaml.parse(text);
  } catch (error) {
    // The parsers' messages quote the text around the mistake, which may be a secret: the position only.
    const at = /line (\d+)/i.exec((error as Error).message)?.[1] ?? /position (\d+)/i.exec((error as Error).message)?.[1];
    throw new UsageError(`${name} is not valid ${json ? 'JSON' : 'YAML'}${at === undefined ? '' : ` (near ${json ? 'position' : 'line'} ${at})`}`);
  }
}

/** Ajv's first complaint, by path; never the value. */
function typeErrors(values: unknown, name: string): void {
  const { Ajv2020 } = require('ajv/dist/2020.js') as typeof AjvModule;
  const validate = new Ajv2020({ strict: false, allErrors: false }).compile(schema());
  if (validate(values)) return;
  const error = validate.errors?.[0];
  const where = error?.instancePath === undefined || error.instancePath === '' ? 'the file' : error.instancePath.slice(1).replace(/\//g, '.');
  throw new UsageError(`config file ${name}: ${where} ${error?.message ?? 'is not valid'} (see schemas/${CONFIG_SCHEMA_FILE})`);
}

function checkKeys(values: Record<string, unknown>, name: string): void {
  const valid = Object.keys(schema().properties);
  for (const key of Object.keys(values)) {
    if (KEY_VALUE_NAMES.has(key.toLowerCase().replace(/[-_]/g, ''))) {
      throw new UsageError(`${name} must not hold the API key ("${key}"): name the environment variable that holds it instead, e.g. apiKeyEnv: STAGING_PETSTORE_KEY`);
    }
    if (!valid.includes(key)) throw new UsageError(`${name}: unknown key "${key}"; did you mean "${nearestName(key, valid) ?? ''}"?`);
  }
}

/** Reads and checks the config file, when there is one; throws UsageError on the first mistake. */
export function loadConfigFile(explicit: string | undefined, cwd: string): ConfigFile | undefined {
  const path = findConfigFile(explicit, cwd);
  if (path === undefined) return undefined;
  const inside = relative(cwd, path);
  const name = inside.startsWith('..') || isAbsolute(inside) ? path : inside;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the config file "${name}": ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const values = parse(text, path, name) ?? {};
  if (typeof values !== 'object' || Array.isArray(values)) throw new UsageError(`${name} must hold a mapping of options (see schemas/${CONFIG_SCHEMA_FILE})`);
  checkKeys(values as Record<string, unknown>, name);
  typeErrors(values, name);
  const dir = dirname(path);
  return { name, values: values as ConfigValues, path: (value) => resolve(dir, value) };
}

/** A conventional variable name (upper case) may be shown; anything else could be a secret put in the wrong place. */
export function showableVariable(name: string): string {
  return /^[A-Z][A-Z0-9_]*$/.test(name) ? name : 'the variable it names';
}
