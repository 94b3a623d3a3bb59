/**
 * The pure parts of replay: rebuilding a request from report evidence (the key only where it
 * stood), judging one re-sent exchange, choosing what to re-send and re-run, and the verdict.
 */
import { STANDING_STILL_SEQUENCE } from '../src/checks/deferred-counting.js';
import { describe, expect, it } from 'vitest';
import { authHeaderFrom, authTemplateOf } from '../src/http/prepare.js';
import { describeNearMiss, nearMissOf } from '../src/http/near-miss.js';
import { exchangeEvidence } from '../src/report/evidence.js';
import { EVIDENCE_BODY_CHARS } from '../src/report/evidence.js';
import type { ExchangeEvidence, RequirementResult } from '../src/report/types.js';
import { rebuildRequest } from '../src/replay/request.js';
import { judgeReplayed } from '../src/replay/judge.js';
import { MAX_PER_REQUIREMENT, planResends, rerunSelection, resendFailures } from '../src/replay/resend.js';
import type { SendRequest } from '../src/http/client.js';
import type { Exchange } from '../src/http/exchange.js';
import { BudgetExhaustedError, TransportError } from '../src/http/errors.js';
import { replayExitCode, replayVerdict } from '../src/replay/verdict.js';
import { isRise, judgeRiseSequence, riseReplays, riseSequence, type RiseReplay } from '../src/replay/rise-sequence.js';
import { RISE_SEQUENCE } from '../src/checks/remaining-rise.js';
import { serverClockOf } from '../src/checks/server-clock.js';
import { makeExchange, NOW_MS, NOW_S, type ExchangeOptions } from './support/exchange-factory.js';
import { requirement } from './support/report-factory.js';

const KEY = 'k3y-Secret-42';
const BASE = 'http://127.0.0.1:9/v1';
const context = { baseUrl: BASE, apiKey: KEY, purpose: 'replay' };

/** Evidence as the run writes it, from an exchange recorded with the key redacted. */
function evidence(opts: ExchangeOptions & { authorization?: string; authTemplate?: ExchangeEvidence['request']['authTemplate']; requestBody?: string }): ExchangeEvidence {
  const ex = makeExchange(opts);
  ex.request.url = `${BASE}${ex.request.target}`;
  if (opts.authorization === undefined) delete ex.request.headers['authorization'];
  else ex.request.headers['authorization'] = opts.authorization;
  if (opts.authTemplate !== undefined) ex.request.authTemplate = opts.authTemplate;
  if (opts.requestBody !== undefined) ex.request.body = opts.requestBody;
  return exchangeEvidence(ex);
}

describe('rebuildRequest', () => {
  it('re-sends a keyed POST with its path, headers and body, the key put back by the client', () => {
    const ev = evidence({ method: 'POST', target: '/pets?x=%20y', auth: 'key', authorization: 'Bearer <redacted>', requestBody: '{"name":' });
    const rebuilt = rebuildRequest(ev, context);
    expect(rebuilt).toMatchObject({ ok: true, request: { method: 'POST', path: '/pets?x=%20y', body: '{"name":', auth: 'key' } });
    expect(rebuilt.ok && rebuilt.request.headers?.['authorization']).toBeFalsy();
  });

  it('rebuilds a malformed header from its template, and sends a wrong key or a keyless malformed header verbatim', () => {
    const basic = `Basic ${Buffer.from(`user:${KEY}`).toString('base64')}`;
    const template = authTemplateOf(basic, KEY);
    const malformed = rebuildRequest(evidence({ auth: 'malformed', authorization: 'Basic <redacted>', ...(template === undefined ? {} : { authTemplate: template }) }), context);
    expect(malformed).toMatchObject({ ok: true, request: { auth: { mode: 'malformed', header: basic } } });
    expect(rebuildRequest(evidence({ auth: 'wrong-key', authorization: 'Bearer abcDEF123' }), context)).toMatchObject({ ok: true, request: { auth: { mode: 'wrong-key', header: 'Bearer abcDEF123' } } });
    expect(rebuildRequest(evidence({ auth: 'malformed', authorization: 'Bearer ' }), context)).toMatchObject({ ok: true, request: { auth: { mode: 'malformed', header: 'Bearer ' } } });
    expect(rebuildRequest(evidence({ auth: 'none' }), context)).toMatchObject({ ok: true, request: { auth: 'none' } });
  });

  it('rebuilds a near miss of the key by its kind, from the key, never from the report', () => {
    const template = { encoding: 'near-miss', prefix: 'Bearer ', miss: 'case-flipped' } as const;
    const ev = evidence({ auth: 'near-miss', authorization: `Bearer ${describeNearMiss('case-flipped')}`, authTemplate: template });
    expect(JSON.stringify(ev)).not.toContain(nearMissOf(KEY, 'case-flipped'));
    expect(rebuildRequest(ev, context)).toMatchObject({ ok: true, request: { auth: { mode: 'near-miss', miss: 'case-flipped' } } });
    expect(authHeaderFrom(template, KEY)).toBe('Bearer K3Y-sECRET-42');
    expect(rebuildRequest(evidence({ auth: 'near-miss', authorization: 'Bearer <the key with its last character removed>' }), context)).toMatchObject({ ok: false, reason: /which near miss/ });
  });

  it('refuses what it cannot rebuild exactly: an excerpted body, the key outside the Authorization header, an unknown credential', () => {
    const long = evidence({ method: 'POST', auth: 'key', authorization: 'Bearer <redacted>', requestBody: 'x'.repeat(EVIDENCE_BODY_CHARS + 1) });
    expect(long.request.bodyTruncated).toBe(true);
    expect(rebuildRequest(long, context)).toEqual({ ok: false, reason: `exchange #${long.seq} cannot be re-sent: the report keeps only an excerpt of its body` });
    expect(rebuildRequest(evidence({ method: 'POST', auth: 'key', authorization: 'Bearer <redacted>', requestBody: '{"k":"<redacted>"}' }), context)).toMatchObject({ ok: false, reason: /body held the API key/ });
    expect(rebuildRequest(evidence({ auth: 'malformed', authorization: 'Token <redacted>' }), context)).toMatchObject({ ok: false, reason: /Authorization header held the key/ });
  });

  it('never re-sends a body holding an input that can leave a store broken, whether kept as bytes or as escapes', () => {
    const bytes = evidence({ method: 'POST', auth: 'key', authorization: 'Bearer <redacted>', requestBody: '{"name":"a\\xFF"}' });
    bytes.request.bodyBase64 = Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0x61, 0xff, 0x22, 0x7d]).toString('base64');
    expect(rebuildRequest(bytes, context)).toMatchObject({ ok: false, reason: /can leave a store broken for every client \(invalid-utf-8\).*--risk-breaking-store/ });
    for (const [body, kind] of [['{"name":"\\u0000"}', 'nul'], ['{"name":"\\ud800"}', 'lone-surrogates']]) {
      expect(rebuildRequest(evidence({ method: 'POST', auth: 'key', authorization: 'Bearer <redacted>', requestBody: body }), context)).toMatchObject({ ok: false, reason: new RegExp(`\\(${kind}\\)`) });
    }
  });

  it('reads reports written before target and auth were recorded, where they can be derived', () => {
    const old = evidence({ target: '/pets?limit=5', authorization: 'Bearer <redacted>' });
    delete old.request.target;
    delete old.request.auth;
    expect(rebuildRequest(old, context)).toMatchObject({ ok: true, request: { path: '/pets?limit=5', auth: 'key' } });
    const other = { ...old, request: { ...old.request, headers: { authorization: 'Bearer something-else' } } };
    expect(rebuildRequest(other, context)).toMatchObject({ ok: false, reason: /which credential/ });
  });
});

describe('authHeaderFrom', () => {
  it('inverts authTemplateOf for raw and both base64 alphabets, padded or not', () => {
    const b64 = (text: string, alphabet: 'base64' | 'base64url'): string => Buffer.from(text).toString(alphabet);
    for (const header of [KEY, `Bearer  ${KEY}x`, `Basic ${b64(`u:${KEY}`, 'base64')}`, `Basic ${b64(`ab:${KEY}`, 'base64url')}`, `Basic ${b64(`a:${KEY}`, 'base64').replace(/=+$/, '')}`]) {
      const template = authTemplateOf(header, KEY);
      expect(template, header).toBeDefined();
      if (template !== undefined) expect(authHeaderFrom(template, KEY)).toBe(header);
    }
  });
});

describe('judgeReplayed', () => {
  const original = (opts: ExchangeOptions): ExchangeEvidence => exchangeEvidence(makeExchange(opts));

  it('judges status requirements by the status alone', () => {
    const was = original({ method: 'POST', status: 500 });
    expect(judgeReplayed('CREATE-003', was, makeExchange({ method: 'POST', status: 400 }))?.outcome).toBe('conforms');
    expect(judgeReplayed('CREATE-003', was, makeExchange({ method: 'POST', status: 500 }))).toMatchObject({ outcome: 'violates', message: /received 500 \/ expected 400/ });
    expect(judgeReplayed('AUTH-001', was, makeExchange({ status: 200, auth: 'none' }))?.outcome).toBe('violates');
    expect(judgeReplayed('GET-003', was, makeExchange({ target: '/pets/abc', status: 404 }))?.outcome).toBe('conforms');
  });

  it('says unknown when the re-sent request was throttled, got no response, or found the unknown id taken', () => {
    const was = original({ target: '/pets/99', status: 200 });
    expect(judgeReplayed('GET-002', was, makeExchange({ target: '/pets/99', status: 429 }))?.outcome).toBe('unknown');
    expect(judgeReplayed('GET-002', was, makeExchange({ target: '/pets/99', noResponse: true }))?.outcome).toBe('unknown');
    expect(judgeReplayed('GET-002', was, makeExchange({ target: '/pets/99', status: 200, json: { id: 99, name: 'a', categoryId: 1 } }))).toMatchObject({ outcome: 'unknown', message: /pet 99 exists now/ });
    expect(judgeReplayed('GET-002', was, makeExchange({ target: '/pets/99', status: 200, json: { id: 1, name: 'a', categoryId: 1 } }))?.outcome).toBe('violates');
  });

  it('counts no response again as the same failure when the run saw no response either', () => {
    const was = original({ method: 'POST', noResponse: true });
    const again = makeExchange({ method: 'POST', noResponse: true });
    expect(again.error?.code).toBe(was.error?.code);
    expect(judgeReplayed('CREATE-003', was, again)).toMatchObject({ outcome: 'violates', message: /no response again/ });
  });

  it('uses the run\'s checks for cross-cutting requirements, and needs the same status to say conforms', () => {
    const was = original({ method: 'POST', status: 400, headers: { 'x-ratelimit-limit': undefined } });
    expect(judgeReplayed('RATE-001', was, makeExchange({ method: 'POST', status: 400, headers: { 'x-ratelimit-limit': undefined } }))).toMatchObject({ outcome: 'violates', message: /X-RateLimit-Limit/ });
    expect(judgeReplayed('RATE-001', was, makeExchange({ method: 'POST', status: 400, json: { code: 'bad', message: 'm', status: 400 } }))?.outcome).toBe('conforms');
    expect(judgeReplayed('RATE-001', was, makeExchange({ method: 'POST', status: 201, json: { id: 1, name: 'a', categoryId: 1 } }))).toMatchObject({ outcome: 'unknown', message: /answered 201 where the run saw 400/ });
  });

  it('bounds listings for LIST-004, and has no judge for requirements one exchange cannot decide', () => {
    const was = original({ target: '/pets?limit=1000', status: 200 });
    const page = Array.from({ length: 101 }, (_, i) => ({ id: i + 1, name: 'p', categoryId: 1 }));
    expect(judgeReplayed('LIST-004', was, makeExchange({ target: '/pets?limit=1000', json: page }))?.outcome).toBe('violates');
    expect(judgeReplayed('LIST-004', was, makeExchange({ target: '/pets?limit=1000', status: 400, json: { code: 'c', message: 'm', status: 400 } }))?.outcome).toBe('conforms');
    expect(judgeReplayed('LIST-002', was, makeExchange({}))).toBeUndefined();
  });
});

describe('planResends and rerunSelection', () => {
  const violationOn = (ev: ExchangeEvidence): RequirementResult['evidence'][number] => ({ kind: 'violation', message: 'm', exchange: ev });

  it('sends each distinct failing request once, in the run\'s order, capped per requirement, twice in a row for RATE-002', () => {
    const shared = exchangeEvidence(makeExchange({ seq: 40, method: 'POST', purpose: 'CREATE-003' }));
    const listings = Array.from({ length: MAX_PER_REQUIREMENT + 2 }, (_, i) => exchangeEvidence(makeExchange({ seq: 10 + i, target: `/pets?limit=${i}`, purpose: 'LIST-004' })));
    const failing = [
      requirement({ id: 'RATE-001', section: '8', status: 'fail', evidence: [violationOn(shared)] }),
      requirement({ id: 'ERR-001', section: '7', status: 'fail', evidence: [violationOn(shared), violationOn(shared)] }),
      requirement({ id: 'RATE-002', section: '8', status: 'fail', evidence: [violationOn(listings[0] as ExchangeEvidence)] }),
      requirement({ id: 'LIST-004', section: '4.1', status: 'fail', evidence: listings.map(violationOn) }),
      requirement({ id: 'LIST-002', section: '4.1', status: 'fail', evidence: [violationOn(listings[1] as ExchangeEvidence)] }),
    ];
    const { sends, leftOut } = planResends(failing);
    expect(sends.map((s) => [s.original.seq, s.requirements, s.times])).toEqual([
      [10, ['RATE-002', 'LIST-004'], 2],
      [11, ['LIST-004'], 1],
      [12, ['LIST-004'], 1],
      [13, ['LIST-004'], 1],
      [14, ['LIST-004'], 1],
      [40, ['RATE-001', 'ERR-001'], 1],
    ]);
    expect([...leftOut]).toEqual([['LIST-004', 2]]);
    expect(rerunSelection(failing, new Set(['RATE-001', 'ERR-001', 'RATE-002', 'LIST-004', 'LIST-002', 'CREATE-003']))).toEqual(['RATE-001', 'ERR-001', 'RATE-002', 'LIST-004', 'LIST-002', 'CREATE-003']);
  });

  it('leaves out a failing exchange the target answered 429 while the requirement failed on others, and keeps it when it is all there is', () => {
    const throttled = exchangeEvidence(makeExchange({ seq: 61, target: '/pets/-1', status: 429, purpose: 'GET-003' }));
    const served = exchangeEvidence(makeExchange({ seq: 70, target: '/pets/1', purpose: 'GET-001' }));
    const refusedOnly = exchangeEvidence(makeExchange({ seq: 90, target: '/pets?limit=1', status: 429, purpose: 'RATE-005' }));
    const { sends } = planResends([
      requirement({ id: 'MEDIA-001', section: '1', status: 'fail', evidence: [violationOn(throttled), violationOn(served)] }),
      requirement({ id: 'ERR-002', section: '7', status: 'fail', evidence: [violationOn(refusedOnly)] }),
    ]);
    expect(sends.map((s) => [s.original.seq, s.requirements])).toEqual([
      [70, ['MEDIA-001']],
      [90, ['ERR-002']],
    ]);
  });
});

describe('resendFailures', () => {
  const violationOn = (ev: ExchangeEvidence): RequirementResult['evidence'][number] => ({ kind: 'violation', message: 'm', exchange: ev });
  const post = exchangeEvidence(makeExchange({ seq: 3, method: 'POST', status: 500, purpose: 'CREATE-003' }));
  const get = exchangeEvidence(makeExchange({ seq: 5, target: '/pets/abc', status: 500, purpose: 'GET-003' }));
  const failing = [
    requirement({ id: 'CREATE-003', section: '4.2', status: 'fail', evidence: [violationOn(post)] }),
    requirement({ id: 'GET-003', section: '4.3', status: 'fail', evidence: [violationOn(get)] }),
  ];

  /** A client that answers each send with the next scripted outcome, and remembers what it was asked. */
  function fakeClient(answers: Array<(req: SendRequest, seq: number) => Exchange>): { send(req: SendRequest): Promise<Exchange>; sent: SendRequest[] } {
    const sent: SendRequest[] = [];
    return {
      sent,
      send: async (req) => {
        sent.push(req);
        const answer = answers[sent.length - 1];
        if (answer === undefined) throw new Error('unexpected send');
        return answer(req, 100 + sent.length);
      },
    };
  }
  const answer = (status: number) => (req: SendRequest, seq: number): Exchange => makeExchange({ seq, method: req.method, target: req.path, status });
  const ctx = { reportBaseUrl: BASE, apiKey: KEY, readOnly: false };

  it('re-sends in the run\'s order and judges each answer', async () => {
    const client = fakeClient([answer(400), answer(500)]);
    const result = await resendFailures(failing, { ...ctx, client });
    expect(client.sent.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /pets', 'GET /pets/abc']);
    expect(result.judgements.get('CREATE-003')?.map((j) => j.outcome)).toEqual(['conforms']);
    expect(result.judgements.get('GET-003')?.map((j) => j.outcome)).toEqual(['violates']);
    expect(result.exchanges.map((e) => e.seq)).toEqual([101, 102]);
  });

  it('sends no POST with --read-only, and judges a transport failure from its recorded exchange', async () => {
    const client = fakeClient([
      (req, seq) => {
        throw new TransportError('timeout', makeExchange({ seq, target: req.path, noResponse: true }), 'timed out');
      },
    ]);
    const result = await resendFailures(failing, { ...ctx, readOnly: true, client });
    expect(client.sent.map((r) => r.method)).toEqual(['GET']);
    expect(result.judgements.get('CREATE-003')).toEqual([{ outcome: 'unknown', message: 'exchange #3 (POST) was not re-sent: writes are disabled (--read-only)' }]);
    expect(result.judgements.get('GET-003')?.[0]).toMatchObject({ outcome: 'unknown', message: /no response \(ETIMEDOUT\)/ });
  });

  it('stops at an exhausted budget and says what was left unsent', async () => {
    const client = fakeClient([
      () => {
        throw new BudgetExhaustedError(0);
      },
    ]);
    const result = await resendFailures(failing, { ...ctx, client });
    expect(client.sent).toHaveLength(1);
    expect(result.judgements.get('CREATE-003')?.[0]).toMatchObject({ outcome: 'unknown', message: /#3 was not re-sent: request budget exhausted/ });
    expect(result.judgements.get('GET-003')?.[0]).toMatchObject({ outcome: 'unknown', message: /#5 was not re-sent: request budget exhausted/ });
  });

  it('sends a RATE-002 exchange twice and judges the second against the first by the run\'s rise rule (remaining-rise.ts)', async () => {
    const listing = exchangeEvidence(makeExchange({ seq: 9, purpose: 'LIST-001' }));
    const rate = [requirement({ id: 'RATE-002', section: '8', status: 'fail', evidence: [violationOn(listing)] })];
    // One after the other, as the replay sends them: the second is sent once the first was answered.
    const answering = (...remaining: string[]) =>
      remaining.map((left) => (req: SendRequest, seq: number): Exchange =>
        makeExchange({ seq, target: req.path, sentAt: NOW_MS - 3_000 + 1_000 * seq, elapsedMs: 50, headers: { 'x-ratelimit-remaining': left, 'x-ratelimit-reset': String(NOW_S + 60) } }),
      );
    const rose = await resendFailures(rate, { ...ctx, client: fakeClient(answering('50', '59')) });
    expect(rose.exchanges).toHaveLength(2);
    expect(rose.judgements.get('RATE-002')).toEqual([expect.objectContaining({ outcome: 'violates', message: expect.stringMatching(/X-RateLimit-Remaining rose from 50 .* to 59/) })]);
    // A Remaining that stays is no rise of the run's rule on a pair (the run shows one frozen over more of its requests):
    // the pair rule replay used before ("Remaining did not fall") failed it where the run would not.
    const stayed = await resendFailures(rate, { ...ctx, client: fakeClient(answering('58', '58')) });
    expect(stayed.judgements.get('RATE-002')).toEqual([expect.objectContaining({ outcome: 'conforms' })]);
  });
});

describe('replayVerdict', () => {
  const before = requirement({ id: 'RATE-001', section: '8', status: 'fail' });
  const rerun = (status: string, reason?: string): RequirementResult =>
    requirement({ id: 'RATE-001', section: '8', status: status as RequirementResult['status'], ...(reason === undefined ? {} : { reason }) });
  const conforms = { outcome: 'conforms' as const, message: 'ok' };
  const violates = { outcome: 'violates' as const, message: 'POST /pets: no headers' };
  const unknown = { outcome: 'unknown' as const, message: 'POST /pets: throttled' };

  it('says fixed only when the re-sent exchanges conform and the re-run passes', () => {
    expect(replayVerdict(before, [conforms], rerun('pass')).verdict).toBe('fixed');
    expect(replayVerdict(before, undefined, rerun('pass')).verdict).toBe('fixed');
    expect(replayVerdict(before, [conforms, unknown], rerun('pass'))).toMatchObject({ verdict: 'could not tell', details: ['POST /pets: throttled'] });
    expect(replayVerdict(before, [conforms], rerun('inconclusive', 'budget'))).toMatchObject({ verdict: 'could not tell', details: ['re-run: inconclusive (budget)'] });
  });

  it('says plainly that only a sequence showed a failure whose exchanges it did not re-send alone, and that the re-run decided', () => {
    const collision = requirement({
      id: 'PET-002',
      section: '3',
      status: 'fail',
      evidence: [{ kind: 'violation', message: 'Received for a new pet an id that another creation …', shownOnlyBy: 'two creations given one id' }],
    });
    const pet = (status: string): RequirementResult => requirement({ id: 'PET-002', section: '3', status: status as RequirementResult['status'] });
    expect(replayVerdict(collision, undefined, pet('pass'))).toMatchObject({
      verdict: 'fixed',
      details: [expect.any(String), 'only two creations given one id showed the failure, never one response: none of its exchanges was re-sent alone; the re-run, which sends the tests that made that sequence, showed none'],
    });
    expect(replayVerdict(collision, undefined, pet('fail')).verdict).toBe('still failing');
  });

  it('never says fixed of a Remaining that stood still until a window was used up on a re-run that passed without using one up', () => {
    const stood = requirement({
      id: 'RATE-002',
      section: '8',
      status: 'fail',
      evidence: [{ kind: 'violation', message: 'X-RateLimit-Remaining did not fall with 9 of the run\'s requests …', shownOnlyBy: STANDING_STILL_SEQUENCE }],
    });
    const rate = (status: string): RequirementResult => requirement({ id: 'RATE-002', section: '8', status: status as RequirementResult['status'] });
    expect(replayVerdict(stood, undefined, rate('pass'))).toMatchObject({ verdict: 'could not tell', details: ['re-run: pass', expect.stringContaining('used up no window (no 429)')] });
    // A re-run that met a 429 could have shown it: its pass is a fix.
    expect(replayVerdict(stood, undefined, rate('pass'), 0, true).verdict).toBe('fixed');
    expect(replayVerdict(stood, [conforms], rate('pass')).verdict).toBe('could not tell');
    expect(replayVerdict(stood, undefined, rate('fail')).verdict).toBe('still failing');
  });

  it('says still failing when either the re-sent exchanges or the re-run show the violation', () => {
    expect(replayVerdict(before, [violates], rerun('pass'))).toMatchObject({ verdict: 'still failing', details: ['POST /pets: no headers'] });
    expect(replayVerdict(before, [conforms], rerun('fail')).verdict).toBe('still failing');
  });

  it('exits 1 while a must still fails, 2 when a must could not be told, else 0', () => {
    const r = (verdict: 'fixed' | 'still failing' | 'could not tell', level: 'must' | 'should' = 'must') => ({ id: 'X-001', level, verdict, details: [] });
    expect(replayExitCode([r('fixed'), r('still failing', 'should')])).toBe(0);
    expect(replayExitCode([r('fixed'), r('could not tell')])).toBe(2);
    expect(replayExitCode([r('could not tell'), r('still failing')])).toBe(1);
  });
});

describe('a rise of Remaining replayed as a sequence (rise-sequence.ts)', () => {
  const WINDOW_END = 4_102_444_860;
  const earlier = exchangeEvidence(makeExchange({ seq: 15, target: '/pets/26', purpose: 'CREATE-002' }));
  const later = exchangeEvidence(makeExchange({ seq: 25, method: 'POST', status: 400, purpose: 'CREATE-003' }));
  const riseEvidence = (marked: boolean): RequirementResult['evidence'] => [
    { kind: 'violation', message: 'X-RateLimit-Remaining rose from 45 (exchange 15, GET /pets/26) to 48 (exchange 25, POST /pets) …', exchange: later, ...(marked ? { shownOnlyBy: RISE_SEQUENCE, pairedWith: 15 } : {}) },
    { kind: 'exchange', message: 'compared with exchange #15: GET /pets/26', exchange: earlier },
  ];
  const failingRise = (marked = true): RequirementResult[] => [requirement({ id: 'RATE-002', section: '8', status: 'fail', evidence: riseEvidence(marked) })];

  it('plans the earlier request six times, the later six times, the earlier once more; never the two exchanges re-sent alone', () => {
    for (const marked of [true, false]) {
      const { replays, unpaired } = riseReplays(failingRise(marked));
      expect(unpaired).toBe(0);
      expect(replays.map((r) => riseSequence(r).map((e) => e.seq))).toEqual([[15, 15, 15, 15, 15, 15, 25, 25, 25, 25, 25, 25, 15]]);
      expect(planResends(failingRise(marked)).sends).toEqual([]);
    }
    // A violation only a sequence shows is not re-sent alone either; its senders are re-run (the compared exchange's too).
    const early429 = exchangeEvidence(makeExchange({ seq: 80, status: 429, purpose: 'RATE-005' }));
    const sequenceOnly = [requirement({ id: 'RATE-002', section: '8', status: 'fail', evidence: [{ kind: 'violation', message: 'Received 429 although …', exchange: early429, shownOnlyBy: 'a 429 after …' }] })];
    expect(planResends(sequenceOnly).sends).toEqual([]);
    expect(rerunSelection(failingRise(), new Set(['RATE-002', 'CREATE-002', 'CREATE-003']))).toEqual(['RATE-002', 'CREATE-003', 'CREATE-002']);
  });

  it('takes for a rise only what the rise sequence shows: a Remaining that stood still, paired too, is left to the re-run', () => {
    const stood = { kind: 'violation' as const, message: 'X-RateLimit-Remaining did not fall with 9 of the run\'s requests …', exchange: later, pairedWith: 15, shownOnlyBy: STANDING_STILL_SEQUENCE };
    expect(isRise('RATE-002', stood)).toBe(false);
    const [rise] = riseEvidence(true);
    expect(rise !== undefined && isRise('RATE-002', rise)).toBe(true);
    const failing = [requirement({ id: 'RATE-002', section: '8', status: 'fail', evidence: [stood, { kind: 'exchange', message: 'compared with exchange #15', exchange: earlier }] })];
    expect(riseReplays(failing).replays).toEqual([]);
    expect(planResends(failing).sends).toEqual([]);
  });

  /** The sequence's answers, 10 ms apart, Remaining as the server counts it. */
  const answered = (remaining: readonly number[], reset: (i: number) => number = () => WINDOW_END, startMs = (WINDOW_END - 60) * 1000 + 200): Exchange[] =>
    remaining.map((r, i) =>
      makeExchange({
        seq: 200 + i,
        sentAt: startMs + 10 * i,
        elapsedMs: 5,
        headers: { date: new Date(startMs + 10 * i).toUTCString(), 'x-ratelimit-remaining': String(r), 'x-ratelimit-reset': String(reset(i)) },
      }),
    );
  const judged = (sent: Exchange[]) => judgeRiseSequence(riseReplays(failingRise()).replays[0] as RiseReplay, sent, { clock: serverClockOf(sent), exchanges: sent });

  it('violates where each request has a count of its own (per route), and where the headers claim a count the limiter skips', () => {
    const perRoute = answered([59, 58, 57, 56, 55, 54, 59, 58, 57, 56, 55, 54, 53]);
    expect(judged(perRoute).judgement).toMatchObject({ outcome: 'violates', message: expect.stringMatching(/^re-sent #15 \(GET \/pets\/26\) x6, #25 \(POST \/pets\) x6, #15: X-RateLimit-Remaining rose from/) as unknown });
    const skipsTheEarlier = answered([59, 59, 59, 59, 59, 59, 58, 57, 56, 55, 54, 53, 53]);
    expect(judged(skipsTheEarlier).judgement.outcome).toBe('violates');
  });

  it('conforms only in one fresh window that would have shown a rise; otherwise it cannot decide, and may try once more', () => {
    const honest = Array.from({ length: 13 }, (_, i) => 59 - i);
    expect(judged(answered(honest))).toEqual({ judgement: { outcome: 'conforms', message: expect.stringMatching(/, in one window: X-RateLimit-Remaining fell from 59 to 47, no rise$/) as unknown }, again: false });
    expect(judged(answered(honest.map((r) => r - 20)))).toMatchObject({ judgement: { outcome: 'unknown', message: expect.stringContaining('did not start in a fresh window') as unknown }, again: true });
    // Started 60 ms before the window's end: the second half is counted in the next window.
    expect(judged(answered(honest, (i) => (i < 6 ? WINDOW_END : WINDOW_END + 60), WINDOW_END * 1000 - 60)))
      .toMatchObject({ judgement: { outcome: 'unknown', message: expect.stringContaining('a window ended during the sequence') as unknown }, again: true });
    // Windows of 2 s: too short to tell a rise from a refill, as RATE-002's interpretation says.
    expect(judged(answered(honest, () => WINDOW_END, (WINDOW_END - 2) * 1000 + 200)).judgement.outcome).toBe('unknown');
    const refused = answered(honest).map((ex, i) => (i === 8 ? { ...ex, response: { ...(ex.response as NonNullable<Exchange['response']>), status: 429 } } : ex));
    expect(judged(refused)).toMatchObject({ judgement: { outcome: 'unknown' }, again: true });
  });
});
