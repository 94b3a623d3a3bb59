/**
 * Who spent the key's window: what X-RateLimit-Remaining fell by between two of the run's keyed
 * responses of one window (key-windows.ts), against the run's own requests that the server may
 * have counted in between. What is left over was spent by someone else. On a shared key (the
 * default) that is another client, an observation; on a dedicated key (--dedicated-key) nobody
 * else may spend it, so it is the server counting more than it served: RATE-002 fails with the
 * figures. A count deferred (deferred-counting.ts) fails it whatever the key mode.
 */
import type { Exchange } from '../http/exchange.js';
import type { KeyMode } from '../run-config.js';
import { observation, shownOnlyBy, violation, type Finding } from './finding.js';
import { readExchange } from '../rate-limit/reading.js';
import { findDeferredCounting } from './deferred-counting.js';
import { gapsByWindow, type Gap } from './key-windows.js';
import { serverClockOf, type ServerClock } from './server-clock.js';
import { iso } from './text.js';

export { othersMaySpend, sharedKeyAllowance } from './key-windows.js';
export { findDeferredCounting } from './deferred-counting.js';

const REQ = 'RATE-002';

/** Everything the run's headers showed about consumption it did not cause. */
export interface OtherUse {
  /** Windows (by their Reset) in which others spent at least one request. */
  windows: number;
  /** Windows the run saw twice or more, so that a fall could be measured. */
  measured: number;
  /** The window (its Reset, Unix ms) in which others spent most, and how much. */
  busiest?: { resetMs: number; limit: bigint | undefined; spent: bigint; first: Exchange; last: Exchange };
}

/**
 * What the headers show others spent: in each gap, the fall of Remaining beyond the run's own
 * requests that may have been counted in it. A lower bound: a limiter that refills hides some,
 * and the run's requests are counted as generously as their timing allows. The server's clock is
 * read from the exchanges when not given.
 */
export function otherUseOf(exchanges: readonly Exchange[], clock: ServerClock | undefined = serverClockOf(exchanges)): OtherUse {
  const use: OtherUse = { windows: 0, measured: 0 };
  for (const [resetMs, gaps] of gapsByWindow(exchanges, clock)) {
    use.measured += 1;
    const spent = gaps.reduce((sum, g) => sum + (g.others > 0n ? g.others : 0n), 0n);
    if (spent <= 0n) continue;
    use.windows += 1;
    const first = gaps[0]?.from;
    const last = gaps.at(-1)?.to;
    if (first === undefined || last === undefined || (use.busiest !== undefined && use.busiest.spent >= spent)) continue;
    use.busiest = { resetMs, limit: readExchange(last).limit, spent, first, last };
  }
  return use;
}

/** The most the run saw others spend of one window of the key (0 when it saw none). */
export function othersSpentInAWindow(exchanges: readonly Exchange[], clock?: ServerClock): bigint {
  return otherUseOf(exchanges, clock).busiest?.spent ?? 0n;
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
    `window ending ${iso(b.resetMs)}); other use seen in ${use.windows} of the ${use.measured} windows the run measured`
  );
}

/**
 * RATE-002's account of who spent the key. Shared key: the other use, as an observation that says
 * how to hold every unit against the server. Dedicated key: a violation with the figures of the
 * largest gap, since every unit counted must be the run's own.
 */
export function judgeKeyUse(exchanges: readonly Exchange[], mode: KeyMode, clock: ServerClock | undefined = serverClockOf(exchanges)): Finding[] {
  const deferred = findDeferredCounting(exchanges, clock);
  if (deferred.length > 0) return deferred;
  const use = otherUseOf(exchanges, clock);
  const described = describeOtherUse(use, mode);
  if (described === undefined) return [];
  if (mode === 'shared') {
    return [observation(REQ, `The key may be shared: ${described}; not held against the server (run with --dedicated-key on a key nobody else uses to hold every unit against it)`, use.busiest?.last.seq)];
  }
  const worst = [...gapsByWindow(exchanges, clock).values()].flat().reduce<Gap | undefined>((w, g) => (w === undefined || g.others > w.others ? g : w), undefined);
  if (worst === undefined || worst.others <= 0n) return [];
  const [before, after] = [readExchange(worst.from).remaining, readExchange(worst.to).remaining];
  const found = shownOnlyBy(
    violation(
      REQ,
      `X-RateLimit-Remaining fell from ${before} (exchange ${worst.from.seq}) to ${after} (exchange ${worst.to.seq}), by ${worst.fell}, while this run sent at most ${worst.own} requests that could have been counted in between; ` +
        `on a dedicated key (--dedicated-key) nobody else spends it: ${described} / Expected Remaining to fall by the run's own requests only`,
      worst.to.seq,
    ),
    'a fall of X-RateLimit-Remaining beyond the run\'s requests between two responses',
  );
  const atLeast = before === undefined ? undefined : Number(before) - worst.own;
  return [{ ...found, pairedWith: worst.from.seq, ...(atLeast === undefined ? {} : { expected: { kind: 'remaining-at-least', value: atLeast } }) }];
}
