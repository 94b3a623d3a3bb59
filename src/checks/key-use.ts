/**
 * Who spent the key's window: what X-RateLimit-Remaining fell by between two of the run's keyed
 * responses, against the run's own requests that the server may have counted in between. What
 * is left over was spent by someone else. On a shared key (the default) that is another client,
 * an observation; on a dedicated key (--dedicated-key) nobody else may spend it, so it is the
 * server counting more than it served: RATE-002 fails with the figures.
 */
import type { Exchange } from '../http/exchange.js';
import type { KeyMode } from '../run-config.js';
import { observation, shownOnlyBy, violation, type Finding } from './finding.js';
import { limiterSaw, rateLimitValue } from './rate-limit-headers.js';
import { receivedAt } from './response-date.js';
import { iso } from './text.js';
import { isUnixSecondsReset } from '../rate-limit/reset-kind.js';

const REQ = 'RATE-002';

/** Other users of a shared key may spend this many of the announced requests unseen: max(2, 10 % of Limit). */
export function sharedKeyAllowance(limit: bigint | undefined): bigint {
  const tenth = limit === undefined ? 0n : (limit + 9n) / 10n;
  return tenth > 2n ? tenth : 2n;
}

/**
 * What other users of the key may have spent of one window unseen: nothing on a dedicated key; on a
 * shared one the allowance, or the most the run saw them spend of one window (`seenOthers`) when larger.
 */
export function othersMaySpend(dedicated: boolean, limit: bigint | undefined, seenOthers: bigint): bigint {
  if (dedicated) return 0n;
  const allowance = sharedKeyAllowance(limit);
  return allowance > seenOthers ? allowance : seenOthers;
}

/** One gap between two keyed responses of one window, and what others spent in it at least. */
interface Gap {
  from: Exchange;
  to: Exchange;
  fell: bigint;
  /** The run's requests the server may have counted after `from` and up to `to` (`to` included). */
  own: number;
  others: bigint;
}

/** Everything the run's headers showed about consumption it did not cause. */
export interface OtherUse {
  /** Windows (by their Reset) in which others spent at least one request. */
  windows: number;
  /** Windows the run saw twice or more, so that a fall could be measured. */
  measured: number;
  /** The window in which others spent most, and how much. */
  busiest?: { reset: bigint; limit: bigint | undefined; spent: bigint; first: Exchange; last: Exchange };
}

/**
 * The run's requests (any credentials: a server may count per client address) that may have been
 * counted after `from` was and no later than `to`: those answered after `from` was sent and sent
 * before `to` was answered, `to` itself included. Those answered without rate-limit headers too:
 * a limiter may have counted a request whose headers something after it dropped, and an upper
 * bound only ever explains more of a fall (or of an early 429), never less.
 */
export function ownCountedBetween(exchanges: readonly Exchange[], from: Exchange, to: Exchange): number {
  return exchanges.filter((e) => e.seq !== from.seq && receivedAt(e) >= from.sentAt && e.sentAt <= receivedAt(to)).length;
}

const absoluteReset = (ex: Exchange): bigint | undefined => {
  const reset = rateLimitValue(ex, 'x-ratelimit-reset');
  return isUnixSecondsReset(reset) ? reset : undefined;
};

/**
 * The run's keyed requests served (not 429) with Remaining: what the limiter counted. A response
 * without Remaining (its request perhaps refused before the limiter) neither starts nor ends a gap;
 * it counts as the run's own in the one spanning it.
 */
const servedKeyed = (exchanges: readonly Exchange[]): Exchange[] =>
  exchanges.filter((e) => e.request.auth === 'key' && e.response !== undefined && e.response.status !== 429 && limiterSaw(e));

/**
 * The gaps between served keyed responses of one window (the same absolute Reset), each from the
 * end of the one before, where the first was answered before the second was sent: only then is
 * there an order to read. A response in flight with the gap's start (requests sent together) is
 * passed over, and counted as the run's own in the gap that spans it, so no gap overlaps another.
 */
function gapsByWindow(exchanges: readonly Exchange[]): Map<bigint, Gap[]> {
  const windows = new Map<bigint, Gap[]>();
  let previous: Exchange | undefined;
  for (const ex of servedKeyed(exchanges)) {
    const from = previous;
    if (from !== undefined && receivedAt(from) > ex.sentAt) continue;
    previous = ex;
    if (from === undefined) continue;
    const reset = absoluteReset(ex);
    const before = rateLimitValue(from, 'x-ratelimit-remaining');
    const after = rateLimitValue(ex, 'x-ratelimit-remaining');
    if (reset === undefined || reset !== absoluteReset(from) || before === undefined || after === undefined) continue;
    const own = ownCountedBetween(exchanges, from, ex);
    const fell = before - after;
    const gap = { from, to: ex, fell, own, others: fell - BigInt(own) };
    windows.set(reset, [...(windows.get(reset) ?? []), gap]);
  }
  return windows;
}

/**
 * What the headers show others spent: in each gap, the fall of Remaining beyond the run's own
 * requests that may have been counted in it. A lower bound: a limiter that refills hides some,
 * and the run's requests are counted as generously as their timing allows.
 */
export function otherUseOf(exchanges: readonly Exchange[]): OtherUse {
  const use: OtherUse = { windows: 0, measured: 0 };
  for (const [reset, gaps] of gapsByWindow(exchanges)) {
    use.measured += 1;
    const spent = gaps.reduce((sum, g) => sum + (g.others > 0n ? g.others : 0n), 0n);
    if (spent <= 0n) continue;
    use.windows += 1;
    const first = gaps[0]?.from;
    const last = gaps.at(-1)?.to;
    if (first === undefined || last === undefined || (use.busiest !== undefined && use.busiest.spent >= spent)) continue;
    use.busiest = { reset, limit: rateLimitValue(last, 'x-ratelimit-limit'), spent, first, last };
  }
  return use;
}

/** The most the run saw others spend of one window of the key (0 when it saw none). */
export function othersSpentInAWindow(exchanges: readonly Exchange[]): bigint {
  return otherUseOf(exchanges).busiest?.spent ?? 0n;
}

/**
 * Shared: "another client used at least 28 of this window's 60 requests (…)"; dedicated: "the
 * server counted at least 28 of this window's 60 requests beyond the run's own (…)". Undefined
 * when the headers showed no consumption the run did not cause.
 */
export function describeOtherUse(use: OtherUse, mode: KeyMode): string | undefined {
  const b = use.busiest;
  if (b === undefined) return undefined;
  const of = b.limit === undefined ? '' : ` of this window's ${b.limit} requests`;
  const who = mode === 'shared' ? `another client used at least ${b.spent}${of}` : `the server counted at least ${b.spent}${of} beyond the run's own`;
  return (
    `${who} (X-RateLimit-Remaining fell that much faster than this run's requests between exchanges ${b.first.seq} and ${b.last.seq}, ` +
    `window ending ${iso(Number(b.reset) * 1000)}); other use seen in ${use.windows} of the ${use.measured} windows the run measured`
  );
}

/**
 * The run's keyed requests certainly counted after `from` and no later than `to`: sent once
 * `from` was answered, answered by the time `to` was, served (`to` itself included), and handled
 * by the limiter (limiterSaw: one answered without Remaining may never have been counted).
 */
function surelyCountedBetween(exchanges: readonly Exchange[], from: Exchange, to: Exchange): number {
  return exchanges.filter(
    (e) =>
      e.seq !== from.seq && e.request.auth === 'key' && e.response !== undefined && e.response.status !== 429 && limiterSaw(e) && e.sentAt >= receivedAt(from) && receivedAt(e) <= receivedAt(to),
  ).length;
}

/** Requests of one window served without Remaining falling, and the responses that show it. */
interface StandStill {
  count: bigint;
  from: Exchange;
  to: Exchange;
  /** What Remaining showed, for the message. */
  shown: string;
}

/**
 * Served one after another: in each gap of the window, the requests surely counted in it beyond
 * what Remaining fell by.
 */
function stoodStillInOrder(exchanges: readonly Exchange[], gaps: readonly Gap[]): StandStill | undefined {
  let count = 0n;
  let from: Exchange | undefined;
  let to: Exchange | undefined;
  for (const g of gaps) {
    const back = BigInt(surelyCountedBetween(exchanges, g.from, g.to)) - g.fell;
    if (back <= 0n) continue;
    count += back;
    from ??= g.from;
    to = g.to;
  }
  if (from === undefined || to === undefined) return undefined;
  return { count, from, to, shown: `Remaining ${rateLimitValue(from, 'x-ratelimit-remaining')} then ${rateLimitValue(to, 'x-ratelimit-remaining')}` };
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
    const remaining = rateLimitValue(e, 'x-ratelimit-remaining');
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
  return { count: BigInt(inOrder.length - 1), from, to, shown: `Remaining ${rateLimitValue(to, 'x-ratelimit-remaining')} on ${inOrder.length} responses, some in flight together` };
}

/** The served keyed responses of each window, by its absolute Reset. */
function servedByWindow(exchanges: readonly Exchange[]): Map<bigint, Exchange[]> {
  const windows = new Map<bigint, Exchange[]>();
  for (const e of servedKeyed(exchanges)) {
    const reset = absoluteReset(e);
    if (reset === undefined) continue;
    const window = windows.get(reset) ?? [];
    window.push(e);
    windows.set(reset, window);
  }
  return windows;
}

/**
 * Within one window, Remaining that stood still while the run's requests were served, one after
 * another or in flight together, and then the window used up by as much sooner: the requests
 * were not counted as they were served. Another client only ever adds to the fall, so no sharing
 * of the key explains the standing still; a limiter that gives requests back (sliding window,
 * token bucket) explains it, but not a window used up that much sooner afterwards. Both beyond
 * max(2, 10 % of Limit) in one window: RATE-002 fails, whatever the key mode.
 */
export function findDeferredCounting(exchanges: readonly Exchange[]): Finding[] {
  const gaps = gapsByWindow(exchanges);
  for (const [reset, responses] of servedByWindow(exchanges)) {
    for (const still of [stoodStillInOrder(exchanges, gaps.get(reset) ?? []), stoodStillTogether(responses)]) {
      const found = still === undefined ? undefined : usedUpSooner(exchanges, reset, still);
      if (found !== undefined) return [found];
    }
  }
  return [];
}

/** The finding when the window was then used up sooner than `still` announced by more than the allowance. */
function usedUpSooner(exchanges: readonly Exchange[], reset: bigint, still: StandStill): Finding | undefined {
  const allowance = sharedKeyAllowance(rateLimitValue(still.to, 'x-ratelimit-limit'));
  if (still.count <= allowance) return undefined;
  const after = windowEnd(exchanges, still.to, reset);
  if (after === undefined) return undefined;
  const stood = rateLimitValue(still.to, 'x-ratelimit-remaining') ?? 0n;
  const ownAfter = ownCountedBetween(exchanges, still.to, after.at) - (after.remaining === 0n && after.at.response?.status === 429 ? 1 : 0);
  const sooner = stood - after.remaining - BigInt(ownAfter);
  if (sooner <= allowance) return undefined;
  const found = withSequence(
    REQ,
    `X-RateLimit-Remaining did not fall with ${still.count} of the run's requests in the window ending ${iso(Number(reset) * 1000)} (exchanges ${still.from.seq} to ${still.to.seq}, ${still.shown}), ` +
      `then the window was used up ${sooner} requests sooner than that announced (exchange ${after.at.seq}, after at most ${ownAfter} more of the run's requests) / Expected Remaining to fall as each request is served`,
    after.at.seq,
    'X-RateLimit-Remaining standing still while requests were served, then the window used up early',
  );
  // Where the window ended, what stood announced still left at least this many.
  return { ...found, pairedWith: still.to.seq, expected: { kind: 'remaining-at-least', value: Number(stood) - ownAfter } };
}

/** Where the window ends for the run after `from`: its first 429 (nothing left), else its lowest Remaining. */
function windowEnd(exchanges: readonly Exchange[], from: Exchange, reset: bigint): { at: Exchange; remaining: bigint } | undefined {
  let end: { at: Exchange; remaining: bigint } | undefined;
  for (const e of exchanges) {
    if (e.seq <= from.seq || e.request.auth !== 'key' || e.response === undefined || absoluteReset(e) !== reset) continue;
    if (e.response.status === 429) return { at: e, remaining: 0n };
    const remaining = rateLimitValue(e, 'x-ratelimit-remaining');
    if (remaining !== undefined && (end === undefined || remaining < end.remaining)) end = { at: e, remaining };
  }
  return end;
}

/**
 * RATE-002's account of who spent the key. Shared key: the other use, as an observation that says
 * how to hold every unit against the server. Dedicated key: a violation with the figures of the
 * largest gap, since every unit counted must be the run's own.
 */
export function judgeKeyUse(exchanges: readonly Exchange[], mode: KeyMode): Finding[] {
  const deferred = findDeferredCounting(exchanges);
  if (deferred.length > 0) return deferred;
  const use = otherUseOf(exchanges);
  const described = describeOtherUse(use, mode);
  if (described === undefined) return [];
  if (mode === 'shared') {
    return [observation(REQ, `The key may be shared: ${described}; not held against the server (run with --dedicated-key on a key nobody else uses to hold every unit against it)`, use.busiest?.last.seq)];
  }
  const worst = [...gapsByWindow(exchanges).values()].flat().reduce<Gap | undefined>((w, g) => (w === undefined || g.others > w.others ? g : w), undefined);
  if (worst === undefined || worst.others <= 0n) return [];
  const [before, after] = [rateLimitValue(worst.from, 'x-ratelimit-remaining'), rateLimitValue(worst.to, 'x-ratelimit-remaining')];
  const found = withSequence(
    REQ,
    `X-RateLimit-Remaining fell from ${before} (exchange ${worst.from.seq}) to ${after} (exchange ${worst.to.seq}), by ${worst.fell}, while this run sent at most ${worst.own} requests that could have been counted in between; ` +
      `on a dedicated key (--dedicated-key) nobody else spends it: ${described} / Expected Remaining to fall by the run's own requests only`,
    worst.to.seq,
    'a fall of X-RateLimit-Remaining beyond the run\'s requests between two responses',
  );
  const atLeast = before === undefined ? undefined : Number(before) - worst.own;
  return [{ ...found, pairedWith: worst.from.seq, ...(atLeast === undefined ? {} : { expected: { kind: 'remaining-at-least', value: atLeast } }) }];
}

/** A violation of the key's account: only the run's sequence of responses shows it. */
const withSequence = (requirement: string, message: string, exchange: number, sequence: string): Finding => shownOnlyBy(violation(requirement, message, exchange), sequence);
