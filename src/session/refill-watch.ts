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
const LAST_ANSWER_BEFORE_RESET_MS = 300;

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

/** `requests`: how many the watch needs from this one on, each as far apart as this one's gap. */
export type RefillWatchStep = { kind: 'send'; atMs: number; requests: number } | { kind: 'done'; why: string } | { kind: 'too-costly'; requests: number };

/** The run's latest keyed response with the three headers. */
const latestReading = (exchanges: readonly Exchange[], clock: ServerClock): Reading | undefined => {
  for (let i = exchanges.length - 1; i >= 0; i--) {
    const ex = exchanges[i];
    const reading = ex === undefined ? undefined : readingOf(ex, clock);
    if (reading !== undefined) return reading;
  }
  return undefined;
};

/** The watch's next moment and how many requests it needs from it on, were `ahead` more keyed requests spent in the window first; or why there is none. */
function watchPlan({ recovery, exchanges, clock, nowMs }: RefillWatchInputs, ahead: number): { atMs: number; requests: number } | { why: string } {
  const windowMs = shortestWindowMs(exchanges, clock);
  const window = readingOf(recovery, clock);
  const now = clock === undefined ? undefined : latestReading(exchanges, clock);
  if (clock === undefined || windowMs === undefined || window === undefined || now === undefined) return { why: 'no window to watch' };
  if (now.ex.response?.status === 429) return { why: 'refused' };
  if (now.resetMs !== window.resetMs) return { why: 'the window ended' };
  const last = now.ex;
  const rise = Number(now.limit - now.remaining) - 1 + ahead;
  const roundTrip = receivedAt(last) - last.sentAt;
  const longestMs = (rise * windowMs) / Number(now.limit);
  const gapMs = Math.max(GAP_SHARE * longestMs, longestMs - LATE_MS) - 2 * roundTrip;
  // The local moment by which a request is answered before the Reset on the server's clock, as a plan
  // reads the clock (narrowHigh): a request that lands past it only makes one pair fewer to judge.
  const endMs = window.resetMs - clock.narrowHigh - roundTrip - LAST_ANSWER_BEFORE_RESET_MS;
  const atMs = Math.max(nowMs, last.sentAt + gapMs);
  if (gapMs <= 0) return { why: 'too little of the window is spent for a refill to show' };
  if (atMs > endMs) return { why: 'the window is over' };
  return { atMs, requests: Math.ceil((endMs - atMs) / gapMs) + 1 };
}

/** The next request of the watch, or why there is none. */
export function refillWatchStep(inputs: RefillWatchInputs): RefillWatchStep {
  const plan = watchPlan(inputs, 0);
  if ('why' in plan) return { kind: 'done', why: plan.why };
  const { budget, sent } = inputs;
  if (sent === 0 && (plan.requests > MAX_WATCH_REQUESTS || plan.requests > budget)) return { kind: 'too-costly', requests: plan.requests };
  return budget > 0 ? { kind: 'send', ...plan } : { kind: 'done', why: 'the budget is spent' };
}

/**
 * When the next of `left` independent keyed cases goes, where the watch is under way: at once
 * while more are left than the watch would need once the others had gone too (the more the window
 * has spent, the further apart its requests may be), then each at the watch's moment, so that the
 * run's last cases are the watch's requests and it sends fewer of its own, none where they reach
 * its end. Undefined: at once (no window is watched, or this case is not needed as one of them).
 */
export function refillWatchSlot(inputs: Omit<RefillWatchInputs, 'sent'>, left: number): number | undefined {
  const full = { ...inputs, sent: 0 };
  const after = watchPlan(full, left - 1);
  if ('why' in after || after.requests < left) return undefined;
  const step = refillWatchStep(full);
  return step.kind === 'send' ? step.atMs : undefined;
}
