/**
 * replay.json checked against schemas/replay.schema.json, whose exchanges and ids refer to the
 * report schema's definitions: both are added to one Ajv so the references resolve.
 */
import { readFileSync } from 'node:fs';
import { runtimeAjv } from '../../src/interface/schema-compiler.js';

const schema = (name: string): Record<string, unknown> => JSON.parse(readFileSync(new URL(`../../schemas/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;

let validate: ReturnType<ReturnType<typeof runtimeAjv>['compile']> | undefined;

/** Errors of replay.json's text against the schema; empty when valid. */
export function replaySchemaErrors(text: string): string[] {
  if (validate === undefined) {
    const ajv = runtimeAjv();
    ajv.addSchema(schema('report.schema.json'));
    validate = ajv.compile(schema('replay.schema.json'));
  }
  const value: unknown = JSON.parse(text);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
}
