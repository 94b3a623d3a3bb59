import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED, redact } from '../src/http/redact.js';

const KEY = 'sk_live_Ab3+xY/9zQ~k!7';

describe('redact', () => {
  it('replaces the raw key, every occurrence', () => {
    expect(redact(`Bearer ${KEY} and ${KEY}`, [KEY])).toBe(`Bearer ${REDACTED} and ${REDACTED}`);
  });

  it('replaces percent-encoded forms, either hex case, and form encoding', () => {
    const upper = encodeURIComponent(KEY);
    const lower = upper.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
    const form = new URLSearchParams({ k: KEY }).toString().slice(2);
    const overEncoded = [...Buffer.from(KEY)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
    for (const form_ of [upper, lower, form, overEncoded]) {
      expect(redact(`/pets?key=${form_}&x=1`, [KEY])).toBe(`/pets?key=${REDACTED}&x=1`);
    }
  });

  it('replaces a JSON-escaped key', () => {
    const key = 'a"b\\c-secret-value';
    const json = JSON.stringify({ token: key });
    expect(redact(json, [key])).toBe(`{"token":"${REDACTED}"}`);
  });

  it('removes the key from base64 credentials at any alignment and in both alphabets', () => {
    for (const user of ['', 'x', 'xy', 'user', 'someone-else']) {
      for (const alphabet of ['base64', 'base64url'] as const) {
        const token = Buffer.from(`${user}:${KEY}`).toString(alphabet);
        const out = redact(`Basic ${token}`, [KEY]);
        expect(out).toContain(REDACTED);
        // What is left cannot decode back to the key.
        const leftover = out.replace('Basic ', '').replace(REDACTED, '');
        expect(Buffer.from(leftover, alphabet).toString('utf8')).not.toContain(KEY);
        expect(out).not.toContain(token);
      }
    }
  });

  it('removes a percent-encoded base64 credential', () => {
    const token = encodeURIComponent(Buffer.from(`x:${KEY}`).toString('base64'));
    expect(redact(`?auth=${token}`, [KEY])).toContain(REDACTED);
  });

  it('leaves text without the key alone', () => {
    const text = 'GET /pets?limit=5 {"name":"Rex"}';
    expect(redact(text, [KEY])).toBe(text);
    expect(createRedactor([])(text)).toBe(text);
    expect(createRedactor([''])(text)).toBe(text);
  });

  it('handles regex metacharacters in the key', () => {
    const key = '.*+?^${}()|[]\\/';
    expect(redact(`a${key}b`, [key])).toBe(`a${REDACTED}b`);
    expect(redact('abc', [key])).toBe('abc');
  });
});
