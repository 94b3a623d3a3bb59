/**
 * Who spent the key's window (src/checks/key-use.ts): the run's own requests against what
 * X-RateLimit-Remaining fell by. Another client on a shared key is an observation; on a
 * dedicated key the same fall is a server counting more than it served (RATE-002).
 */
import { describe, expect, it } from 'vitest';
import { describeOtherUse, findDeferredCounting, judgeKeyUse, otherUseOf } from '../src/checks/key-use.js';
import { NOW_MS, NOW_S, makeExchange, type ExchangeOptions } from './support/exchange-factory.js';
import { observations, violations } from './support/findings.js';
import type { Exchange } from '../src/http/exchange.js';

const RESET = NOW_S + 30;

/** The n-th sequential keyed response of a window (10 ms apart), with its Remaining. */
function nth(n: number, remaining: number, opts: ExchangeOptions = {}) {
  return makeExchange({
    seq: n,
    sentAt: NOW_MS + n * 10 - 5,
    elapsedMs: 5,
    ...opts,
    headers: { date: new Date(NOW_MS).toUTCString(), 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': String(RESET) },
  });
}

/** Remaining after each of `count` requests when every request of the run costs `perRequest`. */
/** The exchange as a framework answering before its limiter sends it: no X-RateLimit headers. */
function withoutRateLimitHeaders(ex: Exchange): Exchange {
  if (ex.response === undefined) return ex;
  return { ...ex, response: { ...ex.response, headers: Object.fromEntries(Object.entries(ex.response.headers).filter(([name]) => !name.startsWith('x-ratelimit-'))) } };
}

const falling = (count: number, perRequest: number) => Array.from({ length: count }, (_, i) => nth(i + 1, 59 - perRequest * i - (perRequest - 1)));

describe('other clients of the key', () => {
  it('sees nothing on a key the run has to itself', () => {
    const run = falling(20, 1);
    expect(otherUseOf(run)).toMatchObject({ windows: 0, measured: 1 });
    expect(otherUseOf(run).busiest).toBeUndefined();
    expect(describeOtherUse(otherUseOf(run), 'shared')).toBeUndefined();
    expect(judgeKeyUse(run, 'shared')).toEqual([]);
    expect(judgeKeyUse(run, 'dedicated')).toEqual([]);
  });

  it('counts what Remaining fell beyond the run\'s requests: "another client used at least 19 of this window\'s 60 requests"', () => {
    const run = falling(20, 2);
    const use = otherUseOf(run);
    expect(use).toMatchObject({ windows: 1, busiest: { spent: 19n } });
    expect(describeOtherUse(use, 'dedicated')).toMatch(/^the server counted at least 19 of this window's 60 requests beyond the run's own \(/);
    expect(describeOtherUse(use, 'shared')).toMatch(/^another client used at least 19 of this window's 60 requests \(.*between exchanges 1 and 20/);
  });

  it('measures across requests sent together, counting them as the run\'s own, with no gap counted twice', () => {
    // 1 answered, then 2..5 in flight together (sent at the same moment), then 6 after all were answered.
    const together = [2, 3, 4, 5].map((n) => nth(n, 58 - n, { sentAt: NOW_MS + 20, elapsedMs: 5 + n }));
    const run = [nth(1, 58), ...together, nth(6, 50)];
    // Remaining fell by 8 from 1 to 6 and the run's own 2..6 explain 5, so another client used 3. The
    // gaps are 1-2 (2..5 may all have been counted in it) and 2-6 (3..6 may have been): a lower bound, 2.
    expect(otherUseOf(run)).toMatchObject({ windows: 1, busiest: { spent: 2n } });
    // Before, the requests in flight together ended every gap: nothing was measured.
    expect(otherUseOf(run).busiest?.last.seq).toBe(6);
  });

  it('records it on a shared key and fails RATE-002 with the figures on a dedicated one', () => {
    const run = falling(20, 2);
    const shared = judgeKeyUse(run, 'shared');
    expect(violations(shared)).toEqual([]);
    expect(observations(shared, 'RATE-002')[0]?.message).toMatch(/^The key may be shared: another client used at least 19 .*--dedicated-key/);
    const dedicated = violations(judgeKeyUse(run, 'dedicated'), 'RATE-002');
    expect(dedicated).toHaveLength(1);
    expect(dedicated[0]?.message).toMatch(/fell from 58 \(exchange 1\) to 56 \(exchange 2\), by 2, while this run sent at most 1 requests that could have been counted .*: the server counted at least 19 of this window's 60 requests beyond the run's own/);
  });

  it('counts the run\'s requests in flight as its own, so a concurrent burst is not taken for another client', () => {
    // Exchanges 2-5 were in flight together; 6 was sent once they were answered: Remaining fell by 5 from 1 to 6, all the run's.
    const inFlight = [2, 3, 4, 5].map((n) => nth(n, 58 - n, { sentAt: NOW_MS + 15, elapsedMs: 40 }));
    const run = [nth(1, 59), ...inFlight, nth(6, 54, { sentAt: NOW_MS + 60 })];
    expect(judgeKeyUse(run, 'dedicated')).toEqual([]);
  });
});

describe('a Remaining that stands still, then a window used up early', () => {
  it('fails RATE-002 on any key: no other client makes Remaining stand still', () => {
    const stood = Array.from({ length: 20 }, (_, i) => nth(i + 1, 59));
    const run = [...stood, nth(21, 0), makeExchange({ seq: 22, status: 429, body: '', sentAt: NOW_MS + 300, elapsedMs: 5, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(RESET), 'retry-after': '30' } })];
    const f = findDeferredCounting(run);
    expect(violations(f, 'RATE-002')).toHaveLength(1);
    expect(f[0]?.message).toMatch(/did not fall with 19 of the run's requests .*then the window was used up 58 requests sooner/);
    expect(violations(judgeKeyUse(run, 'shared'), 'RATE-002')).toHaveLength(1);
  });

  it('fails it as well when the requests that found Remaining standing still were in flight together', () => {
    // Five groups of four sent together (a burst, or a run a busy machine bunched up), each group's first request answered
    // first: one after another, only one request a gap is surely counted (4 in all, within the allowance of 6).
    const together = Array.from({ length: 20 }, (_, i) => nth(i + 1, 59, { sentAt: NOW_MS + Math.floor(i / 4) * 100, elapsedMs: 25 + (i % 4) * 5 }));
    const throttled = makeExchange({ seq: 22, status: 429, body: '', sentAt: NOW_MS + 560, elapsedMs: 5, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(RESET), 'retry-after': '30' } });
    const run = [...together, nth(21, 0, { sentAt: NOW_MS + 520 }), throttled];
    const f = violations(findDeferredCounting(run), 'RATE-002');
    expect(f).toHaveLength(1);
    expect(f[0]?.message).toMatch(/did not fall with 19 of the run's requests .*Remaining 59 on 20 responses, some in flight together\), then the window was used up 55 requests sooner than that announced \(exchange 22, after at most 4 more/);
    expect(violations(judgeKeyUse(run, 'shared'), 'RATE-002')).toHaveLength(1);
  });

  it('accepts repeats of Remaining among requests in flight together when the window then lasts as announced (read before counted)', () => {
    // Six groups of ten sent together; each request of a group saw the count before the group's were added (59, 49, ... 9),
    // and the window ends after exactly 60 requests: every one was counted.
    const groups = Array.from({ length: 60 }, (_, i) => nth(i + 1, 59 - 10 * Math.floor(i / 10), { sentAt: NOW_MS + Math.floor(i / 10) * 100, elapsedMs: 20 + (i % 10) }));
    const throttled = makeExchange({ seq: 61, status: 429, body: '', sentAt: NOW_MS + 700, elapsedMs: 5, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(RESET), 'retry-after': '30' } });
    expect(findDeferredCounting([...groups, throttled])).toEqual([]);
  });

  it('accepts a limiter that gives requests back when the window then lasts as announced', () => {
    const run = [...Array.from({ length: 20 }, (_, i) => nth(i + 1, 59)), ...falling(59, 1).map((e, i) => nth(21 + i, 58 - i))];
    expect(findDeferredCounting(run)).toEqual([]);
  });

  it('takes requests answered without Remaining (refused before the limiter) as never surely counted: no standing still', () => {
    // Exchanges 2..16: malformed-JSON creates a framework refused before its limiter ran, so Remaining is still 58 at 17;
    // then another client of the shared key matches the run request for request, and the window ends that much sooner.
    const refused = Array.from({ length: 15 }, (_, i) => withoutRateLimitHeaders(nth(i + 2, 58, { method: 'POST', status: 400 })));
    const rest = Array.from({ length: 29 }, (_, i) => nth(17 + i, 57 - 2 * i));
    const run = [nth(1, 58), ...refused, ...rest, makeExchange({ seq: 46, status: 429, body: '', sentAt: NOW_MS + 460, elapsedMs: 5, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(RESET), 'retry-after': '30' } })];
    expect(findDeferredCounting(run)).toEqual([]);
    expect(violations(judgeKeyUse(run, 'shared'))).toEqual([]);
    expect(observations(judgeKeyUse(run, 'shared'), 'RATE-002')[0]?.message).toMatch(/^The key may be shared: another client used at least 28/);
  });
});

describe('responses without the rate-limit headers between two that have them', () => {
  it('measure the gap across them, counting them as the run\'s own: another client is still seen', () => {
    const refused = [2, 3, 4, 5, 6].map((n) => withoutRateLimitHeaders(nth(n, 58, { method: 'POST', status: 400 })));
    // Remaining fell by 9 from 1 to 7 while the run sent 6 requests that may have been counted: another client used 3.
    const run = [nth(1, 59), ...refused, nth(7, 50)];
    expect(otherUseOf(run)).toMatchObject({ windows: 1, busiest: { spent: 3n } });
    expect(observations(judgeKeyUse(run, 'shared'), 'RATE-002')[0]?.message).toMatch(/another client used at least 3 .*between exchanges 1 and 7/);
  });

  it('reads one window as sameWindow does: across a Reset that moved on, but not past a Reset whose moment came', () => {
    /** A keyed response dated `atMs` after NOW_MS, with its Remaining and Reset (Unix seconds). */
    const dated = (n: number, atMs: number, remaining: number, reset: number) =>
      makeExchange({
        seq: n,
        sentAt: NOW_MS + atMs - 5,
        elapsedMs: 5,
        headers: { date: new Date(NOW_MS + atMs).toUTCString(), 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': String(reset) },
      });
    // A Reset that moves on with each request (a bucket's full time), surely well before the earlier one: one window, the fall measured.
    expect(otherUseOf([dated(1, 0, 59, NOW_S + 30), dated(2, 10, 50, NOW_S + 31)])).toMatchObject({ windows: 1, measured: 1, busiest: { spent: 8n } });
    // The same Reset once its moment has come: the server says that window is over, nothing is measured across it.
    expect(otherUseOf([dated(1, 0, 59, NOW_S + 1), dated(2, 2_000, 50, NOW_S + 1)])).toMatchObject({ windows: 0, measured: 0 });
  });
});
