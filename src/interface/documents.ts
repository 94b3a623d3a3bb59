/**
 * Reads the YAML documents of schemas/ (the interface, the requirement catalog and the specification map). The build
 * also writes them as JSON to dist/schemas/ (scripts/compile-schemas.mjs): a run then parses JSON
 * and never loads the YAML parser, in the CLI's process or the suite's worker (~10 MB each). The
 * YAML stays the source: when it is newer than its JSON copy, the YAML is read.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { packagePath } from './package-root.js';

export type DocumentName = 'openapi' | 'requirements' | 'spec-map';

const require = createRequire(import.meta.url);

export function yamlDocumentPath(name: DocumentName): string {
  return packagePath('schemas', `${name}.yaml`);
}

/**
 * The path of a file the build derives from a document (dist/schemas/<file>), when it exists and is
 * not older than the document; undefined when the document has to be used instead.
 */
export function currentBuildOutput(name: DocumentName, file: string): string | undefined {
  const compiled = packagePath('dist', 'schemas', file);
  return existsSync(compiled) && statSync(compiled).mtimeMs >= statSync(yamlDocumentPath(name)).mtimeMs ? compiled : undefined;
}

export function readYamlDocument(name: DocumentName): unknown {
  const compiled = currentBuildOutput(name, `${name}.json`);
  if (compiled !== undefined) return JSON.parse(readFileSync(compiled, 'utf8')) as unknown;
  return parseYaml(readFileSync(yamlDocumentPath(name), 'utf8'));
}

/** The YAML parser, loaded only when a document has to be parsed from YAML. */
export function parseYaml(text: string): unknown {
  const yaml = require('yaml') as { parse(text: string): unknown };
  return yaml.parse(text);
}
