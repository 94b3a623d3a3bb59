/**
 * RATE-002, a count deferred: within one window, Remaining that stood still while the run's
 * requests were served, one after another or in flight together, and then the window used up by
 * as much sooner: the requests were not counted as they were served. Another client only ever
 * adds to the fall, so no sharing of the key explains the standing still; a limiter that gives
 * requests back (sliding window, token bucket) explains it, but not a window used up that much
 * sooner afterwards. Both beyond max(2, 10 % of Limit) in one window: RATE-002 fails, whatever
 * the key mode.
 */
import type { Exchange } from '../http/exchange.js';
import { shownOnlyBy, violation, type Finding } from './finding.js';
import { plausibleResetMs } from '../rate-limit/headers.js';
import { readExchange } from '../rate-limit/reading.js';
import { CountedRequests, possiblyCountedBetween } from '../rate-limit/counting.js';
import { gapsByWindow, inWindowOf, servedByWindow, sharedKeyAllowance, type Gap } from './key-windows.js';
import { resetsRepeatedPast } from '../rate-limit/window.js';
import { receivedAt } from './response-date.js';
import { serverClockOf, type ServerClock } from './server-clock.js';
import { iso } from './text.js';

const REQ = 'RATE-002';

/** Requests of one window served without Remaining falling, and the responses that show it. */
interface StandStill {
  count: bigint;
  from: Exchange;
  to: Exchange;
  /** What Remaining showed, for the message. */
  shown: string;
}

const remainingOf = (ex: Exchange): bigint | undefined => readExchange(ex).remaining;

/**
 * Served one after another: in each gap of the window, the requests surely counted in it
 * (CountedRequests.surelyBetween, a lower bound) beyond what Remaining fell by.
 */
function stoodStillInOrder(counts: CountedRequests, gaps: readonly Gap[]): StandStill | undefined {
  let count = 0n;
  let from: Exchange | undefined;
  let to: Exchange | undefined;
  for (const g of gaps) {
    const back = BigInt(counts.surelyBetween(g.from, g.to)) - g.fell;
    if (back <= 0n) continue;
    count += back;
    from ??= g.from;
    to = g.to;
  }
  if (from === undefined || to === undefined) return undefined;
  return { count, from, to, shown: `Remaining ${remainingOf(from)} then ${remainingOf(to)}` };
}

/**
 * Served in flight together (a burst, or a run the machine's load bunched up), where the gaps
 * see no order to measure: the window's responses that announce the same Remaining above 0. A
 * counter that counts each request it serves gives each its own value, so all but one of them
 * were served without Remaining falling. A server that reads Remaining before it counts shows
 * repeats too, but its window then lasts as announced: the requests in flight with the last of
 * them are counted as the run's own after it, which is what tells the two apart.
 */
function stoodStillTogether(responses: readonly Exchange[]): StandStill | undefined {
  const byValue = new Map<bigint, Exchange[]>();
  for (const e of responses) {
    const remaining = remainingOf(e);
    if (remaining === undefined || remaining === 0n) continue;
    const group = byValue.get(remaining) ?? [];
    group.push(e);
    byValue.set(remaining, group);
  }
  let most: Exchange[] = [];
  for (const group of byValue.values()) if (group.length > most.length) most = group;
  const inOrder = [...most].sort((a, b) => receivedAt(a) - receivedAt(b));
  const [from, to] = [inOrder[0], inOrder.at(-1)];
  if (from === undefined || to === undefined || inOrder.length < 2) return undefined;
  return { count: BigInt(inOrder.length - 1), from, to, shown: `Remaining ${remainingOf(to)} on ${inOrder.length} responses, some in flight together` };
}

/** The deferred count of the run (see the file's comment): at most one finding, its first window's. */
export function findDeferredCounting(exchanges: readonly Exchange[], clock: ServerClock | undefined = serverClockOf(exchanges)): Finding[] {
  const gaps = gapsByWindow(exchanges, clock);
  const counts = new CountedRequests(exchanges);
  for (const [resetMs, responses] of servedByWindow(exchanges, clock)) {
    for (const still of [stoodStillInOrder(counts, gaps.get(resetMs) ?? []), stoodStillTogether(responses)]) {
      const found = still === undefined ? undefined : usedUpSooner(exchanges, resetMs, still, clock);
      if (found !== undefined) return [found];
    }
  }
  return [];
}

/**
 * What shows a Remaining that stood still (Finding.shownOnlyBy): a window used up, which the
 * requirement's own tests need not reach on their own, so replay never calls its re-run's pass fixed.
 */
export const STANDING_STILL_SEQUENCE = 'X-RateLimit-Remaining standing still while requests were served, then the window used up early';

/** The finding when the window was then used up sooner than `still` announced by more than the allowance. */
function usedUpSooner(exchanges: readonly Exchange[], resetMs: number, still: StandStill, clock: ServerClock | undefined): Finding | undefined {
  const allowance = sharedKeyAllowance(readExchange(still.to).limit);
  if (still.count <= allowance) return undefined;
  const after = windowEnd(exchanges, still.to, clock);
  if (after === undefined) return undefined;
  const stood = remainingOf(still.to) ?? 0n;
  const ownAfter = possiblyCountedBetween(exchanges, still.to, after.at) - (after.remaining === 0n && after.at.response?.status === 429 ? 1 : 0);
  const sooner = stood - after.remaining - BigInt(ownAfter);
  if (sooner <= allowance) return undefined;
  const found = shownOnlyBy(
    violation(
      REQ,
      `X-RateLimit-Remaining did not fall with ${still.count} of the run's requests in the window ending ${iso(resetMs)} (exchanges ${still.from.seq} to ${still.to.seq}, ${still.shown}), ` +
        `then the window was used up ${sooner} requests sooner than that announced (exchange ${after.at.seq}, after at most ${ownAfter} more of the run's requests) / Expected Remaining to fall as each request is served`,
      after.at.seq,
    ),
    STANDING_STILL_SEQUENCE,
  );
  // Where the window ended, what stood announced still left at least this many.
  return { ...found, pairedWith: still.to.seq, expected: { kind: 'remaining-at-least', value: Number(stood) - ownAfter } };
}

/** Where the window `from` announced ends for the run after it: its first 429 there (nothing left), else its lowest Remaining. */
function windowEnd(exchanges: readonly Exchange[], from: Exchange, clock: ServerClock | undefined): { at: Exchange; remaining: bigint } | undefined {
  const resetMs = plausibleResetMs(from, clock);
  if (resetMs === undefined) return undefined;
  let end: { at: Exchange; remaining: bigint } | undefined;
  const repeatedPast = resetsRepeatedPast(exchanges, clock);
  for (const e of exchanges) {
    if (e.seq <= from.seq || !readExchange(e).keyed || e.response === undefined || !inWindowOf({ ex: from, resetMs }, e, clock, repeatedPast)) continue;
    if (e.response.status === 429) return { at: e, remaining: 0n };
    const remaining = remainingOf(e);
    if (remaining !== undefined && (end === undefined || remaining < end.remaining)) end = { at: e, remaining };
  }
  return end;
}
