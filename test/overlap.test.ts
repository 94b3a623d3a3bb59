/** inFlightTogether: what a run really sent together, read from the exchanges' send and answer times. */
import { describe, expect, it } from 'vitest';
import { inFlightTogether } from '../src/session/overlap.js';
import { makeExchange, NOW_MS } from './support/exchange-factory.js';

const sent = (seq: number, atMs: number, tookMs: number) => makeExchange({ seq, method: 'POST', sentAt: NOW_MS + atMs, elapsedMs: tookMs });
const seqs = (exchanges: readonly { seq: number }[]): number[] => exchanges.map((ex) => ex.seq);

describe('inFlightTogether', () => {
  it('finds the group sent at once, whatever order the answers came in', () => {
    const group = [sent(2, 0, 40), sent(3, 1, 12), sent(4, 1, 30), sent(5, 2, 5)];
    expect(seqs(inFlightTogether([sent(1, -100, 10), ...group, sent(6, 100, 10)]))).toEqual([2, 3, 4, 5]);
  });

  it('does not count one sent after another was answered', () => {
    expect(seqs(inFlightTogether([sent(1, 0, 10), sent(2, 10, 10), sent(3, 20, 10)]))).toHaveLength(1);
  });

  it('takes the latest of groups as large, the freshest writes', () => {
    const first = [sent(1, 0, 10), sent(2, 0, 10), sent(3, 0, 10)];
    const second = [sent(4, 50, 10), sent(5, 50, 10), sent(6, 51, 10)];
    expect(seqs(inFlightTogether([...first, ...second]))).toEqual([4, 5, 6]);
    expect(seqs(inFlightTogether([...first, sent(4, 50, 10)]))).toEqual([1, 2, 3]);
  });

  it('among groups as large, takes the one worth most, whatever its place', () => {
    const first = [sent(1, 0, 10), sent(2, 0, 10), sent(3, 0, 10)];
    const second = [sent(4, 50, 10), sent(5, 50, 10), sent(6, 51, 10)];
    const holdsTwo = (group: readonly { seq: number }[]): number => (group.some((ex) => ex.seq === 2) ? 1 : 0);
    expect(seqs(inFlightTogether([...first, ...second], holdsTwo))).toEqual([1, 2, 3]);
    // Never a smaller group for its worth.
    expect(seqs(inFlightTogether([sent(1, 0, 10), sent(2, 0, 10), ...second], holdsTwo))).toEqual([4, 5, 6]);
  });

  it('is empty for no exchanges', () => {
    expect(inFlightTogether([])).toEqual([]);
  });
});
