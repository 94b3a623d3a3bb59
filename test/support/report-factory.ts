/**
 * Sample reports for the renderers' tests: a clean pass, a run with every kind of verdict, and a
 * hostile one whose strings try to break out of XML, HTML, Markdown and JSON. Fixed values only
 * (no clock, no randomness) so rendered output can be snapshot-tested.
 */
import type { Evidence, ExchangeEvidence, Report, RequirementResult, RunTimeline, SequenceFailure, TimelineResponse } from '../../src/report/types.js';
import { verdictOf } from '../../src/report/build.js';
import { specCoverageOf } from '../../src/report/spec-coverage.js';
import type { SpecSentence } from '../../src/spec-map.js';

const BASE = 'https://staging.petstore.example/v1';

export function exchange(overrides: Partial<ExchangeEvidence> = {}): ExchangeEvidence {
  const seq = overrides.seq ?? 1;
  return {
    seq,
    purpose: 'list pets with the default page size',
    request: { method: 'GET', url: `${BASE}/pets`, headers: { authorization: 'Bearer [redacted]', accept: 'application/json' } },
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: '[]', truncated: false },
    elapsedMs: 42,
    curl: `curl -sS -i -H "Authorization: Bearer $PETSTORE_API_KEY" -H 'Accept: application/json' '${BASE}/pets'`,
    ...overrides,
  };
}

export function requirement(overrides: Partial<RequirementResult> & Pick<RequirementResult, 'id' | 'section'>): RequirementResult {
  return {
    title: `Requirement ${overrides.id}`,
    level: 'must',
    status: 'pass',
    statement: `What ${overrides.id} requires.`,
    tests: [`${overrides.id} ${overrides.title ?? 'test'}`],
    evidence: [],
    ...overrides,
  };
}

type Derived = 'summary' | 'verdict' | 'verdictLine' | 'complete' | 'notExercised';

/** Summary, verdict, verdict line, completeness and the not-exercised list derived by src/report/build.ts itself. */
export function finish(report: Omit<Report, Derived>): Report {
  return { ...report, ...verdictOf(report.requirements, report.runErrors, report.halted) };
}

function base(requirements: RequirementResult[]): Omit<Report, Derived> {
  return {
    schemaVersion: 2,
    tool: { name: 'petstore-conformance', version: '0.1.0' },
    spec: { title: 'Pet Store Service Interface Specification', version: '1.0.0' },
    target: { baseUrl: BASE, embedded: false, keyFingerprint: 'sha256:0123456789ab', plan: 'free' },
    seed: 1_234_567,
    runId: 'm3x9k2a7',
    startedAt: '2025-06-02T12:00:00.000Z',
    durationMs: 83_412,
    requests: 187,
    rateLimitWaitMs: 12_000,
    options: { readOnly: false, maxRequests: 600, timeoutMs: 10_000, only: [] },
    requirements,
    observations: [],
    notTested: [
      { section: '3', statement: 'Transitions between pet statuses.', reason: 'No transition and no operation that changes a status after creation is shown.' },
      { section: '6', statement: 'Events.', reason: 'No events, webhooks or notifications are described.' },
    ],
    createdPetIds: [],
    runErrors: [],
  };
}

/** Sentences of the specification map (a few, quoted as the real map does) over the sample's requirements. */
const SENTENCES = {
  json: { id: 'S1-07', section: '1', text: 'Requests and responses use JSON (`application/json`).' },
  idRow: { id: 'S2-05', section: '2', text: 'id | integer | int64 | yes | Unique identifier, assigned by the service on creation.' },
  limitRow: { id: 'S4.1-03', section: '4.1', text: 'limit | integer | no | minimum 1, maximum 100, default 20 | Maximum number of animals returned.' },
  deprecation: {
    id: 'S4.3-08',
    section: '4.3',
    text: 'Deprecation: this endpoint is marked deprecated and is to be removed on 5 December 2030.',
    note: 'The mark itself is in the interface description; the headers are judged when present.',
  },
  ban: {
    id: 'S5-05',
    section: '5',
    text: 'A key that is used repeatedly after rate-limit rejections may be temporarily banned (see Limits).',
    untestable: { kind: 'permissive', explanation: 'A ban is allowed, not required; provoking one would harm the key under test.' },
  },
  events: { id: 'S6-01', section: '6', text: 'Events: not shown.', untestable: { kind: 'not-shown', explanation: 'No event is described.' } },
  freeRow: { id: 'S8-02', section: '8', text: 'Free | 60 | 1,000', note: 'RATE-007 needs --exhaust-daily-quota.' },
  stability: {
    id: 'S9-04',
    section: '9',
    text: 'Endpoints may carry a stability marker, `experimental` or `beta`, through an `x-stability` extension in the interface description.',
    untestable: { kind: 'described-elsewhere', explanation: 'The marker is part of the interface description, not of any response.' },
  },
} satisfies Record<string, SpecSentence>;

export function passingReport(): Report {
  const requirements = [
    requirement({ id: 'MEDIA-001', section: '1', title: 'JSON bodies are labelled application/json', evidence: [{ kind: 'exchange', message: 'a listing, labelled application/json', exchange: exchange() }] }),
    requirement({ id: 'PET-001', section: '2', title: 'Every Pet has the Pet shape' }),
    requirement({ id: 'LIST-001', section: '4.1', title: 'listPets answers 200 with a JSON array of Pets' }),
    requirement({ id: 'LIST-003', section: '4.1', title: 'limit between 1 and 100 is honoured' }),
    requirement({ id: 'CREATE-001', section: '4.2', title: 'createPet answers 201 with the created Pet' }),
    requirement({ id: 'GET-005', section: '4.3', title: 'getPet signals its deprecation', level: 'should' }),
    requirement({ id: 'AUTH-001', section: '5', title: 'A request without a key is rejected with 401' }),
  ];
  const sentences: SpecSentence[] = [
    { ...SENTENCES.json, requirements: ['MEDIA-001', 'CREATE-001'] },
    { ...SENTENCES.limitRow, requirements: ['LIST-003'] },
    { ...SENTENCES.deprecation, requirements: ['GET-005'] },
    SENTENCES.events,
  ];
  return finish({
    ...base(requirements),
    specCoverage: specCoverageOf(sentences, requirements),
    createdPetIds: ['1001'],
  });
}

export function mixedReport(): Report {
  const badPet = exchange({
    seq: 12,
    purpose: 'create a pet',
    request: { method: 'POST', url: `${BASE}/pets`, headers: { authorization: 'Bearer [redacted]', 'content-type': 'application/json' }, body: '{"name":"Rex","categoryId":1}' },
    response: { status: 201, headers: { 'content-type': 'application/json' }, body: '{"id":"7","name":"Rex","categoryId":1,"status":"lost"}', truncated: false },
    curl: `curl -sS -i -X POST -H "Authorization: Bearer $PETSTORE_API_KEY" -H 'Content-Type: application/json' --data-raw '{"name":"Rex","categoryId":1}' '${BASE}/pets'`,
  });
  const shortPage = exchange({ seq: 31, purpose: 'list with limit=7', request: { method: 'GET', url: `${BASE}/pets?limit=7`, headers: { authorization: 'Bearer [redacted]' } }, response: { status: 200, headers: { 'content-type': 'application/json' }, body: '[{"id":1,"name":"a","categoryId":1}]', truncated: false }, curl: `curl -sS -i -H "Authorization: Bearer $PETSTORE_API_KEY" '${BASE}/pets?limit=7'` });
  const timedOut = exchange({ seq: 40, purpose: 'malformed JSON body', request: { method: 'POST', url: `${BASE}/pets`, headers: {}, body: '{"name":' }, elapsedMs: 10_000, curl: `curl -sS -i -X POST --data-raw '{"name":' '${BASE}/pets'` });
  delete timedOut.response;
  timedOut.error = { code: 'UND_ERR_HEADERS_TIMEOUT', message: 'no response headers within 10000 ms' };
  const getPet = exchange({ seq: 50, purpose: 'get a pet', request: { method: 'GET', url: `${BASE}/pets/7`, headers: {} }, curl: `curl -sS -i '${BASE}/pets/7'` });
  const violation = (message: string, ex?: ExchangeEvidence): Evidence => ({ kind: 'violation', message, ...(ex === undefined ? {} : { exchange: ex }) });
  const requirements = [
    requirement({ id: 'MEDIA-001', section: '1', title: 'JSON bodies are labelled application/json', evidence: [{ kind: 'exchange', message: 'a listing', exchange: exchange() }] }),
    requirement({
      id: 'PET-001',
      section: '2',
      title: 'Every Pet has the Pet shape',
      status: 'fail',
      interpretation: 'Extra fields are accepted and recorded as an observation.',
      evidence: [violation('/id must be integer (got "7")', badPet), violation('/status must be equal to one of the allowed values (got "lost")', badPet)],
    }),
    requirement({ id: 'LIST-002', section: '4.1', title: 'The default page size is 20', status: 'inconclusive', reason: 'the store holds 3 pets and writes are disabled (--read-only); 21 are needed' }),
    requirement({
      id: 'LIST-003',
      section: '4.1',
      title: 'limit between 1 and 100 is honoured',
      status: 'fail',
      evidence: [violation('limit=7 returned 1 pet while 40 are available', shortPage)],
      property: { counterexample: '[7]', seed: 1_234_567, path: '3:1:0', numRuns: 25 },
    }),
    requirement({ id: 'LIST-004', section: '4.1', title: 'Out-of-range and malformed limits are rejected or bounded' }),
    requirement({ id: 'CREATE-001', section: '4.2', title: 'createPet answers 201 with the created Pet', status: 'not-exercised', reason: 'deselected by --only' }),
    requirement({ id: 'CREATE-003', section: '4.2', title: 'A malformed body is rejected with 400', status: 'fail', evidence: [violation('no response to a malformed JSON body within 10 s', timedOut)] }),
    requirement({ id: 'GET-005', section: '4.3', title: 'getPet signals its deprecation', level: 'should', status: 'fail', evidence: [violation('no Deprecation header on GET /pets/{id}', getPet)] }),
    requirement({ id: 'ORDERS-001', section: '4.4', title: 'The orders listing exists', status: 'not-exercised', reason: 'deselected by --only' }),
    requirement({ id: 'AUTH-001', section: '5', title: 'A request without a key is rejected with 401' }),
    requirement({ id: 'RATE-006', section: '8', title: 'Retry-After accompanies 429', level: 'should' }),
    requirement({ id: 'RATE-007', section: '8', title: 'The daily quota is enforced', status: 'not-exercised', reason: 'not exercised by choice: exhausting the daily quota takes the key out of service for a day; opt in with --exhaust-daily-quota on a key made for the test' }),
  ];
  const sentences: SpecSentence[] = [
    { ...SENTENCES.json, requirements: ['MEDIA-001', 'CREATE-003'] },
    { ...SENTENCES.idRow, requirements: ['PET-001'] },
    { ...SENTENCES.limitRow, requirements: ['LIST-002', 'LIST-003', 'LIST-004'] },
    { ...SENTENCES.deprecation, requirements: ['GET-005'] },
    SENTENCES.ban,
    { ...SENTENCES.freeRow, requirements: ['RATE-007'] },
    SENTENCES.stability,
  ];
  return finish({
    ...base(requirements),
    specCoverage: specCoverageOf(sentences, requirements),
    observations: [
      { requirement: 'PET-001', message: 'Pets carry an extra field "tags"', exchange: 12 },
      { requirement: 'MEDIA-001', message: 'content-type has parameter charset=utf-8' },
      { requirement: 'AUTH-001', message: 'the 401 carries WWW-Authenticate: Bearer' },
    ],
    createdPetIds: ['7', '9007199254740993'],
    runErrors: ['LIST-002 default page size: request budget exhausted after 600 requests'],
  });
}

/** Every control character, including the ones XML 1.0 forbids. */
export const CONTROL_CHARS = Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)).join('');
export const SCRIPT_BREAKOUT = '</script><img src=x onerror="alert(1)">';
export const HOSTILE = `${SCRIPT_BREAKOUT} ]]> <![CDATA[x]]> a|b \`code\` \`\`\` [click](javascript:alert(1)) & &amp; 'q' "dq" ${CONTROL_CHARS} 🐶🐈 \uD800 end`;
export const BIG_BODY_CHARS = 100_000;

export function hostileReport(): Report {
  const big = `${HOSTILE}${'x'.repeat(BIG_BODY_CHARS)}`;
  const ex = exchange({
    seq: 3,
    purpose: HOSTILE,
    request: { method: 'GET', url: `${BASE}/pets?name=${encodeURIComponent(SCRIPT_BREAKOUT)}`, headers: { 'x-evil': HOSTILE }, body: HOSTILE },
    response: { status: 500, headers: { 'content-type': 'text/html', 'x-evil': HOSTILE }, body: big, truncated: true },
    curl: `curl -sS -i '${BASE}/pets' # ${HOSTILE}`,
  });
  return finish({
    ...base([
      requirement({
        id: 'ERR-001',
        section: '7',
        title: `Errors have the Error shape ${HOSTILE}`,
        status: 'fail',
        statement: HOSTILE,
        interpretation: HOSTILE,
        tests: [HOSTILE],
        evidence: [
          { kind: 'violation', message: HOSTILE, exchange: ex },
          { kind: 'observation', message: HOSTILE },
          { kind: 'note', message: big },
        ],
        property: { counterexample: HOSTILE, seed: -5, path: '0:0', numRuns: 1 },
        sequence: {
          label: HOSTILE,
          seed: -5,
          path: HOSTILE,
          sequencesRun: 1,
          steps: [{ n: 1, operation: HOSTILE, sent: HOSTILE, received: big, expected: HOSTILE, violations: [HOSTILE], exchanges: [3], curl: [`curl -i '${BASE}/pets' # ${HOSTILE}`] }],
          commands: [{ op: 'listPets', status: HOSTILE }],
        },
      }),
      requirement({ id: 'ERR-002', section: '7', title: 'Error status matches', status: 'inconclusive', reason: HOSTILE }),
      requirement({ id: 'RATE-006', section: '8', title: 'Retry-After accompanies 429', level: 'should', status: 'fail', evidence: [{ kind: 'violation', message: HOSTILE }] }),
      requirement({ id: 'AUTH-004', section: '5', title: 'Not exercised', status: 'not-exercised', reason: HOSTILE }),
    ]),
    tool: { name: `petstore-conformance ${SCRIPT_BREAKOUT}`, version: '0.1.0' },
    target: { baseUrl: `https://evil.example/v1?q="><script>alert(1)</script>|\``, embedded: false },
    observations: [{ requirement: 'ERR-001', message: HOSTILE }],
    timeline: {
      clock: 'local',
      start: TIMELINE_START,
      offsetMs: 0,
      responses: [
        { seq: 3, t: 0, ms: 5, op: HOSTILE, status: 429, auth: 'key', limit: 60, remaining: 0, reset: TIMELINE_START / 1000 + 1, retryAfter: HOSTILE },
        { seq: 4, t: 10, ms: 5, op: HOSTILE, error: HOSTILE, auth: 'none' },
      ],
      waits: [{ t: 5, ms: 100, reason: HOSTILE }],
    },
    notTested: [{ section: '9', statement: HOSTILE, reason: HOSTILE }],
    specCoverage: [
      { id: 'S7-01', section: '7', text: HOSTILE, requirements: [{ id: 'ERR-001', status: 'fail' }], note: HOSTILE },
      { id: 'S9-05', section: '9', text: HOSTILE, untestable: { kind: 'informative', explanation: HOSTILE } },
    ],
    runErrors: [HOSTILE],
  });
}

const KEYED = `-H 'Accept: application/json' -H "Authorization: Bearer $PETSTORE_API_KEY"`;
const CREATED = '{"id":67,"name":"pc-m3x9k2a7-37-model-sequence","categoryId":27,"status":"sold"}';

/** The shrunk failing sequence of a status index that creations do not update (fixtures/variants/sequences.ts). */
export function failingSequence(): SequenceFailure {
  const curl = (target: string, data?: string): string => `curl -i '${BASE}${target}' ${KEYED}${data === undefined ? '' : ` -H 'Content-Type: application/json' --data-raw '${data}'`}`;
  const violation = 'Received 15 pets for status=sold (fewer than the limit of 100) without pet 67 (status "sold"), created by this sequence and already shown by a read / Expected every pet with that status on a page with room left';
  const pet67 = `pet 67 (created in step 2): ${CREATED}`;
  return {
    label: 'fixed sequence read-after-write (shrunk)',
    seed: 710_306_284,
    path: '',
    sequencesRun: 1,
    steps: [
      { n: 1, operation: 'listPets', sent: 'GET /pets?status=sold&limit=100', received: '200: 14 pets', expected: '200 and only pets with status "sold"', exchanges: [48], curl: [curl('/pets?status=sold&limit=100')], model: [] },
      {
        n: 2,
        operation: 'createPet',
        sent: 'POST /pets {"name":"pc-m3x9k2a7-37-model-sequence","categoryId":27,"status":"sold"}',
        received: `201 ${CREATED}`,
        expected: '201 and the created Pet, with an id no pet had before: none of the 65 ids earlier responses showed',
        exchanges: [49],
        curl: [curl('/pets', '{"name":"pc-m3x9k2a7-37-model-sequence","categoryId":27,"status":"sold"}')],
        model: [`${pet67}; no read has shown it yet`],
      },
      { n: 3, operation: 'getPet', sent: 'GET /pets/67', received: `200 ${CREATED}`, expected: `200 and pet 67 (created in step 2) as its creation returned it: ${CREATED}`, exchanges: [50], curl: [curl('/pets/67')], model: [`${pet67}; shown by exchange #50, so it must stay`] },
      {
        n: 4,
        operation: 'listPets',
        sent: 'GET /pets?status=sold&limit=100',
        received: '200: 15 pets, among them not pet 67',
        expected: '200 and only pets with status "sold"; with room left (fewer than 100 pets), pet 67 (created in step 2), already shown by a read',
        violations: [violation],
        exchanges: [51],
        curl: [curl('/pets?status=sold&limit=100')],
        model: [`${pet67}; shown by exchange #50, so it must stay`],
      },
    ],
    commands: [
      { op: 'listPets', status: 'sold' },
      { op: 'createPet', name: '<marker>model-sequence', categoryId: '27', status: 'sold' },
      { op: 'getPet', pet: 0 },
      { op: 'listPets', status: 'sold' },
    ],
  };
}

/** A run whose only failure is a model-based sequence's: LIST-005, with the steps that show it. */
export function sequenceReport(): Report {
  const sequence = failingSequence();
  const last = exchange({ seq: 51, purpose: 'fixed sequence read-after-write, step 4', request: { method: 'GET', url: `${BASE}/pets?status=sold&limit=100`, headers: { authorization: 'Bearer [redacted]' } }, curl: sequence.steps[3]?.curl[0] ?? '' });
  const requirements = [
    requirement({ id: 'LIST-005', section: '4.1', title: 'The status filter returns only pets with that status', status: 'fail', evidence: [{ kind: 'violation', message: `${sequence.label}, step 4 of 4: ${sequence.steps[3]?.violations?.[0] ?? ''}`, exchange: last }], sequence }),
    requirement({ id: 'CREATE-002', section: '4.2', title: 'A created pet can be fetched by its id' }),
  ];
  const sentences: SpecSentence[] = [
    { ...SENTENCES.idRow, requirements: ['CREATE-002'] },
    { id: 'S4.1-04', section: '4.1', text: 'status | PetStatus | no | one of `available`, `pending`, `sold` | Filters by availability.', requirements: ['LIST-005'] },
  ];
  return finish({ ...base(requirements), specCoverage: specCoverageOf(sentences, requirements), createdPetIds: ['67'] });
}

/** The timeline's Unix ms of t = 0 and the two windows' Resets (Unix seconds). */
export const TIMELINE_START = Date.UTC(2025, 5, 2, 12, 0, 0);
const RESET_A = TIMELINE_START / 1000 + 1;
const RESET_B = RESET_A + 1;

const keyed = (seq: number, t: number, op: string, status: number, remaining: number, more: Partial<TimelineResponse> = {}): TimelineResponse => ({
  seq,
  t,
  ms: 30,
  op,
  status,
  auth: 'key',
  limit: 60,
  remaining,
  reset: t < 1000 ? RESET_A : RESET_B,
  ...more,
});

/**
 * A run's timeline with something in each lane: keyed responses falling and then rising (a limit
 * counted per operation), a refused create, a read that lagged, requests without a valid key (one
 * without rate-limit headers), a 429 with its Retry-After wait, a keyed response without any
 * rate-limit header, a request that got no answer.
 */
export function sampleTimeline(): RunTimeline {
  return {
    clock: 'server',
    start: TIMELINE_START,
    offsetMs: -120,
    responses: [
      keyed(1, 0, 'listPets', 200, 59),
      keyed(2, 100, 'createPet', 201, 58),
      keyed(3, 200, 'createPet', 400, 57),
      keyed(4, 300, 'getPet', 404, 56, { lagged: true }),
      keyed(5, 400, 'getPet', 200, 55),
      { seq: 6, t: 450, ms: 20, op: 'listPets', status: 401, auth: 'none', limit: 60, remaining: 59, reset: RESET_A },
      { seq: 7, t: 470, ms: 20, op: 'listPets', status: 401, auth: 'wrong-key' },
      keyed(8, 500, 'createPet', 201, 54),
      keyed(9, 600, 'listOrders', 200, 59),
      keyed(10, 700, 'listPets', 429, 0, { retryAfter: '1' }),
      { seq: 11, t: 1_010, ms: 25, op: 'listPets', status: 200, auth: 'key', retryOf: 10 },
      keyed(12, 1_100, 'getPet', 404, 58),
      { seq: 13, t: 1_200, ms: 10_000, op: 'listPets', error: 'UND_ERR_SOCKET', auth: 'key' },
      { seq: 14, t: 1_300, ms: 20, op: 'listPets', status: 200, auth: 'malformed', limit: 60, remaining: 57, reset: RESET_B },
    ],
    waits: [{ t: 710, ms: 300, reason: 'Retry-After of the last 429' }],
  };
}

/** A run whose timeline the findings of RATE-002 (a rise), RATE-001 (an older report's finding, without cites) and CREATE-002 (a lost write) are drawn on. */
export function timelineReport(): Report {
  const ex = (seq: number, target: string, status: number, method = 'GET'): ExchangeEvidence =>
    exchange({ seq, purpose: `exchange ${seq}`, request: { method, url: `${BASE}${target}`, headers: { authorization: 'Bearer <redacted>' } }, response: { status, headers: {}, body: '', truncated: false }, curl: `curl -sS -i '${BASE}${target}'` });
  const requirements = [
    requirement({ id: 'PET-001', section: '2', title: 'Every Pet has the Pet shape', status: 'fail', evidence: [{ kind: 'violation', message: '/id must be integer', exchange: ex(2, '/pets', 201, 'POST'), cites: [2] }] }),
    requirement({
      id: 'CREATE-002',
      section: '4.2',
      title: 'A created pet can be fetched by its id',
      status: 'fail',
      evidence: [{ kind: 'violation', message: 'GET /pets/8 for a pet just created: received 404 600 ms after its 201, past the read-after-write grace / expected 200 and the Pet', exchange: ex(12, '/pets/8', 404), cites: [12, 8] }],
    }),
    requirement({ id: 'RATE-001', section: '8', title: 'Every response carries the three X-RateLimit headers as integers', status: 'fail', evidence: [{ kind: 'violation', message: 'Received no X-RateLimit-Limit / Expected a non-negative integer', exchange: ex(11, '/pets', 200) }] }),
    requirement({
      id: 'RATE-002',
      section: '8',
      title: 'Remaining never exceeds Limit and falls with each request',
      status: 'fail',
      evidence: [
        { kind: 'violation', message: 'X-RateLimit-Remaining rose from 55 (exchange 5, GET /pets/5) to 59 (exchange 9, GET /store/orders) / Expected Remaining to fall with each request until the window resets', exchange: ex(9, '/store/orders', 200), cites: [9, 5], pairedWith: 5, expected: { kind: 'remaining-at-most', value: 53 } },
        { kind: 'exchange', message: 'compared with exchange #5: GET /pets/5', exchange: ex(5, '/pets/5', 200) },
      ],
    }),
    requirement({ id: 'RATE-006', section: '8', title: 'Retry-After tells when the client can retry' }),
  ];
  const sentences: SpecSentence[] = [
    { ...SENTENCES.idRow, requirements: ['PET-001', 'CREATE-002'] },
    { ...SENTENCES.freeRow, requirements: ['RATE-001', 'RATE-002', 'RATE-006'] },
  ];
  return finish({ ...base(requirements), specCoverage: specCoverageOf(sentences, requirements), requests: 14, requestsByKey: { withKey: 11, withoutKey: 3 }, timeline: sampleTimeline() });
}

export const SAMPLE_REPORTS = { passing: passingReport, mixed: mixedReport, hostile: hostileReport, sequence: sequenceReport, timeline: timelineReport } as const;
