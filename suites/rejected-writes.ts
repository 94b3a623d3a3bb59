/**
 * CREATE-004 and AUTH-004: a refused createPet leaves the store unchanged. The names of the
 * refused requests (each carries the run's marker) are looked for in one fresh limit=100 listing,
 * which can only prove absence when the whole store fits on that page; otherwise the requirement
 * is inconclusive. Requests the service accepted are judged by CREATE-003 and AUTH-00x, not here.
 */
import { describe } from 'vitest';
import { requirementTest, type RequirementRun } from '../src/conformance/requirement-test.js';

async function expectRefusedNotStored(t: RequirementRun): Promise<void> {
  if (t.session.config.readOnly) t.notExercised('writes are disabled (--read-only)');
  const refused = t.session.refusedNames.get(t.id) ?? new Set<string>();
  if (refused.size === 0) t.inconclusive('no createPet was refused in this run (writes disabled, requirement deselected, or every request was accepted)');
  const census = await t.session.census();
  t.cite(census.exchange);
  if (!census.ok) t.inconclusive('the listing that would show stored pets failed');
  const leaked = census.pets.filter((p) => typeof p['name'] === 'string' && refused.has(p['name']));
  for (const pet of leaked) t.fail(`A refused createPet was stored anyway: pet ${String(pet['id'])} named ${JSON.stringify(pet['name'])} is listed`, census.exchange);
  if (leaked.length === 0 && !census.wholeStore) {
    t.inconclusive('the store holds 100 pets or more, so one listing cannot show that nothing was stored');
  }
}

describe('refused writes (4.2, 5)', () => {
  requirementTest('CREATE-004', expectRefusedNotStored);
  requirementTest('AUTH-004', expectRefusedNotStored);
});
