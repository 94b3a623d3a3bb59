/**
 * Validation of the requirement catalog against schemas/requirements.schema.json. Kept apart from
 * catalog.ts so that reading the catalog does not load Ajv; the tests validate the shipped file.
 */
import { catalogFrom, type Catalog } from './catalog.js';
import { parseYaml } from './interface/documents.js';
import { schemaFileValidator } from './interface/schema-file.js';

function assertCatalog(data: unknown): asserts data is Catalog {
  const errors = schemaFileValidator('requirements.schema.json')(data);
  if (errors.length > 0) throw new Error(`schemas/requirements.yaml is invalid:\n  ${errors.join('\n  ')}`);
}

/** Parses and validates catalog text (tests feed it broken catalogs). */
export function parseCatalog(yamlText: string): Catalog {
  const document = parseYaml(yamlText);
  assertCatalog(document);
  return catalogFrom(document);
}
