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
import { possiblyCountedBetween } from './counting.js';
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

export class RefillDoubt {
  /** The latest response of the window before the current one, and of the current one. */
  #before: Seen | undefined;
  #current: Seen | undefined;
  /** Once per run: the local moment keyed sends wait for, once decided. */
  #until: number | undefined;

  /** Told every exchange as it completes, with the run's exchanges so far. */
  observe(ex: Exchange, exchanges: readonly Exchange[]): void {
    const now = seen(ex);
    if (now === undefined || this.#until !== undefined) return;
    const current = this.#current;
    if (current === undefined || now.resetMs > current.resetMs) {
      // A later Reset opens a window only once the one before has passed by the server's own Date.
      if (current !== undefined && now.dateMs >= current.resetMs) this.#before = current;
      this.#current = now;
    } else if (now.resetMs === current.resetMs && now.ex.seq > current.ex.seq) {
      this.#current = now;
    }
    const before = this.#before;
    if (before === undefined || now.resetMs <= before.resetMs || now.dateMs < before.resetMs || before.remaining >= before.limit) return;
    if (now.remaining + BigInt(possiblyCountedBetween(exchanges, before.ex, now.ex)) > before.remaining) return;
    // The Date is the server's second, floored: the Reset passes locally no later than this.
    const aheadMs = now.resetMs - now.dateMs;
    if (aheadMs <= MINUTE_RESET_AHEAD_MS) this.#until = receivedAt(now.ex) + aheadMs;
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
