/**
 * Section 8 judged against behaviour and against other headers: early 429s (RATE-002), refills
 * before Reset (RATE-003), Retry-After against Reset and against the retry (RATE-006), and a
 * plausible, stable Limit (RATE-008).
 */
import { describe, expect, it } from 'vitest';
import { checkEarly429, findEarly429s } from '../src/checks/early-429.js';
import { sharedKeyAllowance } from '../src/checks/key-use.js';
import { checkRateLimitHeaders } from '../src/checks/rate-limit-headers.js';
import { checkGiveBackBeforeDistantReset, checkLimitStable, checkRateLimitPair, checkRefillBeforeReset, openDistantResets } from '../src/checks/rate-limit-sequence.js';
import { checkRetryAfterAgreesWithReset, checkRetryHonoured } from '../src/checks/retry-after-reset.js';
import { NOW_MS, NOW_S, makeExchange, type ExchangeOptions } from './support/exchange-factory.js';
import { observations, violations } from './support/findings.js';

const httpDate = (ms: number): string => new Date(ms).toUTCString();

/** A keyed response at NOW_MS + atMs (local and server clocks agree), with the given rate-limit headers. */
function at(atMs: number, headers: Record<string, string | undefined>, opts: ExchangeOptions = {}) {
  return makeExchange({ sentAt: NOW_MS + atMs - 10, elapsedMs: 10, ...opts, headers: { date: httpDate(NOW_MS + atMs), ...headers } });
}

const window = (remaining: number, reset = NOW_S + 30, limit = 60) => ({
  'x-ratelimit-limit': String(limit),
  'x-ratelimit-remaining': String(remaining),
  'x-ratelimit-reset': String(reset),
});

const throttledAt = (atMs: number, retryAfter: string | undefined, reset = NOW_S + 30, opts: ExchangeOptions = {}) =>
  at(atMs, { ...window(0, reset), 'retry-after': retryAfter }, { status: 429, body: '', ...opts });

describe('RATE-002: an early 429', () => {
  it('allows max(2, 10 % of Limit) for other users of a shared key', () => {
    expect(sharedKeyAllowance(60n)).toBe(6n);
    expect(sharedKeyAllowance(5n)).toBe(2n);
    expect(sharedKeyAllowance(undefined)).toBe(2n);
    expect(sharedKeyAllowance(1000n)).toBe(100n);
  });

  it('fails a 429 while the last response in the same window announced 20 requests left', () => {
    const f = checkEarly429(at(0, window(20)), throttledAt(100, '30'), 0);
    expect(violations(f, 'RATE-002')).toHaveLength(1);
    expect(f[0]?.message).toContain('X-RateLimit-Remaining 20');
  });

  it('accepts it when the run\'s own requests in flight and the allowance explain it', () => {
    expect(checkEarly429(at(0, window(6)), throttledAt(100, '30'), 0)).toEqual([]);
    expect(checkEarly429(at(0, window(20)), throttledAt(100, '30'), 14)).toEqual([]);
    expect(violations(checkEarly429(at(0, window(20)), throttledAt(100, '30'), 13))).toHaveLength(1);
  });

  it('does not compare across windows, and takes a 429 pointing past the window for the daily quota', () => {
    // The window ended (Reset 1 s away, the 429 dated 2 s later with a new Reset).
    expect(checkEarly429(at(0, window(20, NOW_S + 1)), throttledAt(2000, '30', NOW_S + 3), 0)).toEqual([]);
    const day = checkEarly429(at(0, window(20)), throttledAt(100, '3600', NOW_S + 3600), 0);
    expect(violations(day)).toEqual([]);
    expect(observations(day, 'RATE-002')).toHaveLength(1);
  });

  it('puts a 429 in the earlier window only as sameWindow does: another Reset surely 2 s before the earlier one, the same Reset before its moment', () => {
    // Dated 1.5 s at most before the earlier Reset, naming the next one: the window may have ended.
    expect(checkEarly429(at(0, window(20, NOW_S + 2)), throttledAt(500, '2', NOW_S + 4), 0)).toEqual([]);
    expect(violations(checkEarly429(at(0, window(20, NOW_S + 5)), throttledAt(500, '2', NOW_S + 6), 0), 'RATE-002')).toHaveLength(1);
    // The same Reset repeated once its moment came names a window the server says is over.
    expect(checkEarly429(at(0, window(20, NOW_S + 1)), throttledAt(2000, '1', NOW_S + 1), 0)).toEqual([]);
    expect(violations(checkEarly429(at(0, window(20, NOW_S + 3)), throttledAt(2000, '1', NOW_S + 3), 0), 'RATE-002')).toHaveLength(1);
  });

  it('ignores other buckets and a Reset that RATE-003 fails', () => {
    expect(checkEarly429(at(0, window(20)), throttledAt(100, '30', NOW_S + 30, { auth: 'none' }), 0)).toEqual([]);
    expect(checkEarly429(at(0, window(20, 42)), throttledAt(100, '30', 42), 0)).toEqual([]);
  });

  it('on a dedicated key, catches a Remaining frozen high through any earlier response of the window, once per 429', () => {
    // Remaining said 59 until the last request of the window, which said 0: the last response kept its promise, the others did not.
    const frozen = Array.from({ length: 10 }, (_, i) => at(i * 10, window(59), { seq: 1 + i }));
    const f = findEarly429s([...frozen, at(150, window(0), { seq: 11 }), throttledAt(200, '30', NOW_S + 30, { seq: 12 })], 'dedicated');
    expect(violations(f, 'RATE-002')).toHaveLength(1);
    expect(f[0]?.message).toContain('exchange 10 announced X-RateLimit-Remaining 59');
    expect(f[0]?.message).toContain('allowance for other users of the key: none: the key is dedicated');
  });

  it('on a shared key, judges the 429 against the latest announcement: a key used as fast by another client is no violation', () => {
    // Each request of the run is matched by another client's: Remaining falls by two, honestly, to 0.
    const run = Array.from({ length: 30 }, (_, i) => at(i * 10, window(58 - 2 * i), { seq: 1 + i }));
    const throttled = throttledAt(400, '30', NOW_S + 30, { seq: 31 });
    expect(findEarly429s([...run, throttled])).toEqual([]);
    // The same wire on a dedicated key: the 429 came although exchange 1 announced 58 and the run sent 30.
    expect(violations(findEarly429s([...run, throttled], 'dedicated'), 'RATE-002')).toHaveLength(1);
  });

  it('on a shared key, still fails a 429 when the latest announcement left clearly more room than the run used', () => {
    const run = Array.from({ length: 5 }, (_, i) => at(i * 10, window(24 - i), { seq: 1 + i }));
    const f = findEarly429s([...run, throttledAt(100, '30', NOW_S + 30, { seq: 6 })]);
    expect(violations(f, 'RATE-002')).toHaveLength(1);
    // The announcement that leaves the server most room: exchange 2's 23, with every later request of the run counted.
    expect(f[0]?.message).toMatch(/exchange 2 announced X-RateLimit-Remaining 23 .*counted since: at most 4/);
    expect(f[0]?.message).toContain('allowance for other users of the key: 6');
  });

  it('on a shared key, allows as much in the last gap as another client was seen to spend of the window, here in one gap', () => {
    // Another client spent 12 at once between exchanges 2 and 3 (the headers show it): a 429 right after an announcement of 10 is then explained.
    const seen = [at(0, window(25), { seq: 1 }), at(10, window(24), { seq: 2 }), at(20, window(11), { seq: 3 }), at(30, window(10), { seq: 4 })];
    expect(findEarly429s([...seen, throttledAt(100, '30', NOW_S + 30, { seq: 5 })])).toEqual([]);
    // Nobody was seen spending more than the allowance of 6: the same 429 after the same announcement is early.
    const quiet = [at(0, window(13), { seq: 1 }), at(10, window(12), { seq: 2 }), at(20, window(11), { seq: 3 }), at(30, window(10), { seq: 4 })];
    expect(violations(findEarly429s([...quiet, throttledAt(100, '30', NOW_S + 30, { seq: 5 })]), 'RATE-002')).toHaveLength(1);
  });

  it('on a shared key, allows as much as another client was seen to spend of one window, where a burst shows no gap to measure', () => {
    // A window served one request after another: Remaining fell by 2 per request, so another client spent 19 of it (one per gap).
    const paired = Array.from({ length: 20 }, (_, i) => at(i * 20, window(58 - 2 * i), { seq: 1 + i }));
    const byItself = Array.from({ length: 20 }, (_, i) => at(i * 20, window(59 - i), { seq: 1 + i }));
    // The next window: an announcement of 44, then 37 requests in flight together; 22 served (by two, as before), 15 refused.
    const next = NOW_S + 90;
    const announced = at(31_000, window(44, next), { seq: 21 });
    const together = { sentAt: NOW_MS + 31_020, elapsedMs: 80 };
    const served = Array.from({ length: 22 }, (_, i) => at(31_100, window(42 - 2 * i, next), { seq: 22 + i, ...together }));
    const refused = Array.from({ length: 15 }, (_, i) => throttledAt(31_100, '30', next, { seq: 44 + i, ...together }));
    const burst = [announced, ...served, ...refused];
    // Each 429: 44 announced, 36 of the run's own may have been counted since; 8 left is more than 10 % of Limit but not more than 19.
    expect(findEarly429s([...paired, ...burst])).toEqual([]);
    // Nobody else was seen spending: the same burst's 429s are early (the allowance is 6), and so they are on a dedicated key.
    expect(violations(findEarly429s([...byItself, ...burst]), 'RATE-002')).toHaveLength(15);
    expect(violations(findEarly429s([...paired, ...burst], 'dedicated'), 'RATE-002')).toHaveLength(15);
  });

  it('finds the keyed responses before each 429 and counts the requests that overlap', () => {
    const prev = at(0, window(20), { seq: 1 });
    const inFlight = Array.from({ length: 14 }, (_, i) => at(150, window(5), { seq: 2 + i, sentAt: NOW_MS + 20, elapsedMs: 130 }));
    const throttled = throttledAt(100, '30', NOW_S + 30, { seq: 20 });
    expect(findEarly429s([prev, ...inFlight, throttled])).toEqual([]);
    expect(violations(findEarly429s([prev, ...inFlight.slice(0, 13), throttled]), 'RATE-002')).toHaveLength(1);
  });
});

describe('RATE-002: a 429 that announces room of its own', () => {
  const refusal = (remaining: number, retryAfter = '1', reset = NOW_S + 1, seq = 40) =>
    at(500, { ...window(remaining, reset), 'retry-after': retryAfter }, { status: 429, body: '', seq });

  it('fails, whatever was in flight: the refusal and the count are one response', () => {
    // 30 requests in flight around the 429 explain any earlier announcement; the 429's own Remaining 20 is not explained by them.
    const inFlight = Array.from({ length: 30 }, (_, i) => at(450, window(50 - i, NOW_S + 1), { seq: 2 + i, sentAt: NOW_MS + 20, elapsedMs: 430 }));
    const f = findEarly429s([at(0, window(50, NOW_S + 1), { seq: 1 }), ...inFlight, refusal(20)]);
    expect(violations(f, 'RATE-002')).toHaveLength(1);
    expect(f[0]?.message).toContain('the 429 itself announced X-RateLimit-Remaining 20');
    expect(violations(findEarly429s([refusal(20)], 'dedicated'), 'RATE-002')).toHaveLength(1);
  });

  it('accepts Remaining up to max(2, 10 % of Limit) on the 429, and a 429 of the day\'s quota', () => {
    expect(findEarly429s([refusal(0)])).toEqual([]);
    expect(findEarly429s([refusal(6)])).toEqual([]);
    expect(violations(findEarly429s([refusal(7)]), 'RATE-002')).toHaveLength(1);
    const day = findEarly429s([refusal(20, '3600')]);
    expect(violations(day)).toEqual([]);
    expect(observations(day, 'RATE-002')).toHaveLength(1);
    // Unauthenticated 429s belong to another bucket.
    expect(findEarly429s([at(500, { ...window(20, NOW_S + 1), 'retry-after': '1' }, { status: 429, body: '', auth: 'none' })])).toEqual([]);
  });
});

describe('RATE-003: the limit resets when Reset says', () => {
  it('fails a full refill long before the announced Reset', () => {
    const f = checkRefillBeforeReset(at(0, window(3, NOW_S + 3600), { seq: 1 }), at(2000, window(59, NOW_S + 3602), { seq: 2 }));
    expect(violations(f, 'RATE-003')).toHaveLength(1);
  });

  it('accepts a refill at the Reset, within 2 s of clock and rounding', () => {
    expect(checkRefillBeforeReset(at(0, window(3, NOW_S + 1), { seq: 1 }), at(1000, window(59, NOW_S + 2), { seq: 2 }))).toEqual([]);
    expect(checkRefillBeforeReset(at(0, window(3, NOW_S + 4), { seq: 1 }), at(1000, window(59, NOW_S + 62), { seq: 2 }))).toEqual([]);
  });

  it('leaves a refill under the same Reset within a minute to RATE-002 (a limit counted per operation), not one an hour away', () => {
    expect(checkRefillBeforeReset(at(0, window(50, NOW_S + 5), { seq: 1 }), at(100, window(59, NOW_S + 5), { seq: 2 }))).toEqual([]);
    expect(violations(checkRefillBeforeReset(at(0, window(3, NOW_S + 3600), { seq: 1 }), at(2000, window(59, NOW_S + 3600), { seq: 2 })), 'RATE-003')).toHaveLength(1);
  });

  it('compares a response with the previous one of its operation: a limit kept per route, windows and all, is RATE-002\'s', () => {
    // listPets' count and window (Reset +5 s), then createPet's own, begun by its first request (Reset +6 s), full.
    const listing = at(0, window(20, NOW_S + 5), { seq: 1 });
    const creation = at(1000, window(59, NOW_S + 6), { seq: 2, method: 'POST' });
    expect(violations(checkRateLimitPair(listing, creation), 'RATE-003')).toHaveLength(1);
    expect(checkRateLimitPair(listing, creation, undefined, creation)).toEqual([]);
    // The same operation's count refilled long before its Reset is still a Reset that came early.
    const nextListing = at(2000, window(59, NOW_S + 3602), { seq: 3 });
    expect(violations(checkRateLimitPair(creation, nextListing, undefined, at(0, window(3, NOW_S + 3600), { seq: 1 })), 'RATE-003')).toHaveLength(1);
  });

  it('accepts gradual refills (token bucket) and overlapping requests', () => {
    expect(checkRefillBeforeReset(at(0, window(3, NOW_S + 57), { seq: 1 }), at(2000, window(5, NOW_S + 55), { seq: 2 }))).toEqual([]);
    // Sent before the earlier one was answered: its higher Remaining is older news, not a refill.
    const overlapping = at(50, window(59, NOW_S + 3600), { seq: 2, sentAt: NOW_MS - 100 });
    expect(checkRefillBeforeReset(at(0, window(3, NOW_S + 3600), { seq: 1 }), overlapping)).toEqual([]);
  });
});

describe('RATE-003: a request given back before a Reset more than a minute away', () => {
  it('fails a token bucket whose Reset lies past a minute while it gives requests back (the mutant of limiters.ts tokenBucket.resetMs)', () => {
    const f = checkGiveBackBeforeDistantReset(at(0, window(30, NOW_S + 90), { seq: 1 }), at(3000, window(32, NOW_S + 91), { seq: 2 }));
    expect(violations(f, 'RATE-003')).toHaveLength(1);
    expect(f[0]?.message).toMatch(/rose from 30 to 32 \(exchanges 1 and 2\).* 89 s ahead/);
    expect(f[0]).toMatchObject({ pairedWith: 1, expected: { kind: 'window-until', value: (NOW_S + 90) * 1000 } });
    // Through the pair check, once per pair, and never as RATE-002's.
    expect(checkRateLimitPair(at(0, window(30, NOW_S + 90), { seq: 1 }), at(3000, window(32, NOW_S + 91), { seq: 2 })).map((x) => x.requirement)).toEqual(['RATE-003']);
  });

  it('accepts a give-back under a Reset within a minute and 2 s (every per-minute design), and one within 2 s of the Reset', () => {
    expect(checkGiveBackBeforeDistantReset(at(0, window(30, NOW_S + 62), { seq: 1 }), at(3000, window(32, NOW_S + 63), { seq: 2 }))).toEqual([]);
    expect(checkGiveBackBeforeDistantReset(at(0, window(3, NOW_S + 90), { seq: 1 }), at(88_500, window(5, NOW_S + 90), { seq: 2 }))).toEqual([]);
  });

  it('accepts a daily quota that binds: Remaining only falls until the day\'s Reset', () => {
    const day = NOW_S + 6 * 3600;
    expect(checkGiveBackBeforeDistantReset(at(0, window(9, day), { seq: 1 }), at(3000, window(8, day), { seq: 2 }))).toEqual([]);
    expect(checkGiveBackBeforeDistantReset(at(0, window(9, day), { seq: 1 }), at(3000, window(9, day), { seq: 2 }))).toEqual([]);
  });

  it('leaves overlapping requests alone: the higher Remaining is older news', () => {
    const overlapping = at(50, window(40, NOW_S + 90), { seq: 2, sentAt: NOW_MS - 100 });
    expect(checkGiveBackBeforeDistantReset(at(0, window(30, NOW_S + 90), { seq: 1 }), overlapping)).toEqual([]);
  });

  it('compares each later response with every open announcement of its operation, not only the previous one', () => {
    // What a busy machine's run sent (the token bucket mutant): Remaining 10 under a Reset 70 s ahead; 2 s later the
    // bucket empty (Reset 60 s ahead, no more than a minute); a minute later 59, 8 s before the first Reset.
    const announced = at(0, window(10, NOW_S + 70), { seq: 51 });
    const emptied = at(2000, window(0, NOW_S + 62), { seq: 98 });
    const refilled = at(62_000, window(59, NOW_S + 182), { seq: 99 });
    let open = openDistantResets([], announced);
    expect(open.map((e) => e.seq)).toEqual([51]);
    expect(checkRateLimitPair(announced, emptied, undefined, announced, open)).toEqual([]);
    open = openDistantResets(open, emptied);
    // The previous response alone (emptied) announced no Reset a minute away: nothing to find.
    expect(checkRateLimitPair(emptied, refilled, undefined, emptied)).toEqual([]);
    const f = checkRateLimitPair(emptied, refilled, undefined, emptied, open);
    expect(f.map((x) => x.requirement)).toEqual(['RATE-003']);
    expect(f[0]?.message).toMatch(/rose from 10 to 59 \(exchanges 51 and 99\)/);
  });

  it('keeps only the announcements that can still show a give-back: open, and promising more than a later one', () => {
    const day = NOW_S + 6 * 3600;
    let open: ReturnType<typeof openDistantResets> = [];
    for (let i = 0; i < 100; i++) open = openDistantResets(open, at(i * 100, window(900 - i, day), { seq: i + 1 }));
    // A binding day's Remaining falls under one Reset: the latest promises least and replaces the rest.
    expect(open.map((e) => e.seq)).toEqual([100]);
    // Within 2 s of its Reset an announcement can show nothing more.
    expect(openDistantResets([at(0, window(10, NOW_S + 70), { seq: 1 })], at(68_500, window(3, NOW_S + 20), { seq: 2 }))).toEqual([]);
    // A Reset within a minute is no announcement to keep.
    expect(openDistantResets([], at(0, window(10, NOW_S + 61), { seq: 1 }))).toEqual([]);
  });
});

describe('RATE-006: Retry-After against Reset', () => {
  it('accepts Retry-After ending at Reset, or rounded up a little', () => {
    expect(checkRetryAfterAgreesWithReset(throttledAt(0, '30'))).toEqual([]);
    expect(checkRetryAfterAgreesWithReset(throttledAt(0, '33'))).toEqual([]);
    expect(checkRetryAfterAgreesWithReset(throttledAt(0, httpDate(NOW_MS + 31_000)))).toEqual([]);
  });

  it('fails Retry-After far beyond Reset', () => {
    const f = checkRetryAfterAgreesWithReset(throttledAt(0, '30000'));
    expect(violations(f, 'RATE-006')).toHaveLength(1);
    expect(f[0]?.message).toContain('after X-RateLimit-Reset');
    expect(violations(checkRetryAfterAgreesWithReset(throttledAt(0, '34')), 'RATE-006')).toHaveLength(1);
  });

  it('scales the tolerance with a day window', () => {
    expect(checkRetryAfterAgreesWithReset(throttledAt(0, '36000', NOW_S + 36_000 - 1800))).toEqual([]);
  });

  it('only records Retry-After ending before Reset (a token bucket), and leaves a Reset RATE-003 fails alone', () => {
    const f = checkRetryAfterAgreesWithReset(throttledAt(0, '0'));
    expect(violations(f)).toEqual([]);
    expect(observations(f, 'RATE-006')).toHaveLength(1);
    expect(checkRetryAfterAgreesWithReset(throttledAt(0, '30000', NOW_S - 60))).toEqual([]);
  });

  it('does not place delta-seconds without a Date header', () => {
    const noDate = makeExchange({ status: 429, body: '', headers: { ...window(0), 'retry-after': '30000', date: undefined } });
    expect(checkRetryAfterAgreesWithReset(noDate)).toEqual([]);
    // An HTTP-date needs no Date header: both it and Reset are on the server's clock.
    const dated = makeExchange({ status: 429, body: '', headers: { ...window(0), 'retry-after': httpDate(NOW_MS + 3_600_000), date: undefined } });
    expect(violations(checkRetryAfterAgreesWithReset(dated), 'RATE-006')).toHaveLength(1);
  });
});

describe('RATE-006: the retry once Retry-After has passed', () => {
  it('fails a 429 to a request sent after Retry-After had passed', () => {
    const throttled = throttledAt(0, '0', NOW_S + 30, { seq: 1 });
    const f = checkRetryHonoured(throttled, throttledAt(300, '0', NOW_S + 30, { seq: 2 }));
    expect(violations(f, 'RATE-006')).toHaveLength(1);
    expect(f[0]?.message).toContain('once Retry-After had passed');
  });

  it('on a shared key, records a retry refused in a new window when others were seen to spend a whole window; a dedicated key fails it', () => {
    // The first 429's window ends at NOW_S + 1; the retry, 1.2 s later, is refused in the window ending NOW_S + 2.
    const throttled = throttledAt(0, '1', NOW_S + 1, { seq: 1 });
    const again = throttledAt(1200, '1', NOW_S + 2, { seq: 2 });
    // Others spent 54 of a 60-request window: with max(2, 10 %) unseen, they may have used a fresh one up.
    expect(observations(checkRetryHonoured(throttled, again, 'shared', 54n), 'RATE-006')).toHaveLength(1);
    expect(violations(checkRetryHonoured(throttled, again, 'shared', 54n), 'RATE-006')).toEqual([]);
    expect(violations(checkRetryHonoured(throttled, again, 'dedicated', 60n), 'RATE-006')).toHaveLength(1);
  });

  it('on a shared key, fails a retry refused in a new window when others were never seen to spend nearly a window', () => {
    const throttled = throttledAt(0, '1', NOW_S + 1, { seq: 1 });
    const again = throttledAt(1200, '1', NOW_S + 2, { seq: 2 });
    for (const seen of [0n, 12n, 53n]) {
      const found = violations(checkRetryHonoured(throttled, again, 'shared', seen), 'RATE-006');
      expect(found, String(seen)).toHaveLength(1);
      expect(found[0]?.message).toContain(`seen to spend at most ${seen} of a window's 60 requests`);
    }
  });

  it('reads a new window as sameWindow does: a later Reset, with the retry handled within the whole-second tolerance of the first Reset', () => {
    // The retry's Date puts it at most 1 s in; the first window's Reset, NOW_S + 3, may end it 2 s sooner.
    const throttled = throttledAt(0, '0', NOW_S + 3, { seq: 1 });
    const again = throttledAt(500, '0', NOW_S + 4, { seq: 2 });
    expect(observations(checkRetryHonoured(throttled, again, 'shared', 54n), 'RATE-006')).toHaveLength(1);
    // Surely in the first window (handled more than 2 s before its Reset): no new window to excuse it.
    const surelyFirst = throttledAt(500, '0', NOW_S + 5, { seq: 2 });
    expect(violations(checkRetryHonoured(throttledAt(0, '0', NOW_S + 4, { seq: 1 }), surelyFirst, 'shared', 54n), 'RATE-006')).toHaveLength(1);
  });

  it('accepts a served retry, and does not blame a request sent too soon', () => {
    const throttled = throttledAt(0, '2', NOW_S + 30, { seq: 1 });
    expect(checkRetryHonoured(throttled, at(2300, window(59), { seq: 2 }))).toEqual([]);
    expect(checkRetryHonoured(throttled, throttledAt(1500, '1', NOW_S + 30, { seq: 2 }))).toEqual([]);
  });
});

describe('RATE-008: one plausible, stable Limit', () => {
  it('fails an absurd Limit and a Limit of 0 on a served request, not on a 429', () => {
    expect(violations(checkRateLimitHeaders(at(0, window(5, NOW_S + 30, 5_000_000))), 'RATE-008')).toHaveLength(1);
    expect(violations(checkRateLimitHeaders(at(0, window(0, NOW_S + 30, 0))), 'RATE-008')).toHaveLength(1);
    expect(violations(checkRateLimitHeaders(throttledAt(0, '30', NOW_S + 30, { headers: { ...window(0, NOW_S + 30, 0), 'retry-after': '30' } })), 'RATE-008')).toEqual([]);
    expect(violations(checkRateLimitHeaders(at(0, window(5, NOW_S + 30, 1_000_000))))).toEqual([]);
  });

  it('fails a Limit that changes within one window, not across windows', () => {
    expect(violations(checkLimitStable(at(0, window(50), { seq: 1 }), at(100, window(49, NOW_S + 30, 100), { seq: 2 })), 'RATE-008')).toHaveLength(1);
    expect(checkLimitStable(at(0, window(50, NOW_S + 1), { seq: 1 }), at(2000, window(99, NOW_S + 3, 100), { seq: 2 }))).toEqual([]);
    // The daily quota takes over within the minute: the headers now describe the day, Limit included.
    expect(checkLimitStable(at(0, window(50), { seq: 1 }), at(100, window(9, NOW_S + 86_000, 1000), { seq: 2 }))).toEqual([]);
  });

  it('reads one window as sameWindow does: a Limit after another Reset within 2 s of the earlier one may be the next window\'s', () => {
    expect(checkLimitStable(at(0, window(50, NOW_S + 2), { seq: 1 }), at(500, window(49, NOW_S + 4, 100), { seq: 2 }))).toEqual([]);
    expect(violations(checkLimitStable(at(0, window(50, NOW_S + 5), { seq: 1 }), at(500, window(49, NOW_S + 6, 100), { seq: 2 })), 'RATE-008')).toHaveLength(1);
  });

  it('is one of the pair checks the session runs (Remaining that does not fall is judged over the whole run, remaining-rise.ts)', () => {
    const pair = checkRateLimitPair(at(0, window(50), { seq: 1 }), at(100, window(50, NOW_S + 30, 100), { seq: 2 }));
    expect(new Set(violations(pair).map((f) => f.requirement))).toEqual(new Set(['RATE-008']));
  });
});
