/**
 * The committed artefacts derived from the option table: schemas/config.schema.json, the inputs of
 * action.yml (and the env of its step) and docs/cli.md. scripts/gen-options.mjs writes them
 * (`npm run gen:options`); test/options-table.test.ts regenerates them in memory and fails on any
 * difference, so none of them can drift from the table.
 */
import { stringify } from 'yaml';
import { DEFAULT_REPORTERS, ENVIRONMENT_ONLY, optionEntries, type JsonSchema, type OptionSpec } from './table.js';
import { rangeAndDefault, USAGE_FOOT, USAGE_HEAD } from './help.js';

export const CONFIG_SCHEMA_PATH = 'schemas/config.schema.json';
export const ACTION_PATH = 'action.yml';
export const CLI_REFERENCE_PATH = 'docs/cli.md';

function integerBounds(o: OptionSpec): JsonSchema {
  if (o.integer === undefined) return {};
  return { minimum: o.integer.min, ...(o.integer.max === Number.MAX_SAFE_INTEGER ? {} : { maximum: o.integer.max }) };
}

/** The config file's JSON Schema: one property per option with a config key, and the editor's `$schema`. */
export function configSchema(): JsonSchema {
  const properties: Record<string, JsonSchema> = { $schema: { type: 'string', description: 'The schema editors complete this file with.' } };
  for (const [, o] of optionEntries()) {
    if (o.config === undefined) continue;
    properties[o.config.key] = { ...o.config.schema, ...integerBounds(o), description: o.config.description };
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://petstore-conformance.invalid/schemas/config.schema.json',
    title: 'petstore-conformance config file',
    description:
      'Options of a conformance run, read from --config <file> or from petstore-conformance.config.yaml, .yml or .json in the working directory. Flags win over the environment, which wins over this file. Paths are relative to this file. The API key is never here: apiKeyEnv names the environment variable that holds it.',
    type: 'object',
    additionalProperties: false,
    properties,
  };
}

export function configSchemaText(): string {
  return `${JSON.stringify(configSchema(), null, 2)}\n`;
}

/** The Action's input names, in the table's order. */
export function actionInputNames(): string[] {
  return optionEntries().flatMap(([, o]) => (o.action === undefined ? [] : [o.action.input]));
}

/** The variable through which the Action's step hands an input to its script. */
export function actionInputVariable(input: string): string {
  return `INPUT_${input.toUpperCase().replace(/-/g, '_')}`;
}

const INPUTS_BEGIN = '# Generated from src/options/table.ts by `npm run gen:options`: edit the table, not the lines up to the end mark.';
const INPUTS_END = '# End of the generated inputs.';
const ENV_BEGIN = '      # Generated from src/options/table.ts by `npm run gen:options`, like the inputs.';
const ENV_END = '      # End of the generated env.';

function inputsBlock(): string {
  const inputs = Object.fromEntries(
    optionEntries().flatMap(([, o]) => (o.action === undefined ? [] : [[o.action.input, { description: o.action.description, required: false, default: o.action.default }]])),
  );
  return `${INPUTS_BEGIN}\n${stringify({ inputs }, { lineWidth: 0 }).trimEnd()}\n${INPUTS_END}`;
}

function envBlock(): string {
  const lines = actionInputNames().map((input) => `        ${actionInputVariable(input)}: \${{ inputs.${input} }}`);
  return `${ENV_BEGIN}\n      env:\n${lines.join('\n')}\n${ENV_END}`;
}

/** Replaces the text from `begin` to `end` (both kept) with `block`; a file without the marks is a mistake to see, not to guess at. */
function replaceBetween(text: string, begin: string, end: string, block: string, file: string): string {
  const from = text.indexOf(begin);
  const to = text.indexOf(end, from);
  if (from < 0 || to < 0) throw new Error(`${file} lacks the marks of its generated part ("${begin}" … "${end}")`);
  return `${text.slice(0, from)}${block}${text.slice(to + end.length)}`;
}

/** action.yml with its generated parts (the inputs, the step's env) made from the table; the rest as written. */
export function actionYamlText(current: string): string {
  const withInputs = replaceBetween(current, INPUTS_BEGIN, INPUTS_END, inputsBlock(), ACTION_PATH);
  return replaceBetween(withInputs, ENV_BEGIN, ENV_END, envBlock(), ACTION_PATH);
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function code(text: string | undefined): string {
  return text === undefined ? '' : `\`${text}\``;
}

function commandsOf(o: OptionSpec): string {
  return o.commands.map((c) => (c === 'run' ? 'run, replay' : c === 'any' ? 'all' : c)).join(', ');
}

/** docs/cli.md: the CLI reference, every option with each of its names. */
export function cliReferenceText(): string {
  const rows = optionEntries().map(([flag, o]) => {
    const name = `${o.short === undefined ? '' : `\`-${o.short}\`, `}\`--${flag}${o.placeholder === undefined ? '' : ` ${o.placeholder}`}\``;
    return `| ${cell(name)} | ${commandsOf(o)} | ${code(o.env)} | ${code(o.config?.key)} | ${code(o.action?.input)} | ${rangeAndDefault(o).join('; ')} | ${cell(o.help.join(' '))} |`;
  });
  const environment = ENVIRONMENT_ONLY.map((e) => `| \`${e.env}\` | ${cell(e.help.join(' '))} |`);
  return [
    '# CLI reference',
    '',
    '<!-- Generated from src/options/table.ts by `npm run gen:options`; test/options-table.test.ts fails when it drifts. Edit the table, not this page. -->',
    '',
    '```text',
    USAGE_HEAD,
    '```',
    '',
    '## Options',
    '',
    'A value comes from its flag, else its environment variable (an empty one counts as unset), else the config file',
    `(\`--config\`, or \`petstore-conformance.config.yaml\`, \`.yml\` or \`.json\` in the working directory; its schema is \`${CONFIG_SCHEMA_PATH}\`).`,
    'The GitHub Action passes each of its inputs as the flag beside it. A mistake in a value is named where it came from:',
    '`--max-requests`, `PETSTORE_MAX_REQUESTS`, `config file x.json: maxRequests` or `Action input max-requests`. An unknown',
    'flag gets the nearest known one ("did you mean"), and so does an unknown config key.',
    '',
    '| Flag | Commands | Environment | Config key | Action input | Range, default | What it does |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `Reporters default to \`${DEFAULT_REPORTERS}\`; \`json\` is always written. The API key is never a config key or an Action input:`,
    'the config file names the variable that holds it (`apiKeyEnv`), and the Action reads `PETSTORE_API_KEY` from the step\'s env.',
    '',
    '## Environment only',
    '',
    '| Variable | What it does |',
    '| --- | --- |',
    ...environment,
    '',
    '## Verdicts and exit codes',
    '',
    '```text',
    USAGE_FOOT,
    '```',
    '',
  ].join('\n');
}
