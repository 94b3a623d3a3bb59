/**
 * StoreModel without a client: the census is one listing shared until a write makes it stale
 * (never once a page was full), a bracket is opened once per requirement and not at all when the
 * latest creation already opens one, and pets every response shows are known by exact id.
 */
import { describe, expect, it } from 'vitest';
import { StoreModel } from '../src/session/store-model.js';
import type { Exchange } from '../src/http/exchange.js';
import type { JsonObject } from '../src/interface/json.js';
import { makeExchange } from './support/exchange-factory.js';

const pet = (id: number): JsonObject => ({ id, name: `pet ${id}`, categoryId: 1, status: 'available' });

function storeOf(pages: JsonObject[][]): { store: StoreModel; listings: () => number; creations: string[] } {
  let listings = 0;
  const creations: string[] = [];
  let seq = 0;
  const store = new StoreModel({
    runId: 'abc123',
    listStore: () => {
      const page = pages[Math.min(listings, pages.length - 1)] ?? [];
      listings += 1;
      return Promise.resolve(makeExchange({ seq: ++seq, target: '/pets?limit=100', json: page }));
    },
    create: (body: string, purpose: string): Promise<Exchange> => {
      creations.push(purpose);
      const created = { ...(JSON.parse(body) as JsonObject), id: 1000 + creations.length };
      const ex = makeExchange({ seq: ++seq, method: 'POST', status: 201, json: created });
      store.observe(ex);
      return Promise.resolve(ex);
    },
    exchangeOf: () => undefined,
    record: () => undefined,
  });
  return { store, listings: () => listings, creations };
}

describe('StoreModel', () => {
  it('lists the store once for every reader, again after a write while the page was not full', async () => {
    const { store, listings } = storeOf([[pet(1), pet(2)], [pet(1), pet(2), pet(3)]]);
    const [a, b] = await Promise.all([store.census(), store.census()]);
    expect(a).toBe(b);
    expect(a.wholeStore).toBe(true);
    expect(listings()).toBe(1);
    store.storeWritten();
    expect((await store.census()).pets).toHaveLength(3);
    expect(listings()).toBe(2);
  });

  it('keeps a full page after writes: a store of 100 pets or more stays so', async () => {
    const full = Array.from({ length: 100 }, (_, i) => pet(i + 1));
    const { store, listings } = storeOf([full]);
    const census = await store.census();
    expect(census.wholeStore).toBe(false);
    expect(store.fullPageCensus).toBe(census);
    store.storeWritten();
    expect(await store.census()).toBe(census);
    expect(listings()).toBe(1);
  });

  it('opens a bracket once per requirement, and not again while the latest creation was accepted', async () => {
    const { store, creations } = storeOf([[pet(1)]]);
    await Promise.all([store.openBracket('CREATE-004'), store.openBracket('CREATE-004')]);
    expect(creations).toEqual(['bracket']);
    await store.openBracket('AUTH-004');
    expect(creations).toEqual(['bracket']);
    expect(store.createdIds).toEqual(['1001']);
  });

  it('knows every pet a listing, a creation or a fetch showed, by exact id', () => {
    const { store } = storeOf([[]]);
    store.observe(makeExchange({ seq: 1, target: '/pets', json: [pet(5), { id: 2n ** 60n + 1n, name: 'big', categoryId: 1, status: 'sold' }] }));
    store.observe(makeExchange({ seq: 2, target: '/pets/7', json: pet(7) }));
    store.observe(makeExchange({ seq: 3, target: '/pets/8', status: 404, json: pet(8) }));
    expect([...store.knownPets.keys()].sort()).toEqual(['1152921504606846977', '5', '7']);
  });
});
