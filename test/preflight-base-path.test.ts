import { describe, expect, it } from 'vitest';
import { candidateBasePaths, notThisApi } from '../src/session/preflight.js';

function answer(status: number, bodyText: string, contentType = 'application/json'): Parameters<typeof notThisApi>[0] {
  return { status, headers: { 'content-type': contentType }, bodyText, truncated: false };
}

describe('the base paths a mistyped base URL most likely meant', () => {
  it('takes /pets off, adds a missing /v1, and drops a prefix the server may not serve', () => {
    expect(candidateBasePaths('/v1/pets')).toEqual(['/v1']);
    expect(candidateBasePaths('')).toEqual(['/v1']);
    expect(candidateBasePaths('/api')).toEqual(['/api/v1']);
    expect(candidateBasePaths('/api/v1')).toEqual(['/v1']);
    expect(candidateBasePaths('/api/v1/pets')).toEqual(['/api/v1', '/v1']);
  });

  it('has nothing to offer for a base already at /v1, nor takes /v10 for /v1', () => {
    expect(candidateBasePaths('/v1')).toEqual([]);
    expect(candidateBasePaths('/api/v10')).toEqual(['/api/v10/v1']);
  });
});

describe('a listing that is plainly not this API', () => {
  it('is a 404, a page of HTML or JSON that is not a list', () => {
    expect(notThisApi(answer(404, '{"code":404,"message":"not found"}'))).toBe('404');
    expect(notThisApi(answer(200, '<!doctype html><html></html>', 'text/html; charset=utf-8'))).toBe('200 with HTML');
    expect(notThisApi(answer(200, '{"status":"ok","version":"2.3"}'))).toBe('200 with JSON that is not a list of pets');
  });

  it('leaves to the suites what could be this API, conforming or not', () => {
    expect(notThisApi(answer(200, '[]'))).toBeUndefined();
    expect(notThisApi(answer(200, '[{"id":1,"name":"Rex"}]'))).toBeUndefined();
    expect(notThisApi(answer(500, 'oops', 'text/plain'))).toBeUndefined();
    expect(notThisApi(answer(200, 'not json', 'text/plain'))).toBeUndefined();
    expect(notThisApi(undefined)).toBeUndefined();
  });
});
