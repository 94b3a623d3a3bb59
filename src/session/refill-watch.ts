/**
 * The refill watch: after RATE-006's recovery opened a fresh window, a few keyed requests spread
 * over the rest of it, up to its Reset, so that a counter shorter than the window it announces
 * shows wherever the run's 429 fell (issue 44).
 *
 * Such a counter gives everything back part-way through the window its Reset names. When the run's
 * 429 falls in the counter's last period, its Retry-After ends at the Reset, the recovery meets a
 * fresh window, and a run whose last requests all go within a second of it sees nothing else of
 * that window. Two keyed requests on either side of the counter's turn, close enough together,
 * show a rise RATE-002 fails (src/checks/remaining-rise.ts): a full refill within one window,
 * more than a token bucket of the shortest window the run allows gives in that time, while a
 * sliding log still counts the run's requests. So the requests go at most that far apart: the
 * time a bucket takes to give back what the window has spent (Limit - Remaining - 1, the rise a
 * refill then shows) with a fifth to spare (half a second, on long windows), less the round
 * trips. Pure: the caller sends each request at the moment returned and asks again with what it
 * got.
 *
 * A fixed window of the announced length costs the requests and the wait; a window that is
 * nearly full (a rise would be too small to tell from a bucket's refill) or nearly over, or one
 * that would need more than MAX_WATCH_REQUESTS, is not watched.
 */
import type { Exchange } from '../http/exchange.js';
import { receivedAt } from '../checks/response-date.js';
import type { ServerClock } from '../checks/server-clock.js';
import { readingOf, type Reading } from '../rate-limit/reading.js';
import { shortestWindowMs } from '../rate-limit/window-length.js';

/** The most requests the watch spends on one window: beyond that, the window is left unwatched. */
export const MAX_WATCH_REQUESTS = 10;
/**
 * What the watch leaves of the longest gap a bucket's refill allows, for latency that varies and
 * timers that fire late: a fifth of it, or LATE_MS where that is less (long windows).
 */
const GAP_SHARE = 0.8;
const LATE_MS = 500;
/** How long before the Reset, on the server's latest clock, the last request must have been answered: it must be surely of the window. */
const BEFORE_RESET_MS = 300;

export interface RefillWatchInputs {
  /** The recovery's response: the window the watch covers is the one it announced. */
  recovery: Exchange;
  exchanges: readonly Exchange[];
  clock: ServerClock | undefined;
  nowMs: number;
  /** How many requests the run may still send. */
  budget: number;
  /** How many requests the watch has sent so far. */
  sent: number;
}

export type RefillWatchStep = { kind: 'send'; atMs: number } | { kind: 'done'; why: string } | { kind: 'too-costly'; requests: number };

/** The run's latest keyed response with the three headers. */
const latestReading = (exchanges: readonly Exchange[], clock: ServerClock): Reading | undefined => {
  for (let i = exchanges.length - 1; i >= 0; i--) {
    const ex = exchanges[i];
    const reading = ex === undefined ? undefined : readingOf(ex, clock);
    if (reading !== undefined) return reading;
  }
  return undefined;
};

/** The next request of the watch, or why there is none. */
export function refillWatchStep({ recovery, exchanges, clock, nowMs, budget, sent }: RefillWatchInputs): RefillWatchStep {
  const windowMs = shortestWindowMs(exchanges, clock);
  const window = readingOf(recovery, clock);
  const now = clock === undefined ? undefined : latestReading(exchanges, clock);
  if (clock === undefined || windowMs === undefined || window === undefined || now === undefined) return { kind: 'done', why: 'no window to watch' };
  if (now.ex.response?.status === 429) return { kind: 'done', why: 'refused' };
  if (now.resetMs !== window.resetMs) return { kind: 'done', why: 'the window ended' };
  const last = now.ex;
  const rise = Number(now.limit - now.remaining) - 1;
  const roundTrip = receivedAt(last) - last.sentAt;
  const longestMs = (rise * windowMs) / Number(now.limit);
  const gapMs = Math.max(GAP_SHARE * longestMs, longestMs - LATE_MS) - 2 * roundTrip;
  // The local moment by which a request is answered before the Reset on the server's clock, as a plan
  // reads the clock (narrowHigh): a request that lands past it only makes one pair fewer to judge.
  const endMs = window.resetMs - clock.narrowHigh - roundTrip - BEFORE_RESET_MS;
  const atMs = Math.max(nowMs, last.sentAt + gapMs);
  if (gapMs <= 0) return { kind: 'done', why: 'too little of the window is spent for a refill to show' };
  if (atMs > endMs) return { kind: 'done', why: 'the window is over' };
  const needed = Math.ceil((endMs - atMs) / gapMs) + 1;
  if (sent === 0 && (needed > MAX_WATCH_REQUESTS || needed > budget)) return { kind: 'too-costly', requests: needed };
  return budget > 0 ? { kind: 'send', atMs } : { kind: 'done', why: 'the budget is spent' };
}
