/**
 * The option table (src/options/table.ts) is the one place options are declared: the committed
 * artefacts derived from it (config schema, action.yml's inputs, docs/cli.md) must be exactly what
 * it generates today, the Action's script must pass each input as its flag, and a mistake in a
 * value names where the value came from.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ACTION_PATH, actionInputVariable, actionYamlText, CLI_REFERENCE_PATH, cliReferenceText, CONFIG_SCHEMA_PATH, configSchemaText } from '../src/options/generate.js';
import { FLAGS_FROM_ACTION_VARIABLE, libraryRange, OPTIONS, optionEntries } from '../src/options/table.js';
import { HELP_COLUMNS, nearestFlag, USAGE } from '../src/options/help.js';
import { parseCommandLine } from '../src/cli/args.js';
import { ConformanceUsageError, resolveOptions } from '../src/api/options.js';
import { tempDirs } from './support/temp-dirs.js';

const ROOT = resolve(import.meta.dirname, '..');
const read = (path: string): Promise<string> => readFile(join(ROOT, path), 'utf8');
const tempDir = tempDirs();
const FIX = 'run `npm run gen:options` and commit the result';

function refusal(argv: string[], env: NodeJS.ProcessEnv = {}, cwd?: string): string {
  try {
    parseCommandLine(argv, env, cwd);
  } catch (error) {
    expect(error).toBeInstanceOf(ConformanceUsageError);
    return (error as Error).message;
  }
  throw new Error(`${argv.join(' ')} was accepted`);
}

describe('what is generated from the table and committed does not drift', () => {
  it('schemas/config.schema.json', async () => {
    expect(await read(CONFIG_SCHEMA_PATH), FIX).toBe(configSchemaText());
  });

  it("action.yml's inputs and its step's env", async () => {
    const current = await read(ACTION_PATH);
    expect(current, FIX).toBe(actionYamlText(current));
  });

  it('docs/cli.md', async () => {
    expect(await read(CLI_REFERENCE_PATH), FIX).toBe(cliReferenceText());
  });

  it('a change to the table shows as a difference (the comparison can fail)', () => {
    const schema = JSON.parse(configSchemaText()) as { properties: Record<string, { description?: string }> };
    expect(Object.keys(schema.properties)).toEqual(['$schema', ...optionEntries().flatMap(([, o]) => (o.config === undefined ? [] : [o.config.key]))]);
    expect(schema.properties['maxRequests']).toEqual({ type: 'integer', minimum: 1, description: OPTIONS['max-requests'].config.description });
  });
});

describe('the Action', () => {
  it('declares one input per option that has one, and its script passes each as the flag beside it', async () => {
    const action = parse(await read(ACTION_PATH)) as { inputs: Record<string, unknown> };
    const script = await read('scripts/action/run.sh');
    const withInput = optionEntries().flatMap(([flag, o]) => (o.action === undefined ? [] : [{ flag, input: o.action.input }]));
    expect(Object.keys(action.inputs)).toEqual(withInput.map((i) => i.input));
    for (const { flag, input } of withInput) {
      const lines = script.split('\n').filter((line) => line.includes(actionInputVariable(input)));
      const passing = script.split('\n').filter((line) => line.includes(`--${flag}`));
      expect(lines.length, input).toBeGreaterThan(0);
      expect(passing.length, `${input} is passed as --${flag}`).toBeGreaterThan(0);
    }
    expect(script).toContain(`${FLAGS_FROM_ACTION_VARIABLE}=1 node "$cli"`);
  });
});

describe('--help', () => {
  const options = USAGE.slice(USAGE.indexOf('\nOptions:\n'), USAGE.indexOf('\nA value is taken'));

  it('lists every flag of the table, with its variable, range and default, within 100 columns', () => {
    for (const [flag, o] of optionEntries()) {
      expect(options, flag).toMatch(new RegExp(`^  (-${o.short ?? ''}, )?--${flag}\\b`, 'm'));
      if (o.env !== undefined) expect(options).toContain(`env ${o.env}`);
    }
    expect(options).toContain('(env PETSTORE_TIMEOUT; 1 to 600000; default 10000)');
    for (const line of options.split('\n')) expect(line.length, line).toBeLessThanOrEqual(HELP_COLUMNS);
  });
});

describe('an unknown flag', () => {
  it('gets "did you mean" for the nearest one: --baseurl, --max-request, --dedicated', () => {
    expect(nearestFlag('--baseurl')).toBe('--base-url');
    expect(refusal(['--baseurl', 'http://h.test/v1'])).toBe("Unknown option '--baseurl'; did you mean --base-url? (see --help)");
    expect(refusal(['--max-request', '5'])).toMatch(/did you mean --max-requests\?/);
    expect(refusal(['--dedicated'])).toMatch(/did you mean --dedicated-key\?/);
    expect(refusal(['--zzzzzzzz'])).not.toMatch(/did you mean/);
  });
});

describe('a bad value names where it came from', () => {
  it('the flag, the variable, the config file and its key, or the Action input', async () => {
    expect(refusal(['--max-requests', 'lots'])).toBe('--max-requests must be an integer, got "lots"');
    expect(refusal([], { PETSTORE_MAX_REQUESTS: 'lots' })).toBe('PETSTORE_MAX_REQUESTS must be an integer, got "lots"');
    expect(refusal(['--max-requests', 'lots'], { [FLAGS_FROM_ACTION_VARIABLE]: '1' })).toBe('Action input max-requests must be an integer, got "lots"');
    expect(refusal(['--timeout', '0'], { [FLAGS_FROM_ACTION_VARIABLE]: '1' })).toBe('--timeout must be between 1 and 600000, got 0');
    expect(refusal(['--risk-breaking-store', '--read-only'], { [FLAGS_FROM_ACTION_VARIABLE]: '1' })).toBe('Action input risk-breaking-store cannot be used with Action input read-only: its probes are createPets');
    expect(refusal([], { PETSTORE_MAX_WAIT: '3601' })).toBe('PETSTORE_MAX_WAIT must be between 0 and 3600, got 3601');
    expect(refusal(['--base-url', 'not a url'], { PETSTORE_API_KEY: 'k' })).toBe('--base-url is not a valid URL: "not a url"');
    expect(refusal([], { PETSTORE_BASE_URL: 'ftp://h.test/v1', PETSTORE_API_KEY: 'k' })).toBe('PETSTORE_BASE_URL must use http or https, got "ftp:"');
    const cwd = await tempDir('options-table');
    await writeFile(join(cwd, 'x.json'), JSON.stringify({ maxRequests: 'lots' }));
    expect(refusal(['--config', 'x.json'], {}, cwd)).toBe('config file x.json: maxRequests must be integer (see schemas/config.schema.json)');
    await writeFile(join(cwd, 'x.json'), JSON.stringify({ maxWait: 3601 }));
    expect(refusal(['--config', 'x.json'], {}, cwd)).toBe('config file x.json: maxWait must be <= 3600 (see schemas/config.schema.json)');
    await writeFile(join(cwd, 'x.json'), JSON.stringify({ baseUrl: 'ftp://h.test/v1', apiKeyEnv: 'K' }));
    expect(refusal(['--config', 'x.json'], { K: 'k' }, cwd)).toBe('config file x.json: baseUrl must use http or https, got "ftp:"');
  });

  it('flag, then variable, then file, for every option with a variable', async () => {
    const cwd = await tempDir('options-table');
    await writeFile(join(cwd, 'petstore-conformance.config.json'), JSON.stringify({ maxRequests: 30, timeout: 3000, maxWait: 5, deadline: 60, seed: 7 }));
    const run = (argv: string[], env: NodeJS.ProcessEnv): unknown => {
      const parsed = parseCommandLine(argv, env, cwd);
      return parsed.command === 'run' ? { maxRequests: parsed.maxRequests, timeoutMs: parsed.timeoutMs, maxWaitMs: parsed.maxWaitMs, deadlineMs: parsed.deadlineMs, seed: parsed.seed } : parsed.command;
    };
    expect(run([], {})).toEqual({ maxRequests: 30, timeoutMs: 3000, maxWaitMs: 5000, deadlineMs: 60_000, seed: 7 });
    const env = { PETSTORE_MAX_REQUESTS: '40', PETSTORE_TIMEOUT: '4000', PETSTORE_MAX_WAIT: '6', PETSTORE_DEADLINE: '70', PETSTORE_SEED: '8' };
    expect(run([], env)).toEqual({ maxRequests: 40, timeoutMs: 4000, maxWaitMs: 6000, deadlineMs: 70_000, seed: 8 });
    // An empty variable is unset (a CI template that expands to nothing).
    expect(run([], { ...env, PETSTORE_SEED: '' })).toMatchObject({ seed: 7 });
    expect(run(['--max-requests', '50', '--timeout', '5000', '--max-wait', '7', '--deadline', '80', '--seed', '9'], env)).toEqual({ maxRequests: 50, timeoutMs: 5000, maxWaitMs: 7000, deadlineMs: 80_000, seed: 9 });
  });
});

describe("the library's integer options", () => {
  it("take the table's ranges in the library's unit", () => {
    expect(libraryRange('max-wait')).toEqual({ name: 'maxWaitMs', min: 0, max: 3_600_000 });
    expect(libraryRange('deadline')).toEqual({ name: 'deadlineMs', min: 1, max: 86_400_000 });
    expect(() => resolveOptions({ maxWaitMs: 3_600_001 })).toThrow('maxWaitMs must be an integer between 0 and 3600000, got 3600001');
    expect(() => resolveOptions({ timeoutMs: 600_001 })).toThrow('timeoutMs must be an integer between 1 and 600000, got 600001');
    expect(resolveOptions({ deadlineMs: 1 }).deadlineMs).toBe(1);
  });
});
