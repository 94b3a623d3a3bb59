/**
 * The server's clock, read from its Date headers only as far as they keep time. Many stacks hand
 * out a cached Date (built once per connection, or refreshed by a timer that a busy loop runs
 * late), so a Date may stand still or lag behind the clock that wrote it, but never run ahead of
 * it: the freshest Dates bound the offset between the server's clock and the local one from below
 * (the largest Date - local receive time, within Date's one-second resolution), and every timing
 * check places a response on the server's clock as local time plus that offset. A Date that lags
 * it is an observation (observeDateLag), never the basis of a failure.
 */
import type { Exchange } from '../http/exchange.js';
import { observation, type Finding } from './finding.js';
import { receivedAt, responseDateMs } from './response-date.js';
import { iso } from './text.js';

/** A Date names a whole second: the server's moment lies up to this much after it. */
export const DATE_RESOLUTION_MS = 1_000;

/** Bounds on the server's clock minus the local one, in ms, from the run's Date headers. */
export interface ServerClock {
  /** At least this: the freshest Date (the largest Date - local receive time), since no Date runs ahead. */
  low: number;
  /**
   * At most this, when the freshest Date was written in the second it names: that response's own
   * bound. The bound the verdicts use: a Date that stood still elsewhere cannot narrow it.
   */
  high: number;
  /**
   * At most this, narrower: from every response whose Date was the newest seen when it arrived
   * (older ones surely come from a cache), never below `low`. Many responses across a second's
   * turn narrow it to about one latency; a Date that stood still while still the newest makes it
   * too narrow (by up to a second before it is seen lagging), so it only plans (the window
   * top-up) and sizes windows where no Date was seen lagging (the rise of Remaining).
   */
  narrowHigh: number;
}

/** Reads the server's clock from each exchange as it completes (in any order). */
export class ServerClockReading {
  #low = Number.NEGATIVE_INFINITY;
  #high = Number.POSITIVE_INFINITY;
  #narrow = Number.POSITIVE_INFINITY;
  #newestDate = Number.NEGATIVE_INFINITY;

  observe(ex: Exchange): void {
    const date = ex.response === undefined ? undefined : responseDateMs(ex);
    if (date === undefined) return;
    // The server wrote the Date between sending and receiving, and it is no later than its clock then.
    const low = date - receivedAt(ex);
    const high = date + DATE_RESOLUTION_MS - ex.sentAt;
    if (low > this.#low) {
      this.#low = low;
      this.#high = high;
    }
    if (date >= this.#newestDate) {
      this.#newestDate = date;
      this.#narrow = Math.min(this.#narrow, high);
    }
  }

  get clock(): ServerClock | undefined {
    if (this.#low === Number.NEGATIVE_INFINITY) return undefined;
    return { low: this.#low, high: this.#high, narrowHigh: Math.min(this.#high, Math.max(this.#low, this.#narrow)) };
  }
}

/** The clock read from every exchange of `exchanges`; undefined when none carries a usable Date. */
export function serverClockOf(exchanges: readonly Exchange[]): ServerClock | undefined {
  const reading = new ServerClockReading();
  for (const ex of exchanges) reading.observe(ex);
  return reading.clock;
}

/** When the server handled an exchange, on its own clock: no earlier than `earliest`, no later than `latest`. */
export interface ServerMoment {
  earliest: number;
  latest: number;
}

/**
 * The exchange's moment on the server's clock: from the clock when there is one (its own Date
 * can only raise the earliest, since it may have stood still), else from its own Date alone;
 * undefined without either.
 */
export function serverMoment(ex: Exchange, clock: ServerClock | undefined): ServerMoment | undefined {
  const date = ex.response === undefined ? undefined : responseDateMs(ex);
  if (clock === undefined) return date === undefined ? undefined : { earliest: date, latest: date + DATE_RESOLUTION_MS };
  return { earliest: Math.max(date ?? Number.NEGATIVE_INFINITY, ex.sentAt + clock.low), latest: receivedAt(ex) + clock.high };
}

/** The server's clock when it answered, at the earliest (its own Date without a clock), else the local time the answer arrived. */
export function serverTimeOf(ex: Exchange, clock?: ServerClock): number {
  return serverMoment(ex, clock)?.earliest ?? receivedAt(ex);
}

/**
 * A Date surely behind the clock by less than this beyond its own second is not called lagging:
 * Node's own Date cache, refreshed by a timer, turns a few milliseconds late on a busy machine.
 */
const LAG_NOTED_MS = 1_000;

/** How far the exchange's Date surely lags the server's clock beyond its own second (ms; 0 when it may be fresh). */
function lagOf(ex: Exchange, date: number, clock: ServerClock): number {
  return Math.max(0, ex.sentAt + clock.low - (date + DATE_RESOLUTION_MS));
}

const lagging = (ex: Exchange, date: number, clock: ServerClock): boolean => lagOf(ex, date, clock) > LAG_NOTED_MS;

/**
 * The clock to measure windows with: the narrow bound, unless some Date was seen lagging (a cache
 * may then have shown a second first long after it began, and the narrow bound is not to be trusted).
 */
export function windowClockOf(exchanges: readonly Exchange[], clock: ServerClock): ServerClock {
  const lagged = exchanges.some((ex) => {
    const date = ex.response === undefined ? undefined : responseDateMs(ex);
    return date !== undefined && lagging(ex, date, clock);
  });
  return lagged ? clock : { ...clock, high: clock.narrowHigh };
}

const REQ = 'RATE-003';

/** The Date value served over the longest span of the local clock, and by how many responses. */
function longestStandStill(dated: readonly { ex: Exchange; date: number }[]): { date: number; first: Exchange; last: Exchange; count: number; spanMs: number } | undefined {
  const byDate = new Map<number, { first: Exchange; last: Exchange; count: number }>();
  for (const { ex, date } of dated) {
    const seen = byDate.get(date);
    if (seen === undefined) byDate.set(date, { first: ex, last: ex, count: 1 });
    else byDate.set(date, { first: seen.first, last: ex, count: seen.count + 1 });
  }
  let longest: { date: number; first: Exchange; last: Exchange; count: number; spanMs: number } | undefined;
  for (const [date, s] of byDate) {
    const spanMs = receivedAt(s.last) - s.first.sentAt;
    if (longest === undefined || spanMs > longest.spanMs) longest = { date, ...s, spanMs };
  }
  return longest;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/**
 * What the run saw of Date headers that lagged the server's clock (a cache): how many, by how much
 * at most, and the Date that stood still longest. An observation of RATE-003, marked notable so the
 * console summary shows it: it explains the clock the timing checks used, and is never a failure.
 */
export function observeDateLag(exchanges: readonly Exchange[], clock: ServerClock | undefined): Finding[] {
  if (clock === undefined) return [];
  const dated: { ex: Exchange; date: number }[] = [];
  let worst: { ex: Exchange; date: number; lag: number } | undefined;
  let lagged = 0;
  for (const ex of exchanges) {
    const date = ex.response === undefined ? undefined : responseDateMs(ex);
    if (date === undefined) continue;
    dated.push({ ex, date });
    if (!lagging(ex, date, clock)) continue;
    const lag = lagOf(ex, date, clock);
    lagged += 1;
    if (worst === undefined || lag > worst.lag) worst = { ex, date, lag };
  }
  if (worst === undefined) return [];
  const still = longestStandStill(dated);
  const stood =
    still === undefined || still.count < 2
      ? ''
      : `; the same Date (${new Date(still.date).toUTCString()}) stood still on ${still.count} responses over ${seconds(still.spanMs)} of the local clock (exchanges ${still.first.seq} to ${still.last.seq})`;
  const message =
    `The Date header lagged the server's clock on ${lagged} of ${dated.length} responses, by up to ${seconds(worst.lag + DATE_RESOLUTION_MS)} ` +
    `(exchange ${worst.ex.seq}: Date ${new Date(worst.date).toUTCString()}, when the freshest Date headers put the server's clock at ${iso(worst.ex.sentAt + clock.low)} or later)${stood}. ` +
    `A cached Date is harmless: the timing checks (RATE-002, RATE-003, RATE-005, RATE-006) read the server's clock from the freshest Date headers, so this is not held against the server`;
  return [{ ...observation(REQ, message, worst.ex.seq), notable: true }];
}
