/**
 * Validation of the specification map against schemas/spec-map.schema.json. Kept apart from
 * spec-map.ts so that a run, which reads the map for its reports, never loads Ajv; `coverage` and
 * the tests validate the file.
 */
import { parseYaml } from './interface/documents.js';
import { schemaFileValidator } from './interface/schema-file.js';
import { specMapFrom, type SpecMap } from './spec-map.js';

function assertSpecMap(data: unknown, file: string): asserts data is SpecMap {
  const errors = schemaFileValidator('spec-map.schema.json')(data);
  if (errors.length > 0) throw new Error(`${file} is invalid:\n  ${errors.join('\n  ')}`);
}

/** Parses and validates map text; `file` names it in the error. */
export function parseSpecMap(yamlText: string, file = 'schemas/spec-map.yaml'): SpecMap {
  const document = parseYaml(yamlText);
  assertSpecMap(document, file);
  return specMapFrom(document);
}
