/**
 * The run's requests a limiter counted between two of its responses: the one question RATE-002's
 * rise, its account of who spent the key, its early 429 and RATE-003's give-back rule each ask.
 * Two answers, for two uses:
 * - *surely counted*: what a fall of Remaining is owed, a lower bound. Only the run's keyed
 *   requests served with Remaining (the limiter handled them), sent once the earlier response was
 *   answered and answered before the later request was sent, the later one itself included: the
 *   server can only have handled them between the two.
 * - *possibly counted*: what explains a fall, an upper bound. Every request of the run, whatever
 *   its credentials (a server may count per client address) or its answer (a limiter may count a
 *   request whose headers something after it dropped), answered after the earlier request was sent
 *   and sent before the later one was answered.
 * A rule that fails a server on a fall uses the upper bound; one that fails it on a rise, or on
 * Remaining standing still, the lower: so timing the run cannot see never makes a false failure.
 */
import type { Exchange } from '../http/exchange.js';
import { receivedAt } from '../checks/response-date.js';
import { readExchange } from './reading.js';

/** A keyed request the limiter surely counted: answered, not refused with 429, and with Remaining on its response (the reading's `counted`). */
export const limiterCounted = (ex: Exchange): boolean => readExchange(ex).counted;

/** Whether the run's request `e` may have been counted after `from` was and no later than `to`, `to` itself included. */
export const mayBeCountedBetween = (e: Exchange, from: Exchange, to: Exchange): boolean => e.seq !== from.seq && receivedAt(e) >= from.sentAt && e.sentAt <= receivedAt(to);

/** The run's requests that may have been counted after `from` was and no later than `to`, `to` included (the upper bound). */
export function possiblyCountedBetween(exchanges: readonly Exchange[], from: Exchange, to: Exchange): number {
  let n = 0;
  for (const e of exchanges) if (mayBeCountedBetween(e, from, to)) n += 1;
  return n;
}

/**
 * The run's exchanges in the order they were sent, indexed, so that the surely-counted questions,
 * asked of every pair of a run's responses, scan only the requests sent between the two: a request
 * sent after `from` was answered has a later seq than `from`, one answered before `to` was sent an
 * earlier seq than `to`.
 */
export class CountedRequests {
  private readonly bySeq: readonly Exchange[];
  private readonly index: ReadonlyMap<number, number>;

  constructor(exchanges: readonly Exchange[]) {
    this.bySeq = [...exchanges].sort((a, b) => a.seq - b.seq);
    this.index = new Map(this.bySeq.map((e, i) => [e.seq, i]));
  }

  /** Surely counted after `from` and up to `to`, `to` itself included when the limiter counted it (the lower bound). */
  surelyBetween(from: Exchange, to: Exchange): number {
    const answered = receivedAt(from);
    const last = this.index.get(to.seq) ?? -1;
    let n = 0;
    for (let i = (this.index.get(from.seq) ?? last) + 1; i <= last; i++) {
      const e = this.bySeq[i];
      if (e === undefined || !limiterCounted(e) || e.sentAt < answered) continue;
      if (e === to || receivedAt(e) <= to.sentAt) n += 1;
    }
    return n;
  }

  /** Surely counted in the `windowMs` before `to` was answered, `to` included: what a sliding log of that length still holds. */
  surelyWithin(to: Exchange, windowMs: number): number {
    const since = receivedAt(to) - windowMs;
    let n = 0;
    for (let i = this.index.get(to.seq) ?? -1; i >= 0; i--) {
      const e = this.bySeq[i];
      if (e === undefined) continue;
      if (e.sentAt < since) break;
      if (limiterCounted(e) && (e === to || receivedAt(e) <= to.sentAt)) n += 1;
    }
    return n;
  }
}
