/**
 * SharedResults: a key's result is made once per run and shared, one per part for a parted key,
 * each run (session) holds its own, and a handoff reads undefined until it is put.
 */
import { describe, expect, it } from 'vitest';
import { HandoffKey, SharedKey, SharedResults } from '../src/session/shared-results.js';

describe('SharedResults', () => {
  it('makes a key’s result once and hands every caller the same promise', async () => {
    const shared = new SharedResults();
    const key = new SharedKey<number>('answer');
    let made = 0;
    const make = (): Promise<number> => Promise.resolve(++made);
    const first = shared.once(key, make);
    const second = shared.once(key, make);
    expect(second).toBe(first);
    expect(await second).toBe(1);
    expect(made).toBe(1);
  });

  it('makes one result per part, and two keys of one name are two results', async () => {
    const shared = new SharedResults();
    const key = new SharedKey<string, string>('listing');
    const other = new SharedKey<string, string>('listing');
    expect(await shared.onceFor(key, 'available', () => Promise.resolve('a'))).toBe('a');
    expect(await shared.onceFor(key, 'pending', () => Promise.resolve('p'))).toBe('p');
    expect(await shared.onceFor(key, 'available', () => Promise.resolve('again'))).toBe('a');
    expect(await shared.onceFor(other, 'available', () => Promise.resolve('other'))).toBe('other');
  });

  it('keeps each run’s results apart, and a handoff is undefined until put', () => {
    const key = new HandoffKey<{ status: string }>('sent');
    const one = new SharedResults();
    const two = new SharedResults();
    expect(one.get(key)).toBeUndefined();
    one.put(key, { status: 'sold' });
    expect(one.get(key)).toEqual({ status: 'sold' });
    expect(two.get(key)).toBeUndefined();
  });
});
