/**
 * The refill doubt, a send policy: when a Reset has passed (by the server's own Date) and the
 * window it opened shows nothing given back, keyed sends wait, once per run, until that new
 * window's Reset has passed too.
 *
 * A counter longer than the window its Reset announces turns only at some of the Resets it names.
 * Its fault shows where the run's 429 falls in the counter's first part: Retry-After then ends at
 * the counter's turn, past the Reset (RATE-006). A run whose 429 falls in the counter's last part
 * meets a Retry-After that ends at its Reset, and on a shared key the Reset that gave nothing
 * back is what one more client's request explains. Waiting for the next Reset, the one where the
 * counter turns, moves the run's spending to the counter's start, wherever the run began in it.
 *
 * What a fixed window, a token bucket or a sliding log does at its Reset (all back, the bucket
 * full, the oldest request back) is never "nothing given back" while the window had spent some
 * (Remaining below Limit): there the doubt stays silent and costs nothing. On a shared key
 * another client's spending may raise it; it then costs one wait of a window, once.
 */
import type { Exchange } from '../http/exchange.js';
import type { Hold } from '../http/pacer.js';
import type { Pacing, PolicySend, SendTiming } from '../http/send-policy.js';
import { receivedAt } from '../checks/response-date.js';
import { mayBeCountedBetween } from './counting.js';
import { readExchange } from './reading.js';
import { MINUTE_RESET_AHEAD_MS } from './tolerances.js';

/** A response of a window, as the doubt compares it. */
interface Seen {
  ex: Exchange;
  remaining: bigint;
  limit: bigint;
  resetMs: number;
  dateMs: number;
}

const seen = (ex: Exchange): Seen | undefined => {
  const { counted, remaining, limit, reset, dateMs } = readExchange(ex);
  if (!counted || remaining === undefined || limit === undefined || reset?.kind !== 'unix-seconds' || reset.atMs === undefined || dateMs === undefined) return undefined;
  return { ex, remaining, limit, resetMs: reset.atMs, dateMs };
};

/**
 * How many of the run's requests may have been counted after `before` and before `highest` without
 * a response that places them elsewhere: the requests sent before `highest` was answered and
 * answered once `before` was sent, less those whose own Remaining shows them counted before
 * `before` (its window, more left) or after `highest` (a later window, or its own with no more
 * left). Undefined while one of them may still be in flight: it may have been counted first.
 * Requests sent after `highest` was answered cannot have been counted before it.
 */
function countedUnplaced(exchanges: readonly Exchange[], sent: number, before: Seen, highest: Seen): number | undefined {
  const until = receivedAt(highest.ex);
  const firstAfter = exchanges.find((e) => e.sentAt > until)?.seq ?? sent + 1;
  const known = exchanges.filter((e) => e.seq < firstAfter);
  if (known.length < firstAfter - 1) return undefined;
  let n = 0;
  for (const e of known) {
    if (e.seq === highest.ex.seq || !mayBeCountedBetween(e, before.ex, highest.ex)) continue;
    const placed = seen(e);
    const earlier = placed !== undefined && placed.resetMs === before.resetMs && placed.remaining > before.remaining;
    const later = placed !== undefined && (placed.resetMs > highest.resetMs || (placed.resetMs === highest.resetMs && placed.remaining <= highest.remaining));
    if (!earlier && !later) n += 1;
  }
  return n;
}

export class RefillDoubt {
  /** The latest response of the window before the current one, and of the current one. */
  #before: Seen | undefined;
  #current: Seen | undefined;
  /**
   * The current window's response with the most left: the first the limiter counted there, as
   * far as the run's own requests show (they are counted one after the other, each leaving less).
   */
  #highest: Seen | undefined;
  /** Once per run: the local moment keyed sends wait for, once decided. */
  #until: number | undefined;

  /**
   * Told every exchange as it completes, with the run's exchanges so far (in seq order) and how
   * many requests the run has sent (the latest seq): the doubt holds when the new window's first
   * counted response shows no more left than the window before it did, less one for itself.
   */
  observe(ex: Exchange, exchanges: readonly Exchange[], sent: number): void {
    const now = seen(ex);
    if (now !== undefined && this.#until === undefined) this.#place(now);
    const before = this.#before;
    const highest = this.#highest;
    if (this.#until !== undefined || before === undefined || highest === undefined || before.remaining >= before.limit) return;
    if (highest.resetMs <= before.resetMs || highest.dateMs < before.resetMs || highest.remaining + 1n > before.remaining) return;
    const unplaced = countedUnplaced(exchanges, sent, before, highest);
    if (unplaced === undefined || highest.remaining + 1n + BigInt(unplaced) > before.remaining) return;
    // The Date is the server's second, floored: the Reset passes locally no later than this.
    const aheadMs = highest.resetMs - highest.dateMs;
    if (aheadMs <= MINUTE_RESET_AHEAD_MS) this.#until = receivedAt(highest.ex) + aheadMs;
  }

  #place(now: Seen): void {
    const current = this.#current;
    if (current === undefined || now.resetMs > current.resetMs) {
      // A later Reset opens a window only once the one before has passed by the server's own Date.
      if (current !== undefined && now.dateMs >= current.resetMs) this.#before = current;
      this.#current = now;
      this.#highest = now;
    } else if (now.resetMs === current.resetMs) {
      if (now.ex.seq > current.ex.seq) this.#current = now;
      if (this.#highest === undefined || now.remaining > this.#highest.remaining) this.#highest = now;
    }
  }

  /** The hold of a paced keyed send while the doubt's wait lasts (the pacer's own on top, whichever ends later). */
  time(send: PolicySend, { pacer, inFlightKeyed, now }: Pacing): SendTiming | undefined {
    const until = this.#until;
    if (until === undefined || !send.paced || !send.keyed) return undefined;
    const own = pacer.holdBeforeSend(send, inFlightKeyed, now);
    const ms = until + pacer.waitMarginMs - now;
    if (ms <= 0 || (own !== undefined && own.ms >= ms)) return undefined;
    const hold: Hold = { ms, reason: 'a Reset passed with nothing given back: the next one may be where the limit really resets' };
    return { hold };
  }
}
