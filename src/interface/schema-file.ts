/**
 * Validators of our own artefacts (the catalog, the specification map), compiled once from their
 * JSON Schema files in schemas/. Ajv is loaded only when one is first used: a run never is.
 */
import { readFileSync } from 'node:fs';
import type { JsonSchema } from './openapi.js';
import { packagePath } from './package-root.js';
import { compileValidator } from './validators.js';

const cached = new Map<string, (data: unknown) => string[]>();

function isSchemaObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The validator of schemas/<file>: errors of a value, empty when it is valid. */
export function schemaFileValidator(file: string): (data: unknown) => string[] {
  let validator = cached.get(file);
  if (validator === undefined) {
    const schema: unknown = JSON.parse(readFileSync(packagePath('schemas', file), 'utf8'));
    if (!isSchemaObject(schema)) throw new Error(`schemas/${file} is not a schema object`);
    validator = compileValidator(schema);
    cached.set(file, validator);
  }
  return validator;
}
