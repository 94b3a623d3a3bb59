/**
 * Requirement coverage (Inferno's check): every requirement of the catalog is verified by at least
 * one test of the suites, and every test names a requirement of the catalog. Collected from the
 * compiled suites without running them, exactly as `petstore-conformance coverage` does.
 */
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../src/catalog.js';
import { runCli } from './support/cli.js';

describe('requirement coverage', () => {
  it('lists a test for every requirement and no test without one', async () => {
    const result = await runCli(['coverage']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    for (const r of loadCatalog().requirements) {
      expect(result.stdout, `${r.id} has no test`).toMatch(new RegExp(`^\\| ${r.id} \\| [^|]+ \\| [^|]+ \\| ${r.id} `, 'm'));
    }
    expect(result.stdout).toMatch(/0 tests name no requirement/);
  });
});
