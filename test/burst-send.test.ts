/**
 * The burst and the daily-quota loop against simulated servers (fake send functions with their
 * own counters), so the sending rules are pinned without a network: stop at the first 429, no
 * more in flight than the window can still serve, the spend cap, one retry when a window ends.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Exchange } from '../src/http/exchange.js';
import { OVER_LIMIT_OPERATIONS, planBurst, type BurstOperation } from '../src/session/burst-plan.js';
import { runBurst, runPlannedBurst } from '../src/session/burst.js';
import { exhaustDailyQuota } from '../src/session/daily-quota.js';

/** A window that outlasts the test, however long a busy machine takes to run it. */
const RESET_S = Math.floor(Date.now() / 1000) + 600;

function exchange(seq: number, status: number, headers: Record<string, string>): Exchange {
  return {
    seq,
    request: { method: 'GET', url: 'http://x/v1/pets', target: '/pets', headers: {}, auth: 'key' },
    response: { status, headers, bodyText: '', truncated: false },
    sentAt: Date.now(),
    elapsedMs: 1,
    purpose: 'test',
  };
}

/** A fixed window of `limit` that never ends during the test; each answer takes `delayMs`. */
function windowServer(limit: number, options: { delayMs?: number; enforce?: boolean } = {}) {
  let seq = 0;
  let used = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const send = async (): Promise<Exchange> => {
    const mine = ++seq;
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const over = used >= limit && options.enforce !== false;
    if (!over) used += 1;
    await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 1));
    inFlight -= 1;
    const headers = { 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(Math.max(0, limit - used)), 'x-ratelimit-reset': String(RESET_S) };
    return exchange(mine, over ? 429 : 200, over ? { ...headers, 'retry-after': '30' } : headers);
  };
  return { send, stats: () => ({ sent: seq, maxInFlight }) };
}

const noSleep = (): Promise<void> => Promise.resolve();

function planFor(remaining: number, concurrencyHint: { latencyMs: number }) {
  const plan = planBurst({ plan: 'free', limit: 60, remaining, reset: RESET_S, serverNowMs: Date.now(), latencyMs: concurrencyHint.latencyMs, budgetLeft: 400 });
  if (plan.kind !== 'burst') throw new Error(plan.reason);
  return { ...plan, concurrency: 8 };
}

/** A fixed window of 60 whose headers are fixed when it counts the request (as a limiter does), `used` already spent; answers take 1 to 3 ms. */
function countingServer(used: number) {
  let seq = 0;
  let count = used;
  const send = async (): Promise<Exchange> => {
    const mine = ++seq;
    const over = count >= 60;
    if (!over) count += 1;
    const headers = { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': String(60 - count), 'x-ratelimit-reset': String(RESET_S) };
    await new Promise((resolve) => setTimeout(resolve, 1 + (mine % 3)));
    return exchange(mine, over ? 429 : 200, over ? { ...headers, 'retry-after': '30' } : headers);
  };
  return { send };
}

/** A window of 60, `used` of it spent, that ends after the burst's 14th request (Reset moves on), then a fresh one. */
function endingWindow(used: number): () => Promise<Exchange> {
  let seq = 0;
  let count = used;
  let reset = RESET_S - 300;
  return () => {
    if (seq === 14) [reset, count] = [RESET_S, 0];
    const over = count >= 60;
    if (!over) count += 1;
    const headers = { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': String(60 - count), 'x-ratelimit-reset': String(reset) };
    return Promise.resolve(exchange(++seq, over ? 429 : 200, over ? { ...headers, 'retry-after': '3' } : headers));
  };
}

/** A send that records which operation each request was sent as, and which of them met a 429. */
function byOperation(send: () => Promise<Exchange>) {
  const sent: BurstOperation[] = [];
  const refused: BurstOperation[] = [];
  return {
    send: async (operation: BurstOperation): Promise<Exchange> => {
      sent.push(operation);
      const ex = await send();
      if (ex.response?.status === 429) refused.push(operation);
      return ex;
    },
    sent,
    refused,
  };
}

describe('runPlannedBurst', () => {
  // Where the window stands when the burst starts (its phase): full, half used, nearly used up, used up.
  for (const used of [0, 30, 59, 60]) {
    it(`the 429s fall on the plan's over-limit operations, one each, with ${used} of the window's 60 used first`, async () => {
      const ops = byOperation(countingServer(used).send);
      const result = await runPlannedBurst(planFor(60 - used, { latencyMs: 2 }), ops.send, noSleep);
      expect(result.outcome).toBe('refused');
      expect(ops.refused.sort()).toEqual([...OVER_LIMIT_OPERATIONS].sort());
      // Every request the window served was the filler; the group is the only thing sent over the limit.
      expect(ops.sent.slice(0, 60 - used).every((op) => op === 'listPets')).toBe(true);
      expect(result.spent).toBe(60 - used + OVER_LIMIT_OPERATIONS.length);
    });
  }

  it('a window that ends first serves the group, and the next group meets the 429s', async () => {
    // A window of 60 that ends after the burst's 14th request, then a fresh one.
    const ops = byOperation(endingWindow(46));
    const result = await runPlannedBurst({ ...planFor(14, { latencyMs: 1 }), concurrency: 1 }, ops.send, noSleep);
    expect(result.outcome).toBe('refused');
    expect(ops.refused.sort()).toEqual([...OVER_LIMIT_OPERATIONS].sort());
  });

  it('sends no more of the group than the spend cap allows, the first operation first', async () => {
    const ops = byOperation(countingServer(55).send);
    const result = await runPlannedBurst({ ...planFor(5, { latencyMs: 1 }), spendCap: 6 }, ops.send, noSleep);
    expect(result.spent).toBe(6);
    expect(ops.sent.at(-1)).toBe(OVER_LIMIT_OPERATIONS[0]);
  });

  it('runBurst, for a caller that sends one request whatever the operation, sends one request over the limit', async () => {
    const result = await runBurst({ ...planFor(10, { latencyMs: 1 }), overLimit: OVER_LIMIT_OPERATIONS }, countingServer(50).send, noSleep);
    expect(result.spent).toBe(11);
  });
});

describe('runBurst', () => {
  it('stops at the first 429 and sends nothing after it beyond what was in flight', async () => {
    const server = windowServer(60);
    const result = await runBurst(planFor(60, { latencyMs: 1 }), server.send, noSleep);
    expect(result.outcome).toBe('refused');
    expect(result.served).toBe(60);
    // 8 senders, but once Remaining reached 0 only one request was let out at a time.
    expect(server.stats().sent).toBe(61);
    expect(result.throttled?.response?.status).toBe(429);
  });

  it('fails a window that serves the plan\'s limit + 1 and stops at the proof', async () => {
    const server = windowServer(60, { enforce: false });
    const result = await runBurst(planFor(60, { latencyMs: 1 }), server.send, noSleep);
    expect(result.outcome).toBe('over');
    expect(result.message).toMatch(/^121 requests served .* within one window/);
    expect(result.spent).toBeLessThanOrEqual(121);
  });

  it('keeps a proven excess when the budget runs out before the proof is complete', async () => {
    const server = windowServer(60, { enforce: false });
    let calls = 0;
    const send = (): Promise<Exchange> => (++calls > 70 ? Promise.reject(new Error('budget exhausted')) : server.send());
    const result = await runBurst(planFor(60, { latencyMs: 1 }), send, noSleep);
    expect(result.outcome).toBe('over');
    expect(result.message).toMatch(/^70 requests served .* none refused \/ Expected 429 once 60/);
  });

  it('rethrows a client error when nothing was proven (the test wrapper makes it inconclusive)', async () => {
    const server = windowServer(60);
    let calls = 0;
    const send = (): Promise<Exchange> => (++calls > 10 ? Promise.reject(new Error('budget exhausted')) : server.send());
    await expect(runBurst(planFor(60, { latencyMs: 1 }), send, noSleep)).rejects.toThrow('budget exhausted');
  });

  it('never has more requests in flight than the senders planned', async () => {
    const server = windowServer(60, { delayMs: 5 });
    await runBurst(planFor(60, { latencyMs: 5 }), server.send, noSleep);
    expect(server.stats().maxInFlight).toBeLessThanOrEqual(8);
  });

  it('waits first when the plan says so', async () => {
    const server = windowServer(60);
    const waits: number[] = [];
    await runBurst({ ...planFor(60, { latencyMs: 1 }), waitFirstMs: 1_234 }, server.send, (ms) => {
      waits.push(ms);
      return Promise.resolve();
    });
    expect(waits).toEqual([1_234]);
  });
  it('tries once more when the first window ends before its limit, and says what that window took', async () => {
    // A window of 60 that ends after its 14th request (Reset moves on), then a fresh one.
    const send = endingWindow(0);
    const result = await runBurst({ ...planFor(60, { latencyMs: 1 }), concurrency: 1 }, send, noSleep);
    expect(result.outcome).toBe('refused');
    expect(result.concurrency).toHaveLength(2);
    // Sent when the end showed: the first window's 14 and the request whose response showed it.
    expect(result.spentBeforeRetry).toBe(15);
    // The first window's 14, then the fresh window's 60 and the 429 that ends it.
    expect(result.spent).toBe(14 + 61);
  });

  it('fails a window that served more than the limit even when a later window ended the burst', async () => {
    // A server that never refuses: its first window ends after 20 of the burst's requests, the
    // second serves 80 (20 past the limit) and ends too. The burst stops at the second end, with
    // the excess of the second window already proven: that is a failure, not "could not tell".
    let seq = 0;
    const send = (): Promise<Exchange> => {
      seq += 1;
      const reset = seq <= 20 ? RESET_S - 300 : seq <= 100 ? RESET_S - 200 : RESET_S;
      const headers = { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) };
      return Promise.resolve(exchange(seq, 200, headers));
    };
    const result = await runBurst({ ...planFor(60, { latencyMs: 1 }), concurrency: 1 }, send, noSleep);
    expect(result.served).toBe(101);
    expect(result.outcome).toBe('over');
    expect(result.message).toMatch(/^80 requests served .* none refused \/ Expected 429 once 60/);
  });

  it('gives the second try a fresh window\'s cap, so a server that never refuses shows its excess there', async () => {
    // Never refuses. The burst starts with 46 announced left; its first window ends after 59 of
    // its requests (13 more than announced, not proof by themselves), the second after 100,
    // answered one every 50 ms (a refilling limiter could add 5 in 5 s). Within the first try's
    // cap alone (121) the second window would show 62, inside that allowance.
    let seq = 0;
    const start = Date.now();
    const send = (): Promise<Exchange> => {
      seq += 1;
      const reset = seq < 60 ? RESET_S - 300 : seq < 160 ? RESET_S - 200 : RESET_S;
      const headers = { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) };
      return Promise.resolve({ ...exchange(seq, 200, headers), sentAt: start + 50 * seq });
    };
    const result = await runBurst({ ...planFor(46, { latencyMs: 1 }), concurrency: 1 }, send, noSleep);
    expect(result.spentBeforeRetry).toBe(60);
    expect(result.outcome).toBe('over');
    expect(result.message).toMatch(/^100 requests served in 5\.0 s .* none refused \/ Expected 429 once 60 .*at most 64/);
  });

  describe('on a client slower than its latencies say', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('plans the second try from the pace the first achieved, so a fresh window still holds the limit + 1', async () => {
      // Windows of 2 s (Reset on whole seconds); every exchange reports 1 ms, yet each sender
      // gets its next answer only 100 ms later (a starved client: the time goes between
      // requests, not into them). One sender fills 20 of the first window. Planned from the 1 ms
      // alone the second try would have 2 senders, 40 requests a window, and end again short of
      // 61; from the 100 ms achieved, 7 senders fill it. A fake clock: the windows must not
      // depend on how busy the machine is.
      vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
      vi.setSystemTime(Date.UTC(2026, 10, 29, 0, 0, 0));
      const WINDOW_MS = 2_000;
      let seq = 0;
      let window = -1;
      let used = 0;
      const send = async (): Promise<Exchange> => {
        const sentAt = Date.now();
        const current = Math.floor(sentAt / WINDOW_MS);
        if (current !== window) [window, used] = [current, 0];
        const over = used >= 60;
        if (!over) used += 1;
        const headers = { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': String(60 - used), 'x-ratelimit-reset': String(((current + 1) * WINDOW_MS) / 1000) };
        const mine = exchange(++seq, over ? 429 : 200, over ? { ...headers, 'retry-after': '2' } : headers);
        await new Promise((resolve) => setTimeout(resolve, 100));
        return { ...mine, sentAt };
      };
      const plan = planBurst({ plan: 'free', limit: 60, remaining: 60, reset: (Date.now() + WINDOW_MS) / 1000, serverNowMs: Date.now(), latencyMs: 1, budgetLeft: 400, windowMs: WINDOW_MS });
      if (plan.kind !== 'burst') throw new Error(plan.reason);
      expect(plan.concurrency).toBe(1);
      const done = runBurst(plan, send, noSleep);
      await vi.runAllTimersAsync();
      const result = await done;
      expect(result.concurrency[1]).toBeGreaterThanOrEqual(7);
      expect(result.outcome).toBe('refused');
      expect(result.spentBeforeRetry).toBe(21);
    });
  });

  it('says nothing of a retry when the first window held the burst', async () => {
    const result = await runBurst(planFor(60, { latencyMs: 1 }), windowServer(60).send, noSleep);
    expect(result.concurrency).toHaveLength(1);
    expect(result.spentBeforeRetry).toBeUndefined();
  });
});

describe('exhaustDailyQuota', () => {
  /** Per-minute windows that never bind (a fresh one each request), and a day of `perDay`. */
  function dayServer(perDay: number, enforce: boolean) {
    let seq = 0;
    let served = 0;
    const dayEnd = Math.floor(Date.now() / 1000) + 3_600;
    const send = (paced: boolean): Promise<Exchange> => {
      const over = enforce && served >= perDay;
      if (!over) served += 1;
      const left = perDay - served;
      const dayBinds = left < 60;
      const headers = { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': String(dayBinds ? Math.max(0, left) : 59), 'x-ratelimit-reset': String(dayBinds ? dayEnd : Math.floor(Date.now() / 1000) + 30) };
      sent.push(paced);
      return Promise.resolve(exchange(++seq, over ? 429 : 200, over ? { ...headers, 'retry-after': String(3_600) } : headers));
    };
    const sent: boolean[] = [];
    return { send, served: () => served, sent };
  }

  const base = { plan: 'free' as const, windowMs: 60_000, runStartedAt: Date.now(), now: Date.now };

  it('ends on the 429 that says the day is used up, sent without waiting for its Reset', async () => {
    const server = dayServer(1_000, true);
    const notes: string[] = [];
    const outcome = await exhaustDailyQuota({ ...base, send: server.send, served: server.served, note: (m) => notes.push(m) });
    expect(outcome).toMatchObject({ kind: 'refused', served: 1_000 });
    expect(server.sent.at(-1)).toBe(false);
    expect(server.sent.slice(0, 999).every((paced) => paced)).toBe(true);
    expect(notes[0]).toMatch(/up to 1,000 requests, about 17 minutes at 60 a minute/);
    expect(notes.length).toBeGreaterThan(5);
  });

  it('fails when more than the day\'s quota is served', async () => {
    const server = dayServer(1_000, false);
    const outcome = await exhaustDailyQuota({ ...base, send: server.send, served: server.served, note: () => undefined });
    expect(outcome).toMatchObject({ kind: 'not-enforced', served: 1_001 });
  });
});
