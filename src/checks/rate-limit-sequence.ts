/**
 * Section 8 judged on two consecutive responses to the run's key: RATE-003's Reset against the
 * moment the limit actually reset, RATE-008's stable Limit, each placed on the server's clock
 * (server-clock.ts). RATE-002's rise of Remaining is judged on every pair of the run's responses
 * (remaining-rise.ts).
 */
import type { Exchange } from '../http/exchange.js';
import { shownOnlyBy, violation, type Finding } from './finding.js';
import { plausibleResetMs, resetSurelyPassedAt } from '../rate-limit/headers.js';
import { readExchange, readingOf, type Reading } from '../rate-limit/reading.js';
import { possiblyCountedBetween } from '../rate-limit/counting.js';
import { sameWindow } from '../rate-limit/window.js';
import { othersSpentInAWindow } from './key-use.js';
import { othersMaySpend } from './key-windows.js';
import type { KeyMode } from '../run-config.js';
import { receivedAt } from './response-date.js';
import { serverMoment, type ServerClock } from './server-clock.js';
import { iso } from './text.js';
import { operationOf } from './body.js';
import { MINUTE_RESET_AHEAD_MS, WHOLE_SECONDS_MS, IN_FLIGHT_TOLERANCE_MS } from '../rate-limit/tolerances.js';

const keyedPair = (a: Exchange, b: Exchange): boolean =>
  a.request.auth === 'key' && b.request.auth === 'key' && a.response !== undefined && b.response !== undefined;

/** The pair in the order the requests were sent; the later one is the one judged. */
const inOrder = (a: Exchange, b: Exchange): [Exchange, Exchange] => (a.seq <= b.seq ? [a, b] : [b, a]);


/** A keyed pair in order whose later Remaining is higher, surely more than 2 s before the Reset the earlier one announced. */
interface RiseBeforeReset {
  earlier: Exchange;
  later: Exchange;
  /** The earlier response's Reset, when it passes RATE-003's own check. */
  resetMs: number;
  /** The latest the server's clock can have read at the later response: a Date that stood still must not move the rise earlier. */
  risenBy: number;
  before: bigint;
  after: bigint;
}

/** What RATE-003's two give-back rules share: the later request, sent after the earlier was answered, finds Remaining higher well before the earlier Reset. */
function riseBeforeReset(prev: Exchange, next: Exchange, clock: ServerClock | undefined): RiseBeforeReset | undefined {
  const [earlier, later] = inOrder(prev, next);
  if (!keyedPair(earlier, later) || later.sentAt < receivedAt(earlier)) return undefined;
  const resetMs = plausibleResetMs(earlier, clock);
  const risenBy = serverMoment(later, clock)?.latest;
  const before = readExchange(earlier).remaining;
  const after = readExchange(later).remaining;
  if (resetMs === undefined || risenBy === undefined || before === undefined || after === undefined) return undefined;
  if (after <= before || risenBy >= resetMs - WHOLE_SECONDS_MS) return undefined;
  return { earlier, later, resetMs, risenBy, before, after };
}

/**
 * RATE-003 by behaviour: the later request, sent after the earlier one was answered, finds the
 * window full again (Remaining ≥ Limit - 1, up from less) well before the Reset the earlier one
 * announced, and a new window begun (another Reset, or the same one more than a minute away).
 * Token buckets and sliding windows are full again only at their Reset, so only a Reset that lies
 * (an hour away on a per-minute window) is caught.
 */
export function checkRefillBeforeReset(prev: Exchange, next: Exchange, clock?: ServerClock): Finding[] {
  const rise = riseBeforeReset(prev, next, clock);
  if (rise === undefined) return [];
  const { earlier, later, resetMs, before, after } = rise;
  const refilledBy = rise.risenBy;
  const limit = readExchange(later).limit;
  if (limit === undefined || after < limit - 1n) return [];
  // The same Reset within a per-minute window of it: the server says its window goes on, and a
  // refill there is a rise of Remaining, RATE-002's (remaining-rise.ts), as a limit counted per
  // operation shows it, not a Reset that came late.
  if (plausibleResetMs(later, clock) === resetMs && resetMs - refilledBy <= MINUTE_RESET_AHEAD_MS) return [];
  const found = pairFinding(
    'RATE-003',
    `The window was full again (X-RateLimit-Remaining ${before} then ${after} of ${limit}) by ${iso(refilledBy)}, ${Math.round((resetMs - refilledBy) / 1000)} s before the X-RateLimit-Reset ${iso(resetMs)} that exchange ${earlier.seq} announced (exchanges ${earlier.seq} and ${later.seq}) / Expected Reset to be when the limit resets`,
    later.seq,
    'a full refill long before the Reset an earlier response announced',
  );
  return [{ ...found, pairedWith: earlier.seq, expected: { kind: 'window-until', value: resetMs } }];
}

/**
 * How far ahead `ex` announced `resetMs`, from the latest moment it can have been handled: the
 * distance is then a least. Undefined when its Date does not tell.
 */
function announcedAheadMs(ex: Exchange, resetMs: number, clock: ServerClock | undefined): number | undefined {
  const announcedAt = serverMoment(ex, clock)?.latest;
  return announcedAt === undefined ? undefined : resetMs - announcedAt;
}

/**
 * RATE-003 by behaviour, for a limit that gives requests back one by one: the later request, sent
 * after the earlier one was answered, finds Remaining higher (a request given back) well before
 * the Reset the earlier one announced, and that Reset lay surely more than a minute after the
 * earlier response. A per-minute limit gives every request back within a minute, whatever its
 * design (a fixed window resets, a sliding log's requests expire, a token bucket refills), so a
 * Reset further away can only be the daily quota's; but while the day binds, Remaining is the
 * day's and nothing is given back before the day ends. The Reset was not when the limit resets.
 */
export function checkGiveBackBeforeDistantReset(prev: Exchange, next: Exchange, clock?: ServerClock): Finding[] {
  const rise = riseBeforeReset(prev, next, clock);
  const ahead = rise === undefined ? undefined : announcedAheadMs(rise.earlier, rise.resetMs, clock);
  if (rise === undefined || ahead === undefined || ahead <= MINUTE_RESET_AHEAD_MS) return [];
  const { earlier, later, resetMs, before, after } = rise;
  const givenBackBy = rise.risenBy;
  const found = pairFinding(
    'RATE-003',
    `X-RateLimit-Remaining rose from ${before} to ${after} (exchanges ${earlier.seq} and ${later.seq}) by ${iso(givenBackBy)}, ${Math.round((resetMs - givenBackBy) / 1000)} s before the X-RateLimit-Reset ${iso(resetMs)} that exchange ${earlier.seq} announced ` +
      `${Math.round(ahead / 1000)} s ahead: a per-minute limit gives requests back within a minute, and a daily quota that binds gives none back before its Reset / Expected Reset to be when the limit resets`,
    later.seq,
    'requests given back long before a Reset more than a minute away',
  );
  return [{ ...found, pairedWith: earlier.seq, expected: { kind: 'window-until', value: resetMs } }];
}

/** RATE-008's second half: within one window (sameWindow) the Limit stays the same. */
export function checkLimitStable(prev: Exchange, next: Exchange, clock?: ServerClock): Finding[] {
  const [earlier, later] = inOrder(prev, next);
  if (!keyedPair(earlier, later)) return [];
  const before = readExchange(earlier).limit;
  const after = readExchange(later).limit;
  if (before === undefined || after === undefined || before === after) return [];
  const resetMs = plausibleResetMs(earlier, clock);
  const laterReset = plausibleResetMs(later, clock);
  // A later Reset beyond the earlier one by more than whole seconds explain is another limit's (the day's).
  if (resetMs !== undefined && laterReset !== undefined && laterReset > resetMs + WHOLE_SECONDS_MS) return [];
  if (resetMs === undefined || !sameWindow({ ex: earlier, resetMs }, { ex: later, resetMs: laterReset }, clock)) return [];
  const found = pairFinding(
    'RATE-008',
    `X-RateLimit-Limit changed from ${before} to ${after} within the window ending ${iso(resetMs)} (exchanges ${earlier.seq} and ${later.seq}) / Expected one limit for the whole window`,
    later.seq,
    'X-RateLimit-Limit changing between two responses of one window',
  );
  return [{ ...found, pairedWith: earlier.seq, ...(before > BigInt(Number.MAX_SAFE_INTEGER) ? {} : { expected: { kind: 'limit' as const, value: Number(before) } }) }];
}

/** A violation two responses show together, neither alone. */
const pairFinding = (requirement: string, message: string, exchange: number, sequence: string): Finding => shownOnlyBy(violation(requirement, message, exchange), sequence);

/**
 * Every check of section 8 that compares two keyed exchanges as they arrive: RATE-008's stable
 * Limit on consecutive ones; RATE-003's early refill on `next` and the previous keyed response of
 * the same operation (`sameOperation`; default `prev`), or its give-back before a Reset more than a
 * minute away on `next` and each of the operation's open announcements (`distantResets`,
 * openDistantResets; default the previous response of the operation). A limit kept per route refills when the
 * run moves to another operation, whose count and window are its own: a rise of Remaining, which
 * the rise rule makes RATE-002's (remaining-rise.ts), never a Reset that came early. A limit that
 * really resets early refills the same operation's count too.
 */
export function checkRateLimitPair(prev: Exchange, next: Exchange, clock?: ServerClock, sameOperation: Exchange = prev, distantResets: readonly Exchange[] = [sameOperation]): Finding[] {
  const refill = checkRefillBeforeReset(sameOperation, next, clock);
  // A full refill before the Reset is the stronger finding of the two; one finding per response.
  const early = refill.length > 0 ? refill : firstGiveBack(distantResets, next, clock);
  return [...early, ...checkLimitStable(prev, next, clock)];
}

function firstGiveBack(earlier: readonly Exchange[], next: Exchange, clock: ServerClock | undefined): Finding[] {
  for (const e of earlier) {
    const found = checkGiveBackBeforeDistantReset(e, next, clock);
    if (found.length > 0) return found;
  }
  return [];
}

/** At most this many announcements are kept per operation: the check stays linear in the run's length. */
const MAX_OPEN_ANNOUNCEMENTS = 32;

/**
 * The give-back rule's earlier responses of one operation after `ex` arrived: those that announced a
 * Reset surely more than a minute ahead and whose Reset is still surely more than 2 s off. Every
 * one of them is compared with the operation's later responses, not only the previous one, since
 * which request the run sends next depends on its pace (a busy machine's run put 400s of another
 * test between a Remaining of 10 under a Reset 70 s ahead and the 59 a minute later). One that
 * promises no less (Remaining as low or lower, its Reset as late or later) replaces another.
 */
export function openDistantResets(open: readonly Exchange[], ex: Exchange, clock?: ServerClock): Exchange[] {
  const now = serverMoment(ex, clock)?.earliest;
  const stillOpen = (e: Exchange): boolean => now === undefined || (plausibleResetMs(e, clock) ?? 0) - WHOLE_SECONDS_MS > now;
  const kept = open.filter(stillOpen);
  const resetMs = plausibleResetMs(ex, clock);
  const ahead = resetMs === undefined ? undefined : announcedAheadMs(ex, resetMs, clock);
  const remaining = readExchange(ex).remaining;
  if (ex.request.auth !== 'key' || resetMs === undefined || ahead === undefined || remaining === undefined || ahead <= MINUTE_RESET_AHEAD_MS) return kept;
  const promisesLess = (e: Exchange): boolean => (readExchange(e).remaining ?? 0n) >= remaining && (plausibleResetMs(e, clock) ?? 0) <= resetMs;
  return [...kept.filter((e) => !promisesLess(e)), ex].slice(-MAX_OPEN_ANNOUNCEMENTS);
}

/**
 * RATE-003 over the whole run: a window's Reset never moves back. A fixed window's next Reset is
 * a window later, a sliding log's is its oldest request's expiry, a token bucket's the moment it is
 * full again: each only ever moves on, however the run's windows fall. Compared within one
 * operation (a limit kept per route has a count and a Reset of its own), between keyed responses
 * in order (the earlier answered before the later was sent), and only Resets of a per-minute
 * window (at most MINUTE_RESET_AHEAD_MS ahead of their response): a daily quota's Reset, hours away, gives
 * way to the window's again once the window binds. Whole-second values compared as sent: the same
 * clock wrote both. At most one finding per operation, its first.
 */
export function findResetsMovingBack(exchanges: readonly Exchange[], clock?: ServerClock): Finding[] {
  const latest = new Map<string, { ex: Exchange; resetMs: number }[]>();
  const findings = new Map<string, Finding>();
  for (const ex of [...exchanges].sort((a, b) => a.seq - b.seq)) {
    if (ex.request.auth !== 'key' || ex.response === undefined) continue;
    const resetMs = plausibleResetMs(ex, clock);
    const ahead = resetMs === undefined ? undefined : announcedAheadMs(ex, resetMs, clock);
    if (resetMs === undefined || ahead === undefined || ahead > MINUTE_RESET_AHEAD_MS) continue;
    const operation = operationOf(ex) ?? 'other';
    const earlier = latest.get(operation) ?? [];
    // The furthest Reset among the operation's responses answered before this one was sent.
    const before = earlier.filter((e) => receivedAt(e.ex) <= ex.sentAt + IN_FLIGHT_TOLERANCE_MS).reduce<{ ex: Exchange; resetMs: number } | undefined>((a, e) => (a === undefined || e.resetMs > a.resetMs ? e : a), undefined);
    if (before !== undefined && resetMs < before.resetMs && !findings.has(operation)) {
      const found = pairFinding(
        'RATE-003',
        `X-RateLimit-Reset moved back from ${iso(before.resetMs)} (exchange ${before.ex.seq}) to ${iso(resetMs)} (exchange ${ex.seq}), both ${operation} / Expected each Reset of the window to name the same moment or a later one`,
        ex.seq,
        'an X-RateLimit-Reset earlier than one a response before it announced',
      );
      findings.set(operation, { ...found, pairedWith: before.ex.seq, expected: { kind: 'window-until', value: before.resetMs } });
    }
    // Responses still in flight may be answered in either order: keep those the next one may follow.
    latest.set(operation, [...earlier.filter((e) => e.resetMs > resetMs || receivedAt(e.ex) > ex.sentAt), { ex, resetMs }].slice(-MAX_OPEN_ANNOUNCEMENTS));
  }
  return [...findings.values()];
}

/** A reading of a per-minute window (its Reset at most MINUTE_RESET_AHEAD_MS ahead), as the give-back rule reads it. */
function announcementOf(ex: Exchange, clock: ServerClock | undefined): Reading | undefined {
  const reading = readingOf(ex, clock);
  const ahead = reading === undefined ? undefined : announcedAheadMs(ex, reading.resetMs, clock);
  return ahead === undefined || ahead > MINUTE_RESET_AHEAD_MS ? undefined : reading;
}

/**
 * RATE-003 over the whole run: once the Reset a response announced has surely come (it lies
 * before the earliest Reset the later response could itself announce, resetSurelyPassedAt), the
 * limit has reset, so at least one request it had counted is given back. A fixed window gives
 * back all of them, a token bucket announcing when it is full likewise, one announcing its next
 * token that token, and a sliding log its oldest request: every one at least one. So a later
 * served response of the same operation (a limit kept per route has a Reset of its own) may not
 * show Remaining as low as if nothing had been given back: the earlier Remaining less the run's
 * requests that may have been counted in between (possiblyCountedBetween, an upper bound: any
 * credentials, with headers or without, 429s too) and what other users of a shared key may have
 * spent (othersMaySpend; nothing on a dedicated key). Only Resets of a per-minute window (at most
 * 62 s ahead of their response) on both: a daily quota that binds gives nothing back before its
 * own Reset. An earlier response at its Limit had nothing to give back. At most one finding per
 * operation, its first.
 */
export function findResetsPassedWithNothingGivenBack(exchanges: readonly Exchange[], mode: KeyMode = 'shared', clock?: ServerClock): Finding[] {
  const dedicated = mode === 'dedicated';
  const seenOthers = dedicated ? 0n : othersSpentInAWindow(exchanges, clock);
  const recent = new Map<string, Reading[]>();
  const findings = new Map<string, Finding>();
  for (const ex of [...exchanges].sort((a, b) => a.seq - b.seq)) {
    const later = announcementOf(ex, clock);
    if (later === undefined) continue;
    const operation = operationOf(ex) ?? 'other';
    const earlier = recent.get(operation) ?? [];
    if (ex.response?.status !== 429 && !findings.has(operation)) {
      const found = firstNothingGivenBack(exchanges, earlier, later, dedicated, seenOthers, clock);
      if (found !== undefined) findings.set(operation, found);
    }
    recent.set(operation, [later, ...earlier].slice(0, MAX_OPEN_ANNOUNCEMENTS));
  }
  return [...findings.values()];
}

/** The latest of `earlier` (newest first) whose Reset had surely come at `later` and of whose requests `later` shows none given back. */
function firstNothingGivenBack(exchanges: readonly Exchange[], earlier: readonly Reading[], later: Reading, dedicated: boolean, seenOthers: bigint, clock: ServerClock | undefined): Finding | undefined {
  for (const e of earlier) {
    if (e.remaining >= e.limit || receivedAt(e.ex) > later.ex.sentAt + IN_FLIGHT_TOLERANCE_MS || !resetSurelyPassedAt(e.resetMs, later.ex, clock)) continue;
    const others = othersMaySpend(dedicated, e.limit, seenOthers);
    // The later request itself is counted in between: a cheap bound first, the costly count only where it may tell.
    if (later.remaining + 1n + others > e.remaining) continue;
    const between = BigInt(possiblyCountedBetween(exchanges, e.ex, later.ex));
    if (later.remaining + between + others > e.remaining) continue;
    const atLeast = e.remaining + 1n - between - others;
    const found = pairFinding(
      'RATE-003',
      `X-RateLimit-Reset ${iso(e.resetMs)} (exchange ${e.ex.seq}, Remaining ${e.remaining} of ${e.limit}) had passed by exchange ${later.ex.seq}, which still shows Remaining ${later.remaining}: ` +
        `with ${between} of the run's requests that may have been counted in between${others > 0n ? ` and ${others} for other users of the key` : ''}, nothing was given back / Expected the limit to reset at the Reset announced, giving back at least one request`,
      later.ex.seq,
      'a Reset that passed with nothing given back',
    );
    return { ...found, pairedWith: e.ex.seq, expected: { kind: 'remaining-at-least', value: Number(atLeast) } };
  }
  return undefined;
}
