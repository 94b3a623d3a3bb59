/**
 * Section 5: every operation refuses a missing, wrong or malformed credential with 401. The
 * Error body of those 401s is judged by ERR-001/ERR-002 like every other error response.
 * Each unauthorised createPet names its pet with a marker of its own, so AUTH-004 can tell a
 * stored one by the request it came from. Their status is the one every refused body carries, so
 * one filtered listing can show them all (suites/rejected-writes.ts).
 */
import { describe } from 'vitest';
import { requirementTest, type RequirementRun } from '../src/conformance/requirement-test.js';
import type { SendRequest } from '../src/http/client.js';
import { refusedBodyStatus } from '../src/arbitraries/invalidNewPet.js';
import { TRAP_TOKENS } from '../src/arbitraries/wrong-keys.js';
import { describeNearMiss, nearMissesOf } from '../src/http/near-miss.js';
import { idOf, WRITES_DISABLED } from './support.js';

type Credential = { label: string; auth: NonNullable<SendRequest['auth']> };
type Operation = { label: string; request: (t: RequirementRun) => Promise<Pick<SendRequest, 'method' | 'path' | 'body' | 'contentType'>> };

const OPERATIONS: Operation[] = [
  { label: 'listPets', request: async () => ({ method: 'GET', path: '/pets' }) },
  {
    label: 'createPet',
    request: async (t) => ({
      method: 'POST',
      path: '/pets',
      contentType: 'application/json',
      body: JSON.stringify({ name: `${t.session.probes.next()}unauthorised`, categoryId: 1, status: refusedBodyStatus() }),
    }),
  },
  {
    label: 'getPet',
    request: async (t) => {
      // Chosen once: the census is taken again after each test's createPet, and an id that existed still does.
      const id = await t.session.memo('auth-pet-id', async () => t.session.usable((await t.session.census()).pets).map(idOf).find((v) => v !== undefined) ?? 1n);
      return { method: 'GET', path: `/pets/${id}` };
    },
  },
  { label: 'listOrders', request: async () => ({ method: 'GET', path: '/store/orders' }) },
];

/** Sends every operation (or those named) with each credential and expects 401. */
async function expectUnauthorised(t: RequirementRun, credentials: Credential[], operations: readonly Operation[] = OPERATIONS): Promise<void> {
  const skipped: string[] = [];
  for (const op of operations) {
    if (op.label === 'createPet' && t.session.config.readOnly) {
      skipped.push(op.label);
      continue;
    }
    for (const credential of credentials) {
      if (op.label === 'createPet') await t.session.openBracket('AUTH-004');
      const request = await op.request(t);
      const ex = await t.send({ ...request, auth: credential.auth });
      const status = ex.response?.status;
      if (status === undefined) return t.inconclusive(`${op.label} ${credential.label} got no response (${ex.error?.code})`);
      if (status !== 401) t.fail(`${op.label} ${credential.label}: received ${status} / expected 401`, ex);
    }
  }
  // Any POST above might have leaked a pet: the next listing must be fresh.
  if (operations.some((op) => op.label === 'createPet')) t.session.storeWritten();
  if (skipped.length > 0) t.notExercised(`${skipped.join(', ')} not sent: ${WRITES_DISABLED}`);
}

describe('5 authentication', () => {
  requirementTest('AUTH-001', (t) => expectUnauthorised(t, [{ label: 'without Authorization', auth: 'none' }]));

  requirementTest('AUTH-002', async (t) => {
    // Keys a careless lookup accepts need one operation only, as every operation shares the lookup.
    const traps: Credential[] = TRAP_TOKENS.map(({ token }) => ({ label: `with the bearer token ${token}`, auth: { mode: 'wrong-key', header: `Bearer ${token}` } }));
    const misses: Credential[] = nearMissesOf(t.session.config.apiKey).map((miss) => ({ label: `with ${describeNearMiss(miss)}`, auth: { mode: 'near-miss', miss } }));
    await expectUnauthorised(t, [...traps, ...misses], OPERATIONS.filter((op) => op.label === 'listPets'));
    await expectUnauthorised(t, [{ label: 'with a key the service did not issue', auth: 'wrong-key' }]);
  });

  requirementTest('AUTH-003', async (t) => {
    const key = t.session.config.apiKey;
    // The header values hold the real key where a careless server might still find it; the
    // client redacts it from every record.
    await expectUnauthorised(t, [
      { label: 'with the key but no scheme', auth: { mode: 'malformed', header: key } },
      { label: 'with an empty bearer token', auth: { mode: 'malformed', header: 'Bearer ' } },
      { label: 'with the Basic scheme', auth: { mode: 'malformed', header: `Basic ${Buffer.from(`user:${key}`).toString('base64')}` } },
    ]);
    // One header check serves every operation, so listPets alone: "Bearer <key>" twice in one
    // value (a bearer token holds no space, so a server that reads the first or the last two words
    // and ignores the rest, or finds "Bearer <key>" anywhere in the value, accepts it), and the key
    // as it is under another scheme (a server that takes the word after any scheme accepts it;
    // Basic above carries it encoded, which such a server refuses as another key).
    await expectUnauthorised(
      t,
      [
        { label: 'with "Bearer <key>" twice in one value', auth: { mode: 'malformed', header: `Bearer ${key} Bearer ${key}` } },
        { label: 'with the key under the scheme Token', auth: { mode: 'malformed', header: `Token ${key}` } },
      ],
      OPERATIONS.filter((op) => op.label === 'listPets'),
    );
  });
});
