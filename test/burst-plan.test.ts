/**
 * RATE-005's burst planning and judgement, with plain numbers: which limit is tested, how many
 * senders, the spend cap, and when a window has served too many.
 */
import { describe, expect, it } from 'vitest';
import { MAX_CONCURRENCY, achievedPaceMs, concurrencyFor, limitFromPlan, planBurst, retryConcurrency, retrySpendCap, type BurstInputs } from '../src/session/burst-plan.js';
import { BurstTally, type BurstResponse } from '../src/session/burst-tally.js';

const NOW = Date.UTC(2030, 0, 1, 0, 0, 30);
const WINDOW_END_S = Date.UTC(2030, 0, 1, 0, 1, 0) / 1000;

function inputs(over: Partial<BurstInputs> = {}): BurstInputs {
  return { limit: 60, remaining: 10, reset: WINDOW_END_S, serverNowMs: NOW, latencyMs: 5, budgetLeft: 300, ...over };
}

describe('planBurst', () => {
  it('tests the plan\'s limit when --plan is given, whatever the headers claim', () => {
    const plan = planBurst(inputs({ plan: 'free', limit: 7_201_553, remaining: 10_999_730 }));
    expect(plan).toMatchObject({ kind: 'burst', tested: { limit: 60, fromPlan: true }, expected: 61, spendCap: 121 });
  });

  it('tests a custom plan\'s per-minute limit, and never guesses a custom plan from the headers', () => {
    const plan = planBurst(inputs({ plan: 'custom:500/50000', limit: 60, remaining: 59, budgetLeft: 2_000 }));
    expect(plan).toMatchObject({ kind: 'burst', tested: { limit: 500, fromPlan: true, source: 'the custom:500/50000 plan (--plan)' }, spendCap: 1_001 });
    expect(planBurst(inputs({ plan: 'custom:500/50000', budgetLeft: 400 }))).toMatchObject({ kind: 'cannot', reason: expect.stringContaining('needs 501') as unknown });
    expect(limitFromPlan(undefined, 500)).toBeUndefined();
  });

  it('takes an advertised Limit that is a plan\'s limit as that plan', () => {
    expect(limitFromPlan(undefined, 300)).toMatchObject({ limit: 300, fromPlan: true, source: expect.stringContaining('pro') as unknown });
    expect(limitFromPlan(undefined, 61)).toBeUndefined();
  });

  it('expects the 429 after the plausible Remaining, and plans concurrency on it', () => {
    const plan = planBurst(inputs({ plan: 'free', remaining: 10 }));
    expect(plan).toMatchObject({ kind: 'burst', expected: 11, windowLeftMs: 30_000, concurrency: 1 });
  });

  it('is inconclusive, saying why, when advertised numbers are implausible and no plan is known', () => {
    const plan = planBurst(inputs({ limit: 7_201_553, remaining: 10_999_730 }));
    expect(plan).toEqual({ kind: 'cannot', reason: expect.stringContaining('Remaining 10999730 exceeds the advertised Limit') as unknown });
    const over = planBurst(inputs({ limit: 5_000, remaining: 4_000 }));
    expect(over).toEqual({ kind: 'cannot', reason: expect.stringContaining('advertised Remaining 4000 exceeds the budget') as unknown });
    expect(planBurst(inputs({ limit: 5_000, remaining: undefined }))).toMatchObject({ kind: 'cannot' });
    expect(planBurst(inputs({ limit: 50, reset: 30 }))).toMatchObject({ kind: 'cannot', reason: expect.stringContaining('not a Unix time') as unknown });
  });

  it('is inconclusive when the budget cannot reach limit + 1', () => {
    expect(planBurst(inputs({ plan: 'pro', budgetLeft: 200 }))).toMatchObject({ kind: 'cannot', reason: expect.stringContaining('needs 301') as unknown });
  });

  it('never plans to spend more than the budget left', () => {
    expect(planBurst(inputs({ plan: 'free', budgetLeft: 80 }))).toMatchObject({ kind: 'burst', spendCap: 80 });
  });

  it('waits for a fresh window when too little of this one is left to reach its limit', () => {
    // 50 requests of 80 ms in 0.5 s would need 16 senders; the window is 3 s long.
    const plan = planBurst(inputs({ plan: 'free', remaining: 49, reset: NOW / 1000 + 0.5, latencyMs: 80, windowMs: 3_000 }));
    expect(plan).toMatchObject({ kind: 'burst', waitFirstMs: 750, expected: 61, windowLeftMs: 3_000, concurrency: 4 });
  });

  it('starts at once when the rest of the window is enough', () => {
    const plan = planBurst(inputs({ plan: 'free', remaining: 20, reset: NOW / 1000 + 2, latencyMs: 80, windowMs: 3_000 }));
    expect(plan).toMatchObject({ kind: 'burst', expected: 21, windowLeftMs: 2_000, concurrency: 2 });
    expect(plan).not.toHaveProperty('waitFirstMs');
  });

  it('uses a whole spec window when Reset gives no time left', () => {
    expect(planBurst(inputs({ plan: 'free', reset: 12 }))).toMatchObject({ kind: 'burst', windowLeftMs: 60_000 });
  });
});

describe('concurrency', () => {
  it('sends one at a time when the requests fit half the time left', () => {
    expect(concurrencyFor(61, 5, 60_000)).toBe(1);
  });

  it('sends enough at once for a slow target to fit half of a short window', () => {
    // 61 requests of 80 ms in half of 3 s: ceil(4880 / 1500) = 4.
    expect(concurrencyFor(61, 80, 3_000)).toBe(4);
  });

  it('is capped, and never exceeds the requests to send', () => {
    expect(concurrencyFor(1_001, 500, 1_000)).toBe(MAX_CONCURRENCY);
    expect(concurrencyFor(3, 500, 100)).toBe(3);
  });

  it('at least doubles on the second try', () => {
    expect(retryConcurrency(4, 61, 80, 3_000)).toBe(8);
    expect(retryConcurrency(20, 61, 80, 3_000)).toBe(MAX_CONCURRENCY);
  });

  it('plans the second try at the slower of the latency and the pace the first try achieved', () => {
    // 2 senders got 40 answers in 2 s: 100 ms each, where the latency said 10.
    expect(achievedPaceMs(2_000, 2, 40)).toBe(100);
    expect(retryConcurrency(2, 61, 10, 2_000, 100)).toBe(7);
    expect(retryConcurrency(2, 61, 100, 2_000, 10)).toBe(7);
    expect(retryConcurrency(2, 61, 10, 2_000)).toBe(4);
  });

  it('has no pace before an answer, and none from a clock that went back', () => {
    expect(achievedPaceMs(500, 4, 0)).toBe(0);
    expect(achievedPaceMs(-30, 4, 10)).toBe(0);
  });
});

describe('retrySpendCap', () => {
  const tested = { limit: 60, source: 'the free plan (--plan)', fromPlan: true };

  it('gives the second try a fresh window\'s cap on top of what the first spent', () => {
    expect(retrySpendCap({ spendCap: 121, budgetLeft: 400, tested }, 60)).toBe(60 + 121);
  });

  it('stays within the run\'s budget, and never below the first try\'s cap', () => {
    expect(retrySpendCap({ spendCap: 121, budgetLeft: 150, tested }, 60)).toBe(150);
    expect(retrySpendCap({ spendCap: 100, budgetLeft: 100, tested }, 60)).toBe(100);
    expect(retrySpendCap({ spendCap: 121, budgetLeft: 400, tested }, 0)).toBe(121);
  });
});

const FREE = { limit: 60, source: 'the free plan (--plan)', fromPlan: true };

function served(n: number, from: number, over: Partial<BurstResponse> = {}): BurstResponse[] {
  return Array.from({ length: n }, (_, i) => ({ seq: from + i, status: 200, limit: 60, remaining: Math.max(0, 59 - i), reset: WINDOW_END_S, sentAt: NOW + i * 10, receivedAt: NOW + i * 10 + 5, ...over }));
}

describe('BurstTally', () => {
  it('judges nothing when the 429 comes within the limit', () => {
    const tally = new BurstTally(FREE);
    for (const r of served(60, 1)) expect(tally.add(r).kind).toBe('continue');
    expect(tally.add({ seq: 61, status: 429, reset: WINDOW_END_S, sentAt: NOW + 700, receivedAt: NOW + 705 })).toEqual({ kind: 'refused' });
    expect(tally.excess()).toEqual({});
  });

  it('fails a window that served the plan\'s limit + 1 without a 429', () => {
    const tally = new BurstTally(FREE);
    for (const r of served(61, 1)) tally.add(r);
    expect(tally.excess().violation).toMatch(/^61 requests served in 0\.6 s within one window \(X-RateLimit-Reset \d+ on each\), none refused \/ Expected 429 once 60/);
  });

  it('allows what a limiter refilling at the plan\'s rate adds over a longer burst', () => {
    const slow = (n: number) => served(n, 1).map((r, i) => ({ ...r, sentAt: NOW + i * 70, receivedAt: NOW + i * 70 + 5 }));
    // 64 answered over 4.4 s: up to 4 refilled requests are allowed, so 64 is no proof.
    const within = new BurstTally(FREE);
    for (const r of slow(64)) within.add(r);
    expect(within.excess()).toEqual({});
    const over = new BurstTally(FREE);
    for (const r of slow(66)) over.add(r);
    expect(over.excess().violation).toMatch(/^66 requests served in 4\.6 s .* \(at most 64, allowing for a limiter that refills at that rate\)$/);
  });

  it('fails a valid request the burst expected over the limit and refused with another status while its siblings got 429', () => {
    // The window's 60, then the three sent together once nothing was left: two 429s and a 503.
    const group = (status: number, seq: number): BurstResponse => ({ seq, status, limit: 60, remaining: 0, reset: WINDOW_END_S, sentAt: NOW + 700, receivedAt: NOW + 705, expectedOver: true });
    const feed = (tally: BurstTally, responses: BurstResponse[]): BurstTally => {
      for (const r of responses) tally.add(r);
      return tally;
    };
    const over = [...served(60, 1), group(429, 61), group(503, 62), group(429, 63)];
    expect(feed(new BurstTally(FREE, { validRequests: true }), over).excess().violation).toMatch(/^exchange #62, sent when its window .* had nothing left by its own X-RateLimit-Remaining, while that window answered 429, received 503 \/ Expected 429/);
    // The run's own requests (the limit probe's window) may be refused for what they are: not judged
    // so (here only the count fails it: the 503 was counted, 61 in a window too short to refill).
    expect(feed(new BurstTally(FREE), over).excess().violation).not.toContain('received 503');
    // A 503 the burst did not expect over the limit says nothing of the limiter.
    const early = [...served(58, 1), { ...group(503, 59), expectedOver: false }, ...served(1, 60, { remaining: 0 }), group(429, 61)];
    expect(feed(new BurstTally(FREE, { validRequests: true }), early).excess()).toEqual({});
  });

  it('takes no group member served beside its 429 for the window\'s excess (a count kept per operation, RATE-002\'s), but counts it where the window refused none', () => {
    const member = (status: number, seq: number): BurstResponse => ({ seq, status, limit: 60, remaining: status === 429 ? 0 : 59, reset: WINDOW_END_S, sentAt: NOW + 700, receivedAt: NOW + 705, expectedOver: true });
    const beside = new BurstTally(FREE, { validRequests: true });
    for (const r of [...served(60, 1), member(200, 61), member(200, 62), member(429, 63)]) beside.add(r);
    expect(beside.excess()).toEqual({ observation: expect.stringMatching(/served exchange\(s\) #61, #62, sent over the limit together with a request it refused 429/) as unknown });
    // However many of the group each count still serves: only what the window served besides them is judged.
    const more = new BurstTally(FREE, { validRequests: true });
    for (const r of [...served(61, 1), member(200, 62), member(429, 63)]) more.add(r);
    expect(more.excess().violation).toMatch(/^61 requests served in .* before its 429 \(and 1 sent over the limit together with a request it refused 429, not counted\) \/ Expected 429 once 60/);
    // No 429 in the window: the group was served like any other request, and its excess counts.
    const none = new BurstTally(FREE, { validRequests: true });
    for (const r of [...served(60, 1), member(200, 61), member(200, 62)]) none.add(r);
    expect(none.excess().violation).toMatch(/^62 requests served .* none refused/);
  });

  it('proves the excess at once at 2 × limit + 1 in one window', () => {
    const tally = new BurstTally(FREE);
    const events = served(121, 1).map((r) => tally.add(r).kind);
    expect(events.slice(0, 120)).not.toContain('over');
    expect(events[120]).toBe('over');
  });

  it('accepts a target that enforces the Limit it advertises consistently (RATE-004 judges that limit)', () => {
    const tally = new BurstTally(FREE);
    for (const r of served(100, 1, { limit: 100 })) tally.add(r);
    tally.add({ seq: 101, status: 429, reset: WINDOW_END_S, sentAt: NOW + 1_000, receivedAt: NOW + 1_005 });
    expect(tally.excess()).toEqual({ observation: expect.stringContaining('enforces its advertised X-RateLimit-Limit 100') as unknown });
  });

  it('leaves to RATE-004 a window cut short within the Limit it advertised, and fails one served past it', () => {
    // The window ended after 93 of the advertised 100: the excess over 60 is the Limit's, not a missed 429.
    const cut = new BurstTally(FREE);
    for (const r of served(93, 1, { limit: 100 })) cut.add(r);
    expect(cut.excess()).toEqual({ observation: expect.stringContaining('stayed within its advertised X-RateLimit-Limit 100') as unknown });
    const past = new BurstTally(FREE);
    for (const r of served(101, 1, { limit: 100 })) past.add(r);
    expect(past.excess().violation).toMatch(/^101 requests served .* none refused \/ Expected 429 once 60/);
  });

  it('does not add requests of two windows together', () => {
    const tally = new BurstTally(FREE);
    for (const r of served(40, 1)) tally.add(r);
    const next = served(40, 41, { reset: WINDOW_END_S + 60 });
    expect(tally.add(next[0] as BurstResponse).kind).toBe('window-ended');
    for (const r of next.slice(1)) expect(tally.add(r).kind).toBe('continue');
    expect(tally.excess()).toEqual({});
  });

  it('without a usable Reset, fails by count alone: 2 × limit + 1 served in under a minute', () => {
    const tally = new BurstTally(FREE);
    const events = served(121, 1, { reset: Math.floor(Math.random() * 1e7), limit: 5 }).map((r) => tally.add(r));
    expect(events.at(-1)).toEqual({ kind: 'over', message: expect.stringMatching(/^121 requests served in 1\.2 s, less than one 60 s window, none refused/) as unknown });
  });

  it('trusts a Reset shared by many responses over the count: short windows may serve 2 × limit + 1 in under a minute', () => {
    const tally = new BurstTally(FREE);
    // 1 s windows of 100 (the limit RATE-004 judges): 50 in one, 71 in the next, neither over 100.
    const events = [...served(50, 1, { limit: 100 }), ...served(71, 51, { limit: 100, reset: WINDOW_END_S + 1 })].map((r) => tally.add(r).kind);
    expect(events).not.toContain('over');
  });

  it('does not trust made-up Unix times that differ on every response', () => {
    const tally = new BurstTally(FREE);
    const events = served(121, 1).map((r, i) => tally.add({ ...r, reset: WINDOW_END_S + i * 7 }));
    expect(events.slice(0, 120).map((e) => e.kind)).toEqual(Array(120).fill('continue'));
    expect(events.at(-1)).toMatchObject({ kind: 'over' });
  });

  it('without a usable Reset, counts what the limiter saw: a 4xx without the headers may have been refused before it ran', () => {
    // No headers at all: 120 served listings and a malformed-JSON 400 answered before the limiter is no proof of 121 served.
    const headerless = { reset: undefined, remaining: undefined, limit: undefined };
    const tally = new BurstTally(FREE);
    const events = [...served(120, 1, headerless), { ...served(1, 121, headerless)[0], status: 400 } as BurstResponse].map((r) => tally.add(r).kind);
    expect(events).not.toContain('over');
    expect(tally.add(served(1, 122, headerless)[0] as BurstResponse).kind).toBe('over');
  });

  it('without a usable Reset, starts the count again after a minute', () => {
    const tally = new BurstTally(FREE);
    const slow = served(121, 1, { reset: undefined }).map((r, i) => ({ ...r, sentAt: NOW + i * 600, receivedAt: NOW + i * 600 + 5 }));
    const kinds = slow.map((r) => tally.add(r).kind);
    expect(kinds).not.toContain('over');
    expect(kinds).toContain('window-ended');
  });

  it('without a plan, holds the window to what its own Remaining announced', () => {
    const tally = new BurstTally({ limit: 10, source: 'X-RateLimit-Limit 10 as advertised', fromPlan: false });
    // Remaining said 2 left after the first: a fourth served request is one too many.
    const rs = [2, 1, 0, 0].map((remaining, i) => ({ seq: i + 1, status: 200, remaining, reset: WINDOW_END_S, sentAt: NOW, receivedAt: NOW + 1 }));
    expect(rs.slice(0, 3).map((r) => tally.add(r).kind)).toEqual(['continue', 'continue', 'continue']);
    expect(tally.add(rs[3] as BurstResponse)).toEqual({ kind: 'over', message: expect.stringContaining('after X-RateLimit-Remaining announced 3') as unknown });
  });

  it('without a plan, reordered concurrent responses do not make a false excess', () => {
    const tally = new BurstTally({ limit: 3, source: 'x', fromPlan: false });
    // seq 2 (Remaining 1) arrives before seq 1 (Remaining 2): the window still allowed 3.
    const order = [
      { seq: 2, remaining: 1 },
      { seq: 1, remaining: 2 },
      { seq: 3, remaining: 0 },
    ];
    for (const o of order) expect(tally.add({ ...o, status: 200, reset: WINDOW_END_S, sentAt: NOW, receivedAt: NOW }).kind).toBe('continue');
  });
});
