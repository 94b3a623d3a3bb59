/**
 * Validation of the requirement catalog against schemas/requirements.schema.json. Kept apart from
 * catalog.ts so that reading the catalog does not load Ajv; the tests validate the shipped file.
 */
import { readFileSync } from 'node:fs';
import { catalogFrom, type Catalog } from './catalog.js';
import { parseYaml } from './interface/documents.js';
import { packagePath } from './interface/package-root.js';
import type { JsonSchema } from './interface/openapi.js';
import { compileValidator } from './interface/validators.js';

let cachedValidator: ((data: unknown) => string[]) | undefined;

function isSchemaObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function catalogValidator(): (data: unknown) => string[] {
  if (cachedValidator === undefined) {
    const schema: unknown = JSON.parse(readFileSync(packagePath('schemas', 'requirements.schema.json'), 'utf8'));
    if (!isSchemaObject(schema)) throw new Error('schemas/requirements.schema.json is not a schema object');
    cachedValidator = compileValidator(schema);
  }
  return cachedValidator;
}

function assertCatalog(data: unknown): asserts data is Catalog {
  const errors = catalogValidator()(data);
  if (errors.length > 0) throw new Error(`schemas/requirements.yaml is invalid:\n  ${errors.join('\n  ')}`);
}

/** Parses and validates catalog text (tests feed it broken catalogs). */
export function parseCatalog(yamlText: string): Catalog {
  const document = parseYaml(yamlText);
  assertCatalog(document);
  return catalogFrom(document);
}
