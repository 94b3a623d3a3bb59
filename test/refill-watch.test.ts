/**
 * The refill watch (src/session/refill-watch.ts), played against two servers that answer alike up
 * to the recovery: a fixed window of the 6 s it announces, and a counter that turns every 3 s under
 * the same announcement. The watch's requests must give RATE-002's rise rule a pair on either side
 * of the counter's turn, and nothing to fail on the fixed window.
 */
import { describe, expect, it } from 'vitest';
import { MAX_WATCH_REQUESTS, refillWatchSlot, refillWatchStep } from '../src/session/refill-watch.js';
import { findUnexplainedRises } from '../src/checks/remaining-rise.js';
import type { Exchange } from '../src/http/exchange.js';
import { NOW_MS, makeExchange } from './support/exchange-factory.js';

const LIMIT = 60;
const WINDOW_MS = 6_000;
const ROUND_TRIP_MS = 10;
// The server's clock as the run's Dates pin it: the local clock, give or take a round trip.
const clock = { low: 0, high: 1_000, narrowHigh: 20 };

/** A server of aligned 6 s windows (starting at NOW_MS) whose counter turns every `counterMs`. */
function server(counterMs: number) {
  const exchanges: Exchange[] = [];
  let counted: number[] = [];
  const send = (atMs: number, status = 200): Exchange => {
    const turn = Math.floor((atMs - NOW_MS) / counterMs) * counterMs + NOW_MS;
    counted = counted.filter((t) => t >= turn);
    if (status !== 429) counted.push(atMs);
    const reset = Math.floor((atMs - NOW_MS) / WINDOW_MS + 1) * WINDOW_MS + NOW_MS;
    const ex = makeExchange({
      seq: exchanges.length + 1,
      status,
      sentAt: atMs,
      elapsedMs: ROUND_TRIP_MS,
      headers: { date: new Date(Math.floor(atMs / 1000) * 1000).toUTCString(), 'x-ratelimit-remaining': String(Math.max(0, LIMIT - counted.length)), 'x-ratelimit-reset': String(reset / 1000) },
    });
    exchanges.push(ex);
    return ex;
  };
  return { exchanges, send };
}

/**
 * The run's end as a fast run meets it when its 429 falls in the counter's last period: the
 * window before spent and refused, the recovery at the Reset, a dozen requests within a tenth of a
 * second; then the watch, sent where it asks.
 */
function runWatched(counterMs: number, spread = false): { exchanges: Exchange[]; watched: number } {
  const { exchanges, send } = server(counterMs);
  for (let i = 0; i < LIMIT; i++) send(NOW_MS + 3_500 + i * 5);
  send(NOW_MS + 3_900, 429);
  const recovery = send(NOW_MS + WINDOW_MS + 5);
  // The run's last cases: at once, or (spread) the last ones at the watch's moments.
  let nowMs = NOW_MS + WINDOW_MS + 20;
  for (let i = 0; i < 12; i++) {
    const at = spread ? refillWatchSlot({ recovery, exchanges, clock, nowMs, budget: 100 }, 12 - i) : undefined;
    nowMs = Math.max(nowMs, at ?? 0);
    send(nowMs);
    nowMs += 8;
  }
  let watched = 0;
  for (let step = refillWatchStep({ recovery, exchanges, clock, nowMs: nowMs + 100, budget: 100, sent: 0 }); step.kind === 'send'; watched++) {
    send(step.atMs);
    step = refillWatchStep({ recovery, exchanges, clock, nowMs: step.atMs + ROUND_TRIP_MS, budget: 100, sent: watched + 1 });
  }
  return { exchanges, watched };
}

describe('the refill watch over the window the recovery opened', () => {
  it('shows a counter that turns half-way through the window it announces as a rise RATE-002 fails', () => {
    const { exchanges, watched } = runWatched(3_000);
    expect(watched).toBeGreaterThan(1);
    expect(watched).toBeLessThanOrEqual(MAX_WATCH_REQUESTS);
    const rises = findUnexplainedRises(exchanges, clock);
    expect(rises.map((f) => f.requirement)).toEqual(['RATE-002']);
    // The pair is the watch's own, in the window the recovery opened.
    expect(rises[0]?.pairedWith).toBeGreaterThan(LIMIT + 2 + 12);
  });

  it('watches a fixed window of the announced length up to its Reset, and leaves it passing', () => {
    const { exchanges, watched } = runWatched(WINDOW_MS);
    // The counter's run stops once the refill has shown; the fixed window is watched to its end.
    expect(watched).toBeGreaterThan(runWatched(3_000).watched);
    expect(watched).toBeLessThanOrEqual(MAX_WATCH_REQUESTS);
    expect(exchanges.at(-1)?.sentAt).toBeGreaterThan(NOW_MS + WINDOW_MS + 4_000);
    expect(findUnexplainedRises(exchanges, clock)).toEqual([]);
  });

  it('takes the run\'s last cases as its requests where they are spread over its moments, and still shows the counter', () => {
    const alone = runWatched(WINDOW_MS);
    const spread = runWatched(WINDOW_MS, true);
    // The same window watched to its end, with some of the requests the watch would have sent its own now the run's cases.
    expect(spread.watched).toBeLessThan(alone.watched);
    expect(spread.exchanges.at(-1)?.sentAt).toBeGreaterThan(NOW_MS + WINDOW_MS + 4_000);
    expect(findUnexplainedRises(spread.exchanges, clock)).toEqual([]);
    const counter = runWatched(3_000, true);
    expect(findUnexplainedRises(counter.exchanges, clock).map((f) => f.requirement)).toEqual(['RATE-002']);
  });

  it('stays away from a window too little spent for a refill to show, and from one that would cost too many requests', () => {
    const { exchanges, send } = server(WINDOW_MS);
    const recovery = send(NOW_MS + 20);
    expect(refillWatchStep({ recovery, exchanges, clock, nowMs: NOW_MS + 100, budget: 100, sent: 0 })).toEqual({ kind: 'done', why: 'too little of the window is spent for a refill to show' });
    for (let i = 0; i < 3; i++) send(NOW_MS + 40 + i * 10);
    expect(refillWatchStep({ recovery, exchanges, clock, nowMs: NOW_MS + 100, budget: 100, sent: 0 }).kind).toBe('too-costly');
    expect(refillWatchStep({ recovery, exchanges, clock, nowMs: NOW_MS + 100, budget: 0, sent: 1 })).toEqual({ kind: 'done', why: 'the budget is spent' });
  });
});
