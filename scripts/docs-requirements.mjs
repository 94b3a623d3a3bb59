// docs/requirements.md, written again from the requirement catalog (schemas/requirements.yaml):
//
//   npm run docs:requirements
//
// test/docs-requirements.test.ts fails when the page no longer matches the catalog.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { loadCatalog } from '../dist/src/catalog.js';
import { catalogPage } from '../dist/src/catalog-page.js';

const page = resolve(import.meta.dirname, '../docs/requirements.md');
await writeFile(page, catalogPage(loadCatalog()));
process.stdout.write(`docs:requirements: ${page}\n`);
