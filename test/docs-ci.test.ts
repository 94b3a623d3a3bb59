/**
 * docs/ci.md names every input and output action.yml declares: the page is where a workflow's
 * author looks them up, so an input added or renamed in the Action without the
 * page fails here.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = resolve(import.meta.dirname, '..');
const PAGE = readFileSync(resolve(ROOT, 'docs/ci.md'), 'utf8');

/** The names action.yml declares under `inputs` or `outputs`. */
function declared(kind: 'inputs' | 'outputs'): string[] {
  const action: unknown = parse(readFileSync(resolve(ROOT, 'action.yml'), 'utf8'));
  const section = typeof action === 'object' && action !== null ? (action as Record<string, unknown>)[kind] : undefined;
  expect(typeof section, `action.yml has ${kind}`).toBe('object');
  return Object.keys(section ?? {});
}

/** The code spans from `lead` to the end of its paragraph. */
function namedIn(lead: string): string[] {
  const start = PAGE.indexOf(lead);
  expect(start, `docs/ci.md has "${lead}"`).toBeGreaterThan(0);
  const end = PAGE.indexOf('\n\n', start);
  return [...PAGE.slice(start, end).matchAll(/`([a-z][a-z-]*)`/g)].map((m) => m[1] ?? '');
}

describe('docs/ci.md and action.yml', () => {
  it('names every input of the Action', () => {
    const inputs = declared('inputs');
    expect(inputs.length).toBeGreaterThan(0);
    const named = new Set(namedIn('Inputs: '));
    expect(inputs.filter((i) => !named.has(i))).toEqual([]);
  });

  it('names every output of the Action', () => {
    const outputs = declared('outputs');
    expect(outputs.length).toBeGreaterThan(0);
    const named = new Set(namedIn('Outputs: '));
    expect(outputs.filter((o) => !named.has(o))).toEqual([]);
  });
});
