/**
 * RATE-002, "requests remaining in the current window", judged by what the server then does: a
 * 429 to the run's key while a response before it still announced requests left in the same
 * window. The run's own requests that may have been counted in between, and an allowance
 * for other users of a shared key, explain some of the gap; the rest is a promise broken.
 */
import type { Exchange } from '../http/exchange.js';
import { observation, violation, type Finding } from './finding.js';
import { plausibleResetMs, rateLimitValue } from './rate-limit-headers.js';
import { receivedAt, responseDateMs, retryAfterPassesAt } from './response-date.js';

const REQ = 'RATE-002';
/** Other users of a shared key may spend this many of the announced requests: max(2, 10 % of Limit). */
export function sharedKeyAllowance(limit: bigint | undefined): bigint {
  const tenth = limit === undefined ? 0n : (limit + 9n) / 10n;
  return tenth > 2n ? tenth : 2n;
}
/** A 429 whose Reset or Retry-After lies this far beyond the earlier window is another limit's (the day's). */
const OTHER_LIMIT_MS = 2_000;
const DATE_RESOLUTION_MS = 1_000;

/**
 * `prev` is a keyed response received before `throttled` was sent; `ownCounted` the run's
 * requests (any credentials) that the server may have counted after prev and before the 429.
 */
export function checkEarly429(prev: Exchange, throttled: Exchange, ownCounted: number): Finding[] {
  if (throttled.response?.status !== 429 || throttled.request.auth !== 'key' || prev.request.auth !== 'key') return [];
  const remaining = rateLimitValue(prev, 'x-ratelimit-remaining');
  const windowEnd = plausibleResetMs(prev);
  if (remaining === undefined || windowEnd === undefined) return [];
  const throttledReset = plausibleResetMs(throttled);
  const throttledDate = responseDateMs(throttled);
  const sameWindow = throttledReset === windowEnd || (throttledDate !== undefined && throttledDate + DATE_RESOLUTION_MS <= windowEnd);
  if (!sameWindow) return [];
  const allowance = sharedKeyAllowance(rateLimitValue(prev, 'x-ratelimit-limit'));
  const unexplained = remaining - BigInt(ownCounted) - allowance;
  if (unexplained <= 0n) return [];
  const said = `exchange ${prev.seq} announced X-RateLimit-Remaining ${remaining} in the window ending ${new Date(windowEnd).toISOString()}; this run's own requests counted since: at most ${ownCounted}; allowance for other users of the key: ${allowance}`;
  // The day's quota can run out while the minute window still has requests; its 429 says so by pointing past the window.
  const retryAt = retryAfterPassesAt(throttled);
  const pointsBeyond =
    (throttledReset !== undefined && throttledReset > windowEnd + OTHER_LIMIT_MS) ||
    (retryAt !== undefined && throttledDate !== undefined && throttledDate + (retryAt - receivedAt(throttled)) > windowEnd + OTHER_LIMIT_MS);
  if (pointsBeyond) return [observation(REQ, `429 although ${said}; it points beyond that window, so another limit (the daily quota) is taken to apply`, throttled.seq)];
  return [violation(REQ, `Received 429 although ${said} / Expected the announced requests to be served`, throttled.seq)];
}

/**
 * The run's requests that may have been counted after prev was answered and before the 429 was.
 * Requests without the key count too: a server may limit per client address, one bucket for all.
 */
function countedBetween(exchanges: readonly Exchange[], prev: Exchange, throttled: Exchange): number {
  return exchanges.filter((e) => e !== prev && e !== throttled && receivedAt(e) >= prev.sentAt && e.sentAt <= receivedAt(throttled)).length;
}

/**
 * Every 429 to the run's key, against every keyed response answered before it was sent: any of
 * them may have promised more than was then served (a Remaining frozen high breaks the promise
 * of each response before the last). One finding per 429, from the response that promised most.
 */
export function findEarly429s(exchanges: readonly Exchange[]): Finding[] {
  const keyed = exchanges.filter((e) => e.request.auth === 'key' && e.response !== undefined);
  const findings: Finding[] = [];
  for (const throttled of keyed) {
    if (throttled.response?.status !== 429) continue;
    let worst: { findings: Finding[]; excess: bigint } | undefined;
    for (const prev of keyed) {
      if (prev === throttled || receivedAt(prev) > throttled.sentAt) continue;
      // Counting overlaps is the costly part; a response that broke no promise even before it is skipped.
      if (checkEarly429(prev, throttled, 0).length === 0) continue;
      const counted = countedBetween(exchanges, prev, throttled);
      const found = checkEarly429(prev, throttled, counted);
      if (found.length === 0) continue;
      const excess = (rateLimitValue(prev, 'x-ratelimit-remaining') ?? 0n) - BigInt(counted);
      // A violation outranks an observation; among equals, the largest broken promise.
      const rank = found.some((f) => f.kind === 'violation') ? excess + (1n << 40n) : excess;
      if (worst === undefined || rank > worst.excess) worst = { findings: found, excess: rank };
    }
    if (worst !== undefined) findings.push(...worst.findings);
  }
  return findings;
}
