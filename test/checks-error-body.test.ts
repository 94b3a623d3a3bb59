import { describe, expect, it } from 'vitest';
import { checkErrorBody } from '../src/checks/error-body.js';
import { errorBody, makeExchange } from './support/exchange-factory.js';
import { observations, violations } from './support/findings.js';

describe('ERR-001', () => {
  it.each([400, 401, 404])('passes a %i with an Error body and records its code', (status) => {
    const f = checkErrorBody(makeExchange({ status, json: errorBody(status, 'unauthorized') }));
    expect(violations(f)).toEqual([]);
    expect(observations(f, 'ERR-001').map((o) => o.message)).toEqual([`${status} code "unauthorized"`]);
  });

  it('fails an empty code, which is no machine-readable code, and accepts "0"', () => {
    const f = violations(checkErrorBody(makeExchange({ status: 400, json: errorBody(400, '') })), 'ERR-001');
    expect(f.map((v) => v.message)).toEqual(['Received a 400 Error whose code is "" / Expected a non-empty machine-readable code']);
    expect(violations(checkErrorBody(makeExchange({ status: 400, json: errorBody(400, '0') })))).toEqual([]);
  });

  it('fails an empty message, which describes nothing, and accepts any other text', () => {
    const f = violations(checkErrorBody(makeExchange({ status: 404, json: { ...errorBody(404), message: '' } })), 'ERR-001');
    expect(f.map((v) => v.message)).toEqual(['Received a 404 Error whose message is "" / Expected a non-empty human-readable description']);
    expect(violations(checkErrorBody(makeExchange({ status: 404, json: { ...errorBody(404), message: ' ' } })))).toEqual([]);
  });

  it('accepts extra fields on an Error', () => {
    expect(violations(checkErrorBody(makeExchange({ status: 400, json: { ...errorBody(400), details: [] } })))).toEqual([]);
  });

  it.each([400, 401, 404])('fails a %i without a body', (status) => {
    expect(violations(checkErrorBody(makeExchange({ status, body: '' })), 'ERR-001')).toHaveLength(1);
  });

  it('fails a non-JSON 401', () => {
    const f = violations(checkErrorBody(makeExchange({ status: 401, body: 'Unauthorized', headers: { 'content-type': 'text/plain' } })), 'ERR-001');
    expect(f).toHaveLength(1);
    expect(f[0]?.message).toMatch(/^Received a 401 body that is not JSON/);
  });

  it('fails an Error with a missing or mistyped field, in one finding naming them', () => {
    const f = violations(checkErrorBody(makeExchange({ status: 404, target: '/pets/9', json: { code: 7, message: 'x' } })), 'ERR-001');
    expect(f).toHaveLength(1);
    expect(f[0]?.message).toContain('/code');
    expect(f[0]?.message).toContain('status');
  });

  it('passes a 429 without a body', () => {
    expect(checkErrorBody(makeExchange({ status: 429, body: '', headers: { 'content-type': undefined } }))).toEqual([]);
  });

  it('fails a 429 (or any other error) whose body is not an Error', () => {
    expect(violations(checkErrorBody(makeExchange({ status: 429, json: { error: 'slow down' } })), 'ERR-001')).toHaveLength(1);
    expect(violations(checkErrorBody(makeExchange({ status: 405, body: '<html>405</html>' })), 'ERR-001')).toHaveLength(1);
    expect(violations(checkErrorBody(makeExchange({ status: 503, json: errorBody(503) })))).toEqual([]);
  });

  it('ignores successes and missing responses', () => {
    expect(checkErrorBody(makeExchange({ status: 200, json: { status: 'available' } }))).toEqual([]);
    expect(checkErrorBody(makeExchange({ noResponse: true }))).toEqual([]);
  });

  it('does not judge a truncated error body', () => {
    expect(violations(checkErrorBody(makeExchange({ status: 400, body: '{"code":"x","message":"', truncated: true })))).toEqual([]);
  });
});

describe('ERR-002', () => {
  it('fails when Error.status differs from the HTTP status', () => {
    const f = checkErrorBody(makeExchange({ status: 401, json: errorBody(403) }));
    expect(violations(f, 'ERR-002')).toHaveLength(1);
    expect(violations(f, 'ERR-002')[0]?.message).toBe('Received Error.status 403 on a 401 response / Expected 401');
    // The body is still a well-formed Error: ERR-001 is not failed by the wrong value.
    expect(violations(f, 'ERR-001')).toEqual([]);
  });

  it('compares a bigint status exactly', () => {
    expect(violations(checkErrorBody(makeExchange({ status: 400, json: { ...errorBody(400), status: 9007199254740993n } })), 'ERR-002')).toHaveLength(1);
  });

  it('leaves an absent or non-integer status to ERR-001', () => {
    const absent = checkErrorBody(makeExchange({ status: 400, json: { code: 'bad', message: 'bad' } }));
    expect(violations(absent, 'ERR-002')).toEqual([]);
    expect(violations(absent, 'ERR-001')).toHaveLength(1);
    const text = checkErrorBody(makeExchange({ status: 400, json: { code: 'bad', message: 'bad', status: '400' } }));
    expect(violations(text, 'ERR-002')).toEqual([]);
    expect(violations(text, 'ERR-001')).toHaveLength(1);
  });

  it('passes a matching status', () => {
    expect(violations(checkErrorBody(makeExchange({ status: 429, json: errorBody(429) })))).toEqual([]);
  });
});
