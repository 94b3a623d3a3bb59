import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CROSS_CUTTING_REQUIREMENTS, crossCuttingChecks } from '../src/checks/cross-cutting.js';
import { errorBody, makeExchange, pet } from './support/exchange-factory.js';
import { violations } from './support/findings.js';

interface CatalogEntry {
  id: string;
  crossCutting?: boolean;
}

function catalogCrossCutting(): string[] {
  const catalog = parse(readFileSync(new URL('../schemas/requirements.yaml', import.meta.url), 'utf8')) as { requirements: CatalogEntry[] };
  return catalog.requirements.filter((r) => r.crossCutting === true).map((r) => r.id);
}

describe('crossCuttingChecks', () => {
  it('covers exactly the catalog entries marked crossCutting', () => {
    expect([...CROSS_CUTTING_REQUIREMENTS].sort()).toEqual(catalogCrossCutting().sort());
  });

  it('emits findings only for those requirements, each citing its exchange', () => {
    const broken = [
      makeExchange({ seq: 101, status: 401, body: 'no', headers: { 'content-type': 'text/plain', 'x-ratelimit-limit': '1.5', 'x-ratelimit-reset': '30' } }),
      makeExchange({ seq: 102, json: [pet(1, { status: 'lost' }), pet(1)], headers: { 'content-type': 'text/json' } }),
      makeExchange({ seq: 103, target: '/pets/1', json: pet(1), headers: { deprecation: 'true', sunset: 'Fri, 06 Dec 2030 00:00:00 GMT' } }),
      makeExchange({ seq: 104, status: 404, target: '/pets/2', json: errorBody(400) }),
      makeExchange({ seq: 105, status: 429, json: { error: 'x' }, headers: { 'retry-after': undefined, 'x-ratelimit-remaining': '61' } }),
      // Retry-After far beyond the Reset a minute away (RATE-006); a Limit no plan comes near (RATE-008).
      makeExchange({ seq: 106, status: 429, body: '', headers: { 'retry-after': '5000', 'x-ratelimit-limit': '2000000', 'x-ratelimit-remaining': '0' } }),
    ];
    const findings = broken.flatMap((ex) => crossCuttingChecks(ex, { plan: 'pro' }));
    const allowed: readonly string[] = CROSS_CUTTING_REQUIREMENTS;
    for (const f of findings) {
      expect(allowed).toContain(f.requirement);
      expect([101, 102, 103, 104, 105, 106]).toContain(f.exchange);
    }
    const failed = new Set(violations(findings).map((f) => f.requirement));
    // RATE-002's rise needs two exchanges (remaining-rise.ts); its Remaining ≤ Limit part is here.
    expect([...failed].sort()).toEqual([...CROSS_CUTTING_REQUIREMENTS].sort());
  });

  it('finds nothing wrong with a conforming exchange, with or without a plan', () => {
    expect(violations(crossCuttingChecks(makeExchange({ json: [pet(1)] }), { plan: 'free' }))).toEqual([]);
    expect(violations(crossCuttingChecks(makeExchange({ target: '/pets/1', json: pet(1) }), {}))).toEqual([]);
    expect(crossCuttingChecks(makeExchange({ noResponse: true }), { plan: 'free' })).toEqual([]);
  });
});
