/**
 * RATE-005's burst sent mid-run (the window top-up): only where a run sending one request at a
 * time cannot use up a window, only late in a window the run has used in good part, and only for
 * what that window has left; and the server clock it is timed by, read from Date headers.
 */
import { describe, expect, it } from 'vitest';
import { earliestServerNow, holdForWindowMs, latestServerNow as latestOf, planTopUp, topUpApproaching, TOP_UP_FROM_CONCURRENCY } from '../src/session/window-top-up.js';
import { serverClockOf } from '../src/checks/server-clock.js';
import { burstInputsOf } from '../src/session/burst.js';
import type { Exchange } from '../src/http/exchange.js';
import type { BurstInputs } from '../src/session/burst-plan.js';
import { NOW_MS, NOW_S, makeExchange } from './support/exchange-factory.js';

/** A slow target (80 ms) with a 3 s window on a Free plan, `remaining` left and `leftMs` to its Reset. */
function slow(remaining: number, leftMs: number, overrides: Partial<BurstInputs> = {}): BurstInputs {
  return { plan: 'free', limit: 60, remaining, reset: NOW_S + 3, serverNowMs: NOW_MS + 3000 - leftMs, latencyMs: 80, budgetLeft: 300, windowMs: 3000, ...overrides };
}

describe('planTopUp', () => {
  it('waits while the window has time enough, then tops up what it has left, no fresh window', () => {
    expect(planTopUp(slow(40, 1500))).toBeUndefined();
    const plan = planTopUp(slow(34, 520));
    expect(plan).toMatchObject({ kind: 'burst', expected: 35, windowLeftMs: 520 });
    expect(plan?.concurrency).toBeGreaterThanOrEqual(TOP_UP_FROM_CONCURRENCY);
    expect(plan?.waitFirstMs).toBeUndefined();
    // One window beyond limit + 1, as the burst at the end: a server that never refuses is still proven over.
    expect(plan?.spendCap).toBe(121);
  });

  it('tops up a window the run has used nearly up with all it has left at once, late enough', () => {
    // 9 requests at 80 ms need every sender at once only in the last 160 ms, and one round trip must still fit.
    expect(planTopUp(slow(8, 400))).toBeUndefined();
    expect(planTopUp(slow(8, 150))).toMatchObject({ kind: 'burst', expected: 9, concurrency: 9, windowLeftMs: 150 });
    expect(planTopUp(slow(8, 60))).toBeUndefined();
  });

  it('lets a window go that the run has used too little of, or that is too nearly over', () => {
    expect(planTopUp(slow(55, 600))).toBeUndefined();
    expect(planTopUp(slow(30, 100))).toBeUndefined();
  });

  it('is never planned where the run alone can use up a window (the limit probe does it for one request)', () => {
    expect(planTopUp(slow(34, 520, { latencyMs: 5, windowMs: 60_000, reset: NOW_S + 60, serverNowMs: NOW_MS + 60_000 - 520 }))).toBeUndefined();
    expect(planTopUp(slow(34, 520, { latencyMs: 50 }))).toBeUndefined();
    // A one-second window (the embedded server's) is left to the burst at the end, however slow the answers.
    expect(planTopUp(slow(34, 520, { windowMs: 1000, latencyMs: 200 }))).toBeUndefined();
  });

  it('needs the limit from the plan table and a Reset that places the window', () => {
    expect(planTopUp(slow(34, 520, { plan: undefined, limit: 57 }))).toBeUndefined();
    expect(planTopUp(slow(34, 520, { reset: 5 }))).toBeUndefined();
    expect(planTopUp(slow(34, 520, { remaining: undefined }))).toBeUndefined();
  });
});

describe('topUpApproaching', () => {
  it('tells cases sent together to go one at a time a round trip before the top-up needs 12 senders', () => {
    // 21 requests at 80 ms: 11 senders needed with 320 ms left (400 - 80), 13 with 270 ms left.
    expect(topUpApproaching(slow(20, 400))).toBe(false);
    expect(topUpApproaching(slow(20, 350))).toBe(true);
    // Never where no top-up is planned at all: a window the run has used too little of.
    expect(topUpApproaching(slow(55, 200))).toBe(false);
  });
});

describe('holdForWindowMs', () => {
  /** CREATE-003's 27 classes, four at a time (seven round trips: 560 ms at 80 ms), with the earliest clock reading 150 ms behind the latest. */
  const hold = (inputs: BurstInputs, earlierByMs = 150): number => holdForWindowMs(inputs, inputs.serverNowMs - earlierByMs, 27, 4);

  it('sends the cases at once where the window takes them whole and the top-up after them', () => {
    expect(hold(slow(44, 2500))).toBe(0);
    // 540 ms left after them: the top-up needs 6 senders then, and 7 two requests later.
    expect(hold(slow(44, 1100))).toBe(0);
  });

  it('holds them, until the window has surely ended, where they would cross its end', () => {
    // Only 300 ms left by the latest reading of the server's clock, 450 ms by the earliest.
    expect(hold(slow(44, 300))).toBe(450);
    // Over by the latest reading, not by the earliest: not sure yet.
    expect(hold(slow(44, -50))).toBe(100);
    expect(hold(slow(44, -50), 40)).toBe(0);
  });

  it("holds them where they would carry the window past the top-up's moment", () => {
    // 340 ms left after them: not the moment yet (9 senders), but past it (15) two requests later,
    // which may not pass the top-up's check: the top-up would be sent amid them or not at all.
    expect(hold(slow(44, 900))).toBe(1050);
  });

  it('never holds cases that use the window up themselves, a single case, or where no top-up is ever planned', () => {
    expect(hold(slow(20, 300))).toBe(0);
    expect(holdForWindowMs(slow(44, 300), NOW_MS, 1, 4)).toBe(0);
    expect(hold(slow(44, 300, { latencyMs: 5 }))).toBe(0);
    expect(hold(slow(44, 300, { windowMs: 1000, latencyMs: 200 }))).toBe(0);
    expect(hold(slow(44, 300, { plan: undefined, limit: 57 }))).toBe(0);
  });
});

describe('latestServerNow', () => {
  const at = (sentAt: number, dateS: number, elapsedMs = 80) =>
    makeExchange({ sentAt, elapsedMs, headers: { date: new Date(dateS * 1000).toUTCString() } });
  const latestServerNow = (exchanges: Exchange[], now: number) => latestOf(serverClockOf(exchanges), now);
  const earliestOf = (exchanges: Exchange[], now: number) => earliestServerNow(serverClockOf(exchanges), now);

  it('narrows the offset between the clocks to about one exchange across a second turn', () => {
    // The server's clock runs 300 ms ahead: its second turns at local NOW_MS + 700.
    const exchanges = [at(NOW_MS + 500, NOW_S), at(NOW_MS + 600, NOW_S), at(NOW_MS + 700, NOW_S + 1), at(NOW_MS + 800, NOW_S + 1)];
    const latest = latestServerNow(exchanges, NOW_MS + 1000);
    expect(latest).toBeDefined();
    // Never earlier than the truth (1300), and at most one exchange later.
    expect(latest).toBeGreaterThanOrEqual(NOW_MS + 1300);
    expect(latest).toBeLessThanOrEqual(NOW_MS + 1300 + 80 + 100);
  });

  it('has an earliest reading never later than the truth, and about one exchange earlier', () => {
    const exchanges = [at(NOW_MS + 500, NOW_S), at(NOW_MS + 600, NOW_S), at(NOW_MS + 700, NOW_S + 1), at(NOW_MS + 800, NOW_S + 1)];
    const earliest = earliestOf(exchanges, NOW_MS + 1000);
    expect(earliest).toBeDefined();
    expect(earliest).toBeLessThanOrEqual(NOW_MS + 1300);
    expect(earliest).toBeGreaterThanOrEqual(NOW_MS + 1300 - 80 - 100);
    expect(earliestOf([makeExchange({ headers: { date: undefined } })], NOW_MS)).toBeUndefined();
  });

  it('is the end of the last Date second without more to go on, and undefined without a Date', () => {
    expect(latestServerNow([at(NOW_MS, NOW_S, 10)], NOW_MS + 10)).toBe(NOW_MS + 1010);
    expect(latestServerNow([makeExchange({ headers: { date: undefined } })], NOW_MS)).toBeUndefined();
  });

  it('goes by the freshest Date when an earlier one lagged (a cache), never beyond that Date\'s own second', () => {
    // The first Date was cached 5 s before it was served: the second response shows the clock.
    const latest = latestServerNow([at(NOW_MS, NOW_S), at(NOW_MS + 100, NOW_S + 5)], NOW_MS + 200);
    expect(latest).toBeGreaterThanOrEqual(NOW_MS + 5_000 + 200 - 180);
    expect(latest).toBeLessThanOrEqual(NOW_MS + 6_000 + 100);
  });
});

describe('the top-up plans on what the limiter said last', () => {
  it('leaves out responses without Remaining (refused before the limiter ran): they say nothing of the window', () => {
    const counted = makeExchange({ seq: 1, sentAt: NOW_MS, elapsedMs: 80, headers: { 'x-ratelimit-remaining': '20', 'x-ratelimit-reset': String(NOW_S + 3) } });
    const refused = makeExchange({
      seq: 2,
      method: 'POST',
      status: 400,
      sentAt: NOW_MS + 100,
      elapsedMs: 80,
      headers: { 'x-ratelimit-limit': undefined, 'x-ratelimit-remaining': undefined, 'x-ratelimit-reset': undefined },
    });
    expect(burstInputsOf([counted, refused], 'free', 300)).toMatchObject({ limit: 60, remaining: 20, reset: NOW_S + 3 });
  });
});
