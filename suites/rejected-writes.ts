/**
 * CREATE-004 and AUTH-004: a rejected createPet leaves the store unchanged. Both look for the
 * run's marker names in one fresh limit=100 listing, which can only prove absence when the whole
 * store fits on that page; otherwise the requirement is inconclusive.
 */
import { describe } from 'vitest';
import { requirementTest, type RequirementRun } from '../src/conformance/requirement-test.js';
import { UNAUTHORISED_MARKER, unauthorisedPostsSent } from './auth.js';

async function expectNoMarkedPets(t: RequirementRun, marker: string, attempted: boolean): Promise<void> {
  if (!attempted) t.inconclusive('no rejected createPet was sent in this run (writes disabled or requirement deselected)');
  const census = await t.session.census();
  t.cite(census.exchange);
  if (!census.ok) t.inconclusive('the listing that would show leaked pets failed');
  const leaked = census.pets.filter((p) => typeof p['name'] === 'string' && p['name'].startsWith(marker));
  for (const pet of leaked) t.fail(`A rejected createPet was stored anyway: pet ${String(pet['id'])} named ${JSON.stringify(pet['name'])} is listed`, census.exchange);
  if (leaked.length === 0 && !census.wholeStore) {
    t.inconclusive('the store holds 100 pets or more, so one listing cannot show that nothing leaked');
  }
}

describe('rejected writes (4.2, 5)', () => {
  requirementTest('CREATE-004', (t) =>
    expectNoMarkedPets(t, `${t.session.namePrefix}invalid-`, !t.session.config.readOnly && t.session.isSelected('CREATE-003')),
  );

  requirementTest('AUTH-004', (t) => expectNoMarkedPets(t, `${t.session.namePrefix}${UNAUTHORISED_MARKER}`, unauthorisedPostsSent() > 0));
});
