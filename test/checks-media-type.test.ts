import { describe, expect, it } from 'vitest';
import { checkMediaType } from '../src/checks/media-type.js';
import { errorBody, makeExchange, pet } from './support/exchange-factory.js';
import { observations, violations } from './support/findings.js';

describe('MEDIA-001', () => {
  it('passes a JSON body labelled application/json', () => {
    expect(checkMediaType(makeExchange({ json: [pet(1)] }))).toEqual([]);
  });

  it.each(['application/json; charset=utf-8', 'Application/JSON', 'application/json;charset="UTF-8"', ' application/json '])(
    'accepts %j without a violation',
    (ct) => {
      expect(violations(checkMediaType(makeExchange({ json: [], headers: { 'content-type': ct } })))).toEqual([]);
    },
  );

  it('records a charset other than utf-8 as an observation, not a violation', () => {
    const f = checkMediaType(makeExchange({ json: [], headers: { 'content-type': 'application/json; charset=iso-8859-1' } }));
    expect(violations(f)).toEqual([]);
    expect(observations(f, 'MEDIA-001')).toHaveLength(1);
  });

  it('fails a JSON body labelled otherwise, on any status', () => {
    const f = checkMediaType(makeExchange({ status: 401, json: errorBody(401), headers: { 'content-type': 'text/plain' } }));
    expect(violations(f, 'MEDIA-001')).toHaveLength(1);
    expect(f[0]?.message).toContain('text/plain');
    expect(f[0]?.exchange).toBeTypeOf('number');
  });

  it('fails a JSON body without Content-Type', () => {
    expect(violations(checkMediaType(makeExchange({ json: [], headers: { 'content-type': undefined } })), 'MEDIA-001')).toHaveLength(1);
  });

  it('fails application/problem+json, which is not application/json', () => {
    expect(violations(checkMediaType(makeExchange({ status: 404, target: '/pets/1', json: errorBody(404), headers: { 'content-type': 'application/problem+json' } })))).toHaveLength(1);
  });

  it('fails a non-JSON 200 listing and a non-JSON 201 creation', () => {
    expect(violations(checkMediaType(makeExchange({ body: '<html></html>', headers: { 'content-type': 'text/html' } })))).toHaveLength(1);
    expect(violations(checkMediaType(makeExchange({ method: 'POST', status: 201, body: 'created' })))).toHaveLength(1);
  });

  it('needs nothing from an empty body', () => {
    expect(checkMediaType(makeExchange({ status: 429, body: '', headers: { 'content-type': undefined } }))).toEqual([]);
    expect(checkMediaType(makeExchange({ status: 200, body: '', headers: { 'content-type': undefined } }))).toEqual([]);
  });

  it('leaves a non-JSON error body to ERR-001', () => {
    expect(checkMediaType(makeExchange({ status: 500, body: 'Internal Server Error', headers: { 'content-type': 'text/plain' } }))).toEqual([]);
  });

  it('does not judge the orders body, whose format is not shown', () => {
    expect(checkMediaType(makeExchange({ target: '/store/orders', body: 'id,total\n1,2', headers: { 'content-type': 'text/csv' } }))).toEqual([]);
  });

  it('does not call a truncated body non-JSON, but still judges the label of a Pet-bearing success', () => {
    expect(checkMediaType(makeExchange({ body: '[{"id":1', truncated: true }))).toEqual([]);
    expect(violations(checkMediaType(makeExchange({ body: '[{"id":1', truncated: true, headers: { 'content-type': 'text/plain' } })))).toHaveLength(1);
  });

  it('yields nothing without a response', () => {
    expect(checkMediaType(makeExchange({ noResponse: true }))).toEqual([]);
  });
});
