// Writes the YAML documents of schemas/ as JSON into dist/schemas/, so a run never loads the
// YAML parser (see src/interface/documents.ts). Part of `npm run build`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';

mkdirSync('dist/schemas', { recursive: true });
for (const name of ['openapi', 'requirements']) {
  writeFileSync(`dist/schemas/${name}.json`, JSON.stringify(parse(readFileSync(`schemas/${name}.yaml`, 'utf8'))));
}
