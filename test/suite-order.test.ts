/**
 * The suites' order is declared in suites/order.ts: every suite module's suite is in it exactly
 * once, creation comes first and the cross-cutting verdicts last, and a suite registers its tests
 * only when asked, once.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SUITE_ORDER } from '../suites/order.js';
import { createPet } from '../suites/create-pet.js';
import { crossCutting } from '../suites/cross-cutting.js';
import { suite } from '../src/conformance/suite.js';

const SUITES_DIR = fileURLToPath(new URL('../suites/', import.meta.url));

describe('suite order', () => {
  it('holds every suite module’s suite exactly once', async () => {
    const modules = readdirSync(SUITES_DIR).filter((name) => name.endsWith('.ts') && /export const \w+ = suite\(/.test(readFileSync(`${SUITES_DIR}${name}`, 'utf8')));
    expect(modules.length).toBeGreaterThan(0);
    const declared = await Promise.all(modules.map(async (name) => Object.values((await import(`../suites/${name.replace(/\.ts$/, '.js')}`)) as Record<string, unknown>)));
    const suites = declared.flat().filter((value) => typeof value === 'object' && value !== null && 'register' in value);
    expect(suites).toHaveLength(modules.length);
    for (const s of suites) expect(SUITE_ORDER.filter((o) => o === s)).toHaveLength(1);
    expect(SUITE_ORDER).toHaveLength(modules.length);
  });

  it('runs creation first and the cross-cutting verdicts last', () => {
    expect(SUITE_ORDER[0]).toBe(createPet);
    expect(SUITE_ORDER.at(-1)).toBe(crossCutting);
  });

});

describe('a suite', () => {
  // Registered while vitest collects this file, as suites/all.conformance.ts does.
  let bodies = 0;
  const declared = suite('declared here', () => {
    bodies += 1;
    it('is the declared suite’s own test, collected under its title', ({ task }) => {
      expect(task.suite?.name).toBe('declared here');
    });
  });
  const beforeRegister = bodies;
  declared.register();
  let second: unknown;
  try {
    declared.register();
  } catch (error) {
    second = error;
  }

  it('registers its tests only when asked, and only once', () => {
    expect(beforeRegister).toBe(0);
    expect(bodies).toBe(1);
    expect(second).toBeInstanceOf(Error);
    expect(String(second)).toMatch(/registered twice/);
  });
});
