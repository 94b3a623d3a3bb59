// Writes what is derived from the option table (src/options/table.ts) and committed: the config
// file's JSON Schema, action.yml's inputs and step env, and the CLI reference docs/cli.md.
// `npm run gen:options` builds first; test/options-table.test.ts fails when a file drifts.
import { readFileSync, writeFileSync } from 'node:fs';

const { ACTION_PATH, actionYamlText, CLI_REFERENCE_PATH, cliReferenceText, CONFIG_SCHEMA_PATH, configSchemaText } = await import('../dist/src/options/generate.js');

writeFileSync(CONFIG_SCHEMA_PATH, configSchemaText());
writeFileSync(ACTION_PATH, actionYamlText(readFileSync(ACTION_PATH, 'utf8')));
writeFileSync(CLI_REFERENCE_PATH, cliReferenceText());
