/**
 * StoreModel.recordCreated (session.store) with creations answered out of order (sent together): pets kept in send
 * order, two 201s giving one id to different pets PET-002's with both exchanges cited, the same
 * pet answered twice not, and a listing not expected to show pets under a shared id.
 */
import { describe, expect, it } from 'vitest';
import { Session } from '../src/session/session.js';
import type { RunConfig } from '../src/run-config.js';
import type { JsonObject } from '../src/interface/json.js';
import { makeExchange } from './support/exchange-factory.js';

const CONFIG: RunConfig = {
  baseUrl: 'http://127.0.0.1:9/v1',
  apiKey: 'psk_test_key',
  seed: 1,
  runId: 'abc123',
  readOnly: false,
  maxRequests: 10,
  timeoutMs: 1_000,
  maxBodyBytes: 1024,
  maxWaitMs: 1_000,
  selected: [],
};

const pet = (id: number, name: string, status = 'available'): JsonObject => ({ id, name, categoryId: 1, status });
const created = (session: Session, seq: number, body: JsonObject): void => session.store.recordCreated(body, makeExchange({ seq, method: 'POST', status: 201, json: body }));

describe('StoreModel.recordCreated', () => {
  it('keeps pets in send order whatever order their 201s arrived in', () => {
    const session = new Session(CONFIG);
    created(session, 4, pet(33, 'c'));
    created(session, 2, pet(31, 'a'));
    created(session, 3, pet(32, 'b'));
    expect(session.store.createdPets.map((p) => p['name'])).toEqual(['a', 'b', 'c']);
    expect(session.store.createdIds).toEqual(['31', '32', '33']);
    expect(session.ledger.all('PET-002')).toEqual([]);
  });

  it('one id for different pets: PET-002 twice, each finding citing one of the two 201s and naming the other', () => {
    const session = new Session(CONFIG);
    created(session, 2, pet(31, 'a', 'available'));
    created(session, 3, pet(31, 'b', 'pending'));
    const findings = session.ledger.all('PET-002');
    expect(findings.map((f) => [f.kind, f.exchange, f.detail])).toEqual([
      ['violation', 3, 'id 31; the other creation: exchange #2'],
      ['violation', 2, 'id 31; the other creation: exchange #3'],
    ]);
    expect(session.store.isSharedId(31n)).toBe(true);
    // A listing can show only one pet under that id: neither is expected in a status filter.
    expect(session.store.createdBefore(10, 'available')).toEqual([]);
    expect(session.store.createdBefore(10, 'pending')).toEqual([]);
  });

  it('the same pet answered to two creations is not two pets sharing an id', () => {
    const session = new Session(CONFIG);
    created(session, 2, pet(31, 'b'));
    created(session, 3, pet(31, 'b'));
    expect(session.ledger.all('PET-002')).toEqual([]);
    expect(session.store.isSharedId(31n)).toBe(false);
    expect(session.store.createdBefore(10, 'available')).toHaveLength(2);
  });
});
