/**
 * RATE-002's rise rule (src/checks/remaining-rise.ts): a rise of X-RateLimit-Remaining that no
 * refill explains fails wherever it happens, with both exchanges as evidence, while the gradual
 * refills of token buckets and the bulk give-back of a sliding log pass.
 */
import { describe, expect, it } from 'vitest';
import { findUnexplainedRises, remainingMoved } from '../src/checks/remaining-rise.js';
import { shortestWindowMs } from '../src/rate-limit/window-length.js';
import { serverClockOf } from '../src/checks/server-clock.js';
import type { Exchange } from '../src/http/exchange.js';
import { NOW_MS, makeExchange } from './support/exchange-factory.js';
import { violations } from './support/findings.js';

/** What a limiter tells one request (local and server clocks agree; each answer takes 2 ms). */
interface Told {
  atMs: number;
  remaining: number;
  /** Unix ms; sent as whole seconds. */
  resetMs: number;
  status?: number;
  target?: string;
  method?: string;
  /** How long the answer took (default 2 ms). */
  elapsedMs?: number;
}

function run(told: readonly Told[], limit = 60): Exchange[] {
  return told.map((t, i) =>
    makeExchange({
      seq: i + 1,
      sentAt: NOW_MS + t.atMs,
      elapsedMs: t.elapsedMs ?? 2,
      status: t.status ?? 200,
      method: t.method ?? 'GET',
      target: t.target ?? '/pets',
      headers: {
        date: new Date(Math.floor((NOW_MS + t.atMs + 1) / 1000) * 1000).toUTCString(),
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(t.remaining),
        'x-ratelimit-reset': String(Math.ceil(t.resetMs / 1000)),
      },
    }),
  );
}

const judge = (exchanges: Exchange[]) => findUnexplainedRises(exchanges, serverClockOf(exchanges));

/** A fixed window of `windowMs` aligned to NOW_MS, counting per operation when `perOperation`. */
function fixedWindow(requests: readonly { atMs: number; target: string; method?: string }[], windowMs: number, perOperation: boolean): Told[] {
  const used = new Map<string, number>();
  return requests.map((r) => {
    const start = Math.floor(r.atMs / windowMs) * windowMs;
    const key = `${start} ${perOperation ? `${r.method ?? 'GET'} ${r.target.split('/').length}` : ''}`;
    used.set(key, (used.get(key) ?? 0) + 1);
    return { ...r, remaining: 60 - (used.get(key) ?? 0), resetMs: NOW_MS + start + windowMs };
  });
}

/**
 * The run's shape: a listing, ten creations, five fetches, then listings (the burst), 5 ms apart,
 * and the retry after the burst's 429 early in the next window, so the run knows how long windows
 * last; the Dates of so many responses place the server's clock within a few milliseconds.
 */
function requestsFrom(startMs: number, windowMs: number) {
  const at = (i: number) => startMs + 5 * i;
  return [
    { atMs: at(0), target: '/pets?limit=100' },
    ...Array.from({ length: 10 }, (_, i) => ({ atMs: at(1 + i), target: '/pets', method: 'POST' })),
    ...Array.from({ length: 5 }, (_, i) => ({ atMs: at(11 + i), target: `/pets/${i + 1}` })),
    ...Array.from({ length: 40 }, (_, i) => ({ atMs: at(16 + i), target: '/pets?limit=1' })),
    { atMs: (Math.floor(at(55) / windowMs) + 1) * windowMs + 200, target: '/pets?limit=1' },
  ];
}

describe('RATE-002: a rise of Remaining no refill explains', () => {
  it('says how Remaining went between the two: rose, stayed, or fell only (never "rose from 59 to 59")', () => {
    const [a, b] = run([
      { atMs: 0, remaining: 59, resetMs: NOW_MS + 3000 },
      { atMs: 10, remaining: 59, resetMs: NOW_MS + 3000 },
    ]);
    if (a === undefined || b === undefined) throw new Error('two exchanges');
    const reading = (ex: Exchange, remaining: bigint) => ({ ex, remaining, limit: 60n, resetMs: NOW_MS + 3000 });
    expect(remainingMoved(reading(a, 40n), reading(b, 45n))).toBe('rose from 40 (exchange 1, GET /pets) to 45 (exchange 2, GET /pets)');
    expect(remainingMoved(reading(a, 59n), reading(b, 59n))).toBe('stayed at 59 from exchange 1, GET /pets to exchange 2, GET /pets');
    expect(remainingMoved(reading(a, 45n), reading(b, 44n))).toBe('fell only from 45 (exchange 1, GET /pets) to 44 (exchange 2, GET /pets)');
  });

  it('fails a limit counted per operation at every position of the window, with both exchanges', () => {
    for (const startMs of [0, 500, 1000, 1500, 2000, 2500, 2900]) {
      const exchanges = run(fixedWindow(requestsFrom(startMs, 3000), 3000, true));
      const found = violations(judge(exchanges), 'RATE-002');
      expect(found.length, `run started ${startMs} ms into a 3 s window`).toBeGreaterThanOrEqual(1);
      expect(found[0]?.message).toMatch(/^X-RateLimit-Remaining rose from \d+ \(exchange \d+, \S+ \S+\) to \d+ \(exchange \d+, \S+ \S+\) within the window ending .* No refill gives that/);
      expect(found[0]?.pairedWith).toBeLessThan(found[0]?.exchange ?? 0);
    }
  });

  it('fails a refill across a 429 and its retry that no limiter of the announced window gives (a counter of half that window)', () => {
    // Reset announces a 6 s window; the counter behind it resets after 2 s, and the 429's retry finds it full.
    const resetMs = NOW_MS + 6_000;
    const exchanges = run([
      { atMs: 0, remaining: 0, resetMs },
      { atMs: 100, remaining: 0, resetMs, status: 429 },
      { atMs: 2_000, remaining: 59, resetMs },
    ]);
    const found = violations(judge(exchanges), 'RATE-002');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ exchange: 3 });
    // The same refill once the announced window has ended is a new window's.
    expect(judge(run([{ atMs: 0, remaining: 0, resetMs }, { atMs: 100, remaining: 0, resetMs, status: 429 }, { atMs: 6_100, remaining: 59, resetMs: resetMs + 6_000 }]))).toEqual([]);
  });

  it('leaves a refill under a Reset whose moment had come to RATE-003: the server said that window was over (a Reset computed once)', () => {
    const resetMs = NOW_MS + 2_000;
    // Remaining 30 under Reset +2 s, then 59 under the same Reset at 2.5 s: a new window the Reset never named.
    const stale = run([
      { atMs: 0, remaining: 59, resetMs: NOW_MS + 4_000 },
      { atMs: 1_900, remaining: 30, resetMs },
      { atMs: 2_500, remaining: 59, resetMs },
    ]);
    expect(judge(stale)).toEqual([]);
    // The same rise before that moment is one window's.
    const early = run([
      { atMs: 0, remaining: 59, resetMs: NOW_MS + 4_000 },
      { atMs: 1_000, remaining: 30, resetMs: NOW_MS + 4_000 },
      { atMs: 1_500, remaining: 59, resetMs: NOW_MS + 4_000 },
    ]);
    expect(violations(judge(early), 'RATE-002')).toHaveLength(1);
  });

  it('reads a Reset the server repeated long past its moment as marking no window: a rise whose response may have come after it is RATE-003\'s', () => {
    const resetMs = NOW_MS + 2_000;
    // The rise's response was 800 ms in flight across the Reset (a busy machine): on the clock it may
    // have been handled before the Reset, or after the counter turned.
    const around = [
      { atMs: 0, remaining: 59, resetMs: NOW_MS + 4_000 },
      { atMs: 1_900, remaining: 30, resetMs },
      { atMs: 1_950, remaining: 59, resetMs, elapsedMs: 800 },
    ];
    expect(violations(judge(run(around)), 'RATE-002')).toHaveLength(1);
    // The same Reset named again 3 s after its moment: the server repeats a Reset that has passed.
    expect(judge(run([...around, { atMs: 5_000, remaining: 58, resetMs }]))).toEqual([]);
    // A rise surely more than the whole-second tolerance before such a Reset is still one window's.
    const later = NOW_MS + 5_000;
    const early = run([
      { atMs: 0, remaining: 59, resetMs: later },
      { atMs: 1_000, remaining: 30, resetMs: later },
      { atMs: 1_500, remaining: 59, resetMs: later },
      { atMs: 8_000, remaining: 58, resetMs: later },
    ]);
    expect(violations(judge(early), 'RATE-002')).toHaveLength(1);
  });

  it('passes the same run against one count per key', () => {
    for (const startMs of [0, 1000, 2500]) expect(judge(run(fixedWindow(requestsFrom(startMs, 3000), 3000, false)))).toEqual([]);
  });

  it('passes a token bucket\'s gradual refill, whatever the client\'s pace', () => {
    for (const gapMs of [10, 400, 2500]) {
      let tokens = 60;
      let last = 0;
      const told: Told[] = [];
      for (let i = 0; i < 80; i++) {
        const atMs = i * gapMs;
        tokens = Math.min(60, tokens + (atMs - last) / 1000) - 1;
        last = atMs;
        if (tokens < 0) {
          tokens += 1;
          continue;
        }
        told.push({ atMs, remaining: Math.floor(tokens), resetMs: NOW_MS + atMs + (60 - tokens) * 1000 });
      }
      expect(judge(run(told)), `one request every ${gapMs} ms`).toEqual([]);
    }
  });

  it('passes a sliding log giving back a burst in bulk once it is a window old', () => {
    const times: number[] = [];
    const told: Told[] = [];
    const request = (atMs: number): void => {
      while (times.length > 0 && (times[0] ?? 0) + 10_000 <= atMs) times.shift();
      times.push(atMs);
      told.push({ atMs, remaining: 60 - times.length, resetMs: NOW_MS + (times[0] ?? atMs) + 10_000 });
    };
    for (let i = 0; i < 30; i++) request(i * 3);
    for (let t = 500; t <= 12_000; t += 250) request(t);
    expect(judge(run(told))).toEqual([]);
  });

  it('fails a Remaining that stands still while the run\'s requests are served in a minute window', () => {
    const told: Told[] = Array.from({ length: 30 }, (_, i) => ({ atMs: 100 * i, remaining: 59, resetMs: NOW_MS + 60_000 }));
    expect(violations(judge(run(told)), 'RATE-002')).toHaveLength(1);
  });

  it('leaves requests served while Remaining stays 0 to RATE-005: no rise from 0 to 0', () => {
    // A limit never enforced: Remaining counts down to 0 and stays there while requests are served.
    const told: Told[] = Array.from({ length: 90 }, (_, i) => ({ atMs: 20 * i, remaining: Math.max(0, 59 - i), resetMs: NOW_MS + 60_000 }));
    expect(judge(run(told))).toEqual([]);
    // A real rise from 0 still fails.
    const rises: Told[] = [...told, { atMs: 20 * 90, remaining: 30, resetMs: NOW_MS + 60_000 }];
    expect(violations(judge(run(rises)), 'RATE-002')).toHaveLength(1);
  });

  it('says nothing where the windows are too short to know (1 s), across windows, or of falls beyond the run\'s own', () => {
    expect(judge(run(fixedWindow(requestsFrom(0, 1000), 1000, true)))).toEqual([]);
    const acrossWindows: Told[] = [
      { atMs: 0, remaining: 10, resetMs: NOW_MS + 3000 },
      { atMs: 3100, remaining: 59, resetMs: NOW_MS + 6000 },
    ];
    expect(judge(run(acrossWindows))).toEqual([]);
    const shared: Told[] = Array.from({ length: 20 }, (_, i) => ({ atMs: 100 * i, remaining: 59 - 3 * i, resetMs: NOW_MS + 60_000 }));
    expect(judge(run(shared))).toEqual([]);
  });

  it('counts only what the limiter saw: requests answered without Remaining owe no fall (issue 29)', () => {
    // The shape issue 29 reported, in a minute's window: 45 left after a fetch, then creates among
    // which malformed-JSON ones are refused 400 before the limiter runs (not counted), then 42.
    const between = [44, 44, 44, 43, 43, 43];
    const beforeLimiter = new Set([17, 18, 20, 21]);
    const told: Told[] = [
      ...Array.from({ length: 15 }, (_, i) => ({ atMs: 5 * i, remaining: 59 - i, resetMs: NOW_MS + 60_000 })),
      ...[...between, 42].map((remaining, i) => ({ atMs: 75 + 5 * i, remaining, resetMs: NOW_MS + 60_000, status: 400, method: 'POST' })),
    ];
    const withoutHeaders = run(told).map((ex) => {
      if (ex.response === undefined || !beforeLimiter.has(ex.seq)) return ex;
      const headers = Object.fromEntries(Object.entries(ex.response.headers).filter(([name]) => !name.startsWith('x-ratelimit-')));
      return { ...ex, response: { ...ex.response, headers } };
    });
    expect(judge(withoutHeaders)).toEqual([]);
    // Answered with Remaining, the same requests were handled by the limiter: not counting them is a rise.
    expect(violations(judge(run(told)), 'RATE-002')[0]?.message).toMatch(/^X-RateLimit-Remaining fell only from 4[45] \(exchange 1[56], /);
  });

  it('sizes windows from the longest time to a Reset, less what a Reset may overstate', () => {
    const early = run([{ atMs: 0, remaining: 59, resetMs: NOW_MS + 60_000 }]);
    // The Date's whole second: 2 s of slack when nothing shows the Reset closer to the truth.
    expect(shortestWindowMs(early, serverClockOf(early))).toBeGreaterThan(56_900);
    expect(shortestWindowMs(early, serverClockOf(early))).toBeLessThanOrEqual(58_000);
    // A response 100 ms before its Reset shows Resets overstate their moment by at most 1.1 s.
    const both = run([{ atMs: 0, remaining: 59, resetMs: NOW_MS + 3000 }, { atMs: 2900, remaining: 1, resetMs: NOW_MS + 3000 }]);
    expect(shortestWindowMs(both, serverClockOf(both))).toBeGreaterThan(1700);
    expect(shortestWindowMs([], undefined)).toBeUndefined();
  });
});
