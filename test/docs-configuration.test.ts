/**
 * docs/configuration.md's config file section names every key schemas/config.schema.json allows,
 * and every key it names is one the schema allows: a key added to the schema without the page, or
 * a page naming a key the file refuses, fails here.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const PAGE = readFileSync(resolve(ROOT, 'docs/configuration.md'), 'utf8');

function schemaKeys(): string[] {
  const schema: unknown = JSON.parse(readFileSync(resolve(ROOT, 'schemas/config.schema.json'), 'utf8'));
  const properties = typeof schema === 'object' && schema !== null ? (schema as Record<string, unknown>)['properties'] : undefined;
  expect(typeof properties).toBe('object');
  return Object.keys(properties ?? {});
}

/** The code spans of the sentence that lists the file's keys, up to the end of its paragraph. */
function keysOnThePage(): string[] {
  const start = PAGE.indexOf('A JSON file may name the schema with');
  expect(start, 'the page lists the keys').toBeGreaterThan(0);
  const listing = PAGE.slice(start, PAGE.indexOf('; lists may be', start));
  return [...listing.matchAll(/`"?(\$?[A-Za-z]+)"?`/g)].map((m) => m[1] ?? '');
}

describe('docs/configuration.md and the config file schema', () => {
  it('names exactly the keys the schema allows', () => {
    expect([...new Set(keysOnThePage())].sort()).toEqual(schemaKeys().sort());
  });
});
