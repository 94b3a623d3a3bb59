/**
 * Section 5: every operation refuses a missing, wrong or malformed credential with 401. The
 * Error body of those 401s is judged by ERR-001/ERR-002 like every other error response.
 * Each unauthorised createPet names its pet with a marker of its own, so AUTH-004 can tell a
 * stored one by the request it came from. Their status is the one every refused body carries, so
 * one filtered listing can show them all (suites/rejected-writes.ts).
 *
 * Besides one ordinary request to each operation, the operations go out at the edges of their
 * parameters (src/arbitraries/parameter-edges.ts): a route or validator that runs before the key
 * check answers those with 404 or 400 instead.
 */
import { suite } from '../src/conformance/suite.js';
import { requirementTest, type RequirementRun } from '../src/conformance/requirement-test.js';
import type { SendRequest } from '../src/http/client.js';
import { refusedBodyStatus } from '../src/arbitraries/invalidNewPet.js';
import { edgeLabel, malformedHeaderEdges, parameterEdges, wrongKeyEdges, type ParameterEdge } from '../src/arbitraries/parameter-edges.js';
import { TRAP_TOKENS } from '../src/arbitraries/wrong-keys.js';
import { describeNearMiss, nearMissesOf } from '../src/http/near-miss.js';
import { idOf, WRITES_DISABLED } from './support.js';
import { SharedKey } from '../src/session/shared-results.js';

type Credential = { label: string; auth: NonNullable<SendRequest['auth']> };
type Request = Pick<SendRequest, 'method' | 'path' | 'query' | 'body' | 'contentType'>;
/** One request to an operation; `label` names the operation and the parameter value it carries, for the evidence. */
type Probe = { operation: string; request: (t: RequirementRun) => Promise<{ label: string; request: Request }> };

/** The petId AUTH's getPet requests name. */
const AUTH_PET_ID = new SharedKey<bigint>('the petId of the getPet probes');

const OPERATIONS: Probe[] = [
  { operation: 'listPets', request: async () => ({ label: 'listPets', request: { method: 'GET', path: '/pets' } }) },
  {
    operation: 'createPet',
    request: async (t) => ({
      label: 'createPet',
      request: {
        method: 'POST',
        path: '/pets',
        contentType: 'application/json',
        body: JSON.stringify({ name: `${t.session.store.probes.next()}unauthorised`, categoryId: 1, status: refusedBodyStatus() }),
      },
    }),
  },
  {
    operation: 'getPet',
    request: async (t) => {
      // Chosen once: the census is taken again after each test's createPet, and an id that existed still does.
      const id = await t.session.shared.once(AUTH_PET_ID, async () => t.session.store.usable((await t.session.store.census()).pets).map(idOf).find((v) => v !== undefined) ?? 1n);
      return { label: `getPet petId=${id}`, request: { method: 'GET', path: `/pets/${id}` } };
    },
  },
  { operation: 'listOrders', request: async () => ({ label: 'listOrders', request: { method: 'GET', path: '/store/orders' } }) },
];

const LIST_PETS = OPERATIONS.filter((op) => op.operation === 'listPets');

function edgeProbe(edge: ParameterEdge): Probe {
  const request: Request =
    edge.parameter === 'petId' ? { method: 'GET', path: `/pets/${edge.value}` } : { method: 'GET', path: '/pets', query: [[edge.parameter, edge.value]] };
  return { operation: edge.operation, request: async () => ({ label: `${edge.operation} ${edgeLabel(edge)}`, request }) };
}

/** Sends each probe (every operation unless told) with each credential and expects 401. */
async function expectUnauthorised(t: RequirementRun, credentials: Credential[], probes: readonly Probe[] = OPERATIONS): Promise<void> {
  const skipped: string[] = [];
  for (const probe of probes) {
    if (probe.operation === 'createPet' && t.session.config.readOnly) {
      skipped.push(probe.operation);
      continue;
    }
    for (const credential of credentials) {
      if (probe.operation === 'createPet') await t.session.store.openBracket('AUTH-004');
      const { label, request } = await probe.request(t);
      const ex = await t.send({ ...request, auth: credential.auth });
      const status = ex.response?.status;
      if (status === undefined) return t.inconclusive(`${label} ${credential.label} got no response (${ex.error?.code})`);
      if (status !== 401) t.fail(`${label} ${credential.label}: received ${status} / expected 401`, ex);
    }
  }
  // Any POST above might have leaked a pet: the next listing must be fresh.
  if (probes.some((probe) => probe.operation === 'createPet')) t.session.store.storeWritten();
  if (skipped.length > 0) t.notExercised(`${skipped.join(', ')} not sent: ${WRITES_DISABLED}`);
}

export const auth = suite('5 authentication', () => {
  requirementTest('AUTH-001', (t) => expectUnauthorised(t, [{ label: 'without Authorization', auth: 'none' }], [...OPERATIONS, ...parameterEdges().map(edgeProbe)]));

  requirementTest('AUTH-002', async (t) => {
    // Keys a careless lookup accepts need one operation only, as every operation shares the lookup.
    const traps: Credential[] = TRAP_TOKENS.map(({ token }) => ({ label: `with the bearer token ${token}`, auth: { mode: 'wrong-key', header: `Bearer ${token}` } }));
    const misses: Credential[] = nearMissesOf(t.session.config.apiKey).map((miss) => ({ label: `with ${describeNearMiss(miss)}`, auth: { mode: 'near-miss', miss } }));
    await expectUnauthorised(t, [...traps, ...misses], LIST_PETS);
    await expectUnauthorised(t, [{ label: 'with a key the service did not issue', auth: 'wrong-key' }], [...OPERATIONS, ...wrongKeyEdges().map(edgeProbe)]);
  });

  requirementTest('AUTH-003', async (t) => {
    const key = t.session.config.apiKey;
    // The header values hold the real key where a careless server might still find it; the
    // client redacts it from every record.
    const emptyToken: Credential = { label: 'with an empty bearer token', auth: { mode: 'malformed', header: 'Bearer ' } };
    await expectUnauthorised(t, [
      { label: 'with the key but no scheme', auth: { mode: 'malformed', header: key } },
      emptyToken,
      { label: 'with the Basic scheme', auth: { mode: 'malformed', header: `Basic ${Buffer.from(`user:${key}`).toString('base64')}` } },
    ]);
    // The header that holds no key at all, at the edge malformedHeaderEdges says why it is the only one.
    await expectUnauthorised(t, [emptyToken], malformedHeaderEdges().map(edgeProbe));
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
      LIST_PETS,
    );
  });
});
