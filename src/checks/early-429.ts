/**
 * RATE-002, "requests remaining in the current window", judged by what the server then does: a
 * 429 to the run's key while a response before it still announced requests left in the same
 * window. The run's own requests that may have been counted in between explain some of the gap.
 *
 * How much of the rest other clients explain depends on the key (--dedicated-key). A shared key
 * (the default): the 429 is judged against the announcement that leaves the server the most
 * room (the latest, allowing for the run's requests in flight), and others may have spent
 * max(10 % of Limit, the most the run saw them spend of one window): what they spent of one
 * window they may spend of another where the run could not see it (a burst's requests in flight
 * together show no order, so no gap to measure). Only a gap beyond that is a promise broken
 * (headers that describe another window than the one enforced).
 * A dedicated key: every announcement of the window must hold, and nobody else spends any of it.
 */
import type { Exchange } from '../http/exchange.js';
import type { KeyMode } from '../run-config.js';
import { observation, shownOnlyBy, violation, type Finding } from './finding.js';
import { othersSpentInAWindow } from './key-use.js';
import { othersMaySpend, sharedKeyAllowance } from './key-windows.js';
import { plausibleResetMs } from '../rate-limit/headers.js';
import { readExchange } from '../rate-limit/reading.js';
import { possiblyCountedBetween } from '../rate-limit/counting.js';
import { resetsRepeatedPast, sameWindow } from '../rate-limit/window.js';
import { receivedAt, retryAfterPassesAt } from './response-date.js';
import { serverMoment, type ServerClock } from './server-clock.js';
import { WHOLE_SECONDS_MS } from '../rate-limit/tolerances.js';

const REQ = 'RATE-002';

/**
 * Whether `prev`, a keyed response with Remaining and a plausible Reset, announced the window
 * the keyed 429 `throttled` fell in (sameWindow, leaving out the Resets some response named when they had surely come).
 */
function inSameWindow(prev: Exchange, throttled: Exchange, clock: ServerClock | undefined, repeatedPast?: ReadonlySet<number>): boolean {
  if (throttled.response?.status !== 429 || !readExchange(throttled).keyed || !readExchange(prev).keyed) return false;
  const resetMs = plausibleResetMs(prev, clock);
  if (readExchange(prev).remaining === undefined || resetMs === undefined) return false;
  return sameWindow({ ex: prev, resetMs }, { ex: throttled, resetMs: plausibleResetMs(throttled, clock) }, clock, repeatedPast);
}

/**
 * `prev` is a keyed response received before `throttled` was sent; `ownCounted` the run's
 * requests (any credentials) that the server may have counted after prev and before the 429;
 * `allowance` what others may have spent (default: the shared key's max(2, 10 % of Limit)).
 */
export function checkEarly429(prev: Exchange, throttled: Exchange, ownCounted: number, allowance?: bigint, clock?: ServerClock, repeatedPast?: ReadonlySet<number>): Finding[] {
  if (!inSameWindow(prev, throttled, clock, repeatedPast)) return [];
  const remaining = readExchange(prev).remaining ?? 0n;
  const windowEnd = plausibleResetMs(prev, clock) ?? 0;
  const others = allowance ?? sharedKeyAllowance(readExchange(prev).limit);
  const unexplained = remaining - BigInt(ownCounted) - others;
  if (unexplained <= 0n) return [];
  const otherUsers = others === 0n ? 'none: the key is dedicated (--dedicated-key)' : String(others);
  const said = `exchange ${prev.seq} announced X-RateLimit-Remaining ${remaining} in the window ending ${new Date(windowEnd).toISOString()}; this run's own requests counted since: at most ${ownCounted}; allowance for other users of the key: ${otherUsers}`;
  if (pointsBeyond(throttled, windowEnd, clock)) return [anotherLimit(said, throttled)];
  const found = shownOnlyBy(violation(REQ, `Received 429 although ${said} / Expected the announced requests to be served`, throttled.seq), 'a 429 after an earlier response of its window announced requests left');
  // At the 429, the announcement left at least `unexplained` requests to serve.
  return [{ ...found, pairedWith: prev.seq, expected: { kind: 'remaining-at-least', value: Number(unexplained) } }];
}

/**
 * The day's quota can run out while the minute window still has requests; its 429 says so by
 * pointing past the window (ending at `windowEnd`) with its Reset or its Retry-After.
 */
function pointsBeyond(throttled: Exchange, windowEnd: number, clock: ServerClock | undefined): boolean {
  const throttledReset = plausibleResetMs(throttled, clock);
  const throttledAt = serverMoment(throttled, clock)?.earliest;
  const retryAt = retryAfterPassesAt(throttled);
  // Beyond the earlier window by more than whole seconds explain: another limit's (the day's).
  return (
    (throttledReset !== undefined && throttledReset > windowEnd + WHOLE_SECONDS_MS) ||
    (retryAt !== undefined && throttledAt !== undefined && throttledAt + (retryAt - receivedAt(throttled)) > windowEnd + WHOLE_SECONDS_MS)
  );
}

const anotherLimit = (said: string, throttled: Exchange): Finding =>
  observation(REQ, `429 although ${said}; it points beyond that window, so another limit (the daily quota) is taken to apply`, throttled.seq);

/**
 * A keyed 429 that itself announces more requests left in its window than the allowance: the
 * refusal and the count come from the same response, so no timing, request in flight or other
 * client explains the contradiction (however many requests a burst had in flight). A 429 whose
 * Retry-After points beyond the window it names is another limit's (the day's), and only recorded.
 */
export function checkRefusalAnnouncingRoom(throttled: Exchange, allowance: bigint, clock?: ServerClock): Finding[] {
  const remaining = readExchange(throttled).remaining;
  const windowEnd = plausibleResetMs(throttled, clock);
  if (throttled.response?.status !== 429 || throttled.request.auth !== 'key' || remaining === undefined || windowEnd === undefined || remaining <= allowance) return [];
  const said = `the 429 itself announced X-RateLimit-Remaining ${remaining} in the window ending ${new Date(windowEnd).toISOString()}; allowance: ${allowance}`;
  if (pointsBeyond(throttled, windowEnd, clock)) return [anotherLimit(said, throttled)];
  const found = violation(REQ, `Received 429 although ${said} / Expected a refusal to leave no announced requests in its window`, throttled.seq);
  return [{ ...found, expected: { kind: 'remaining-at-most', value: Number(allowance) } }];
}

/**
 * Every 429 to the run's key, against the keyed responses of its window answered before it was
 * sent. Dedicated: the response that promised most must have kept its promise (a Remaining
 * frozen high breaks the promise of each response before the last). Shared: the response that
 * leaves the server the most room, with the allowance for others described above. One finding
 * per 429.
 */
export function findEarly429s(exchanges: readonly Exchange[], mode: KeyMode = 'shared', clock?: ServerClock): Finding[] {
  const keyed = exchanges.filter((e) => e.request.auth === 'key' && e.response !== undefined);
  const dedicated = mode === 'dedicated';
  const seenOthers = dedicated ? 0n : othersSpentInAWindow(exchanges, clock);
  const findings: Finding[] = [];
  const repeatedPast = resetsRepeatedPast(exchanges, clock);
  for (const throttled of keyed) {
    if (throttled.response?.status !== 429) continue;
    let chosen: { findings: Finding[]; rank: bigint } | undefined;
    for (const prev of keyed) {
      if (prev === throttled || receivedAt(prev) > throttled.sentAt || !inSameWindow(prev, throttled, clock, repeatedPast)) continue;
      const allowance = othersMaySpend(dedicated, readExchange(prev).limit, seenOthers);
      // Counting overlaps is the costly part; a response that broke no promise even before it is skipped.
      const broken = checkEarly429(prev, throttled, 0, allowance, clock, repeatedPast).length > 0;
      const counted = broken ? possiblyCountedBetween(exchanges, prev, throttled) - 1 : 0;
      const found = broken ? checkEarly429(prev, throttled, counted, allowance, clock, repeatedPast) : [];
      const excess = (readExchange(prev).remaining ?? 0n) - BigInt(counted);
      // Dedicated: a violation outranks an observation; among equals, the largest broken promise. Shared: the smallest.
      const rank = dedicated ? (found.some(isViolation) ? 1n << 40n : 0n) + excess : found.length === 0 ? 1n << 40n : -excess;
      if (chosen === undefined || rank > chosen.rank) chosen = { findings: found, rank };
    }
    const timed = chosen?.findings ?? [];
    // Others cannot make one response contradict itself: the allowance is only for approximate counters.
    const own = timed.some(isViolation) ? [] : checkRefusalAnnouncingRoom(throttled, sharedKeyAllowance(readExchange(throttled).limit), clock);
    findings.push(...(own.some(isViolation) || chosen === undefined ? own : timed));
  }
  return findings;
}

const isViolation = (f: Finding): boolean => f.kind === 'violation';
