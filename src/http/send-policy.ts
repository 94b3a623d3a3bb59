/**
 * The hook through which a send policy times a send (the rate-limit area's: src/rate-limit/). The
 * client paces every send by the pacer's account; a policy may replace that timing for one send,
 * where the run tests a moment the pacer's own margins would hide. The client knows no policy: it
 * asks, and waits what it is told.
 */
import type { Exchange } from './exchange.js';
import type { Hold, Pacer } from './pacer.js';

/** A send about to go out, as the request asked for it. */
export interface PolicySend {
  paced: boolean;
  keyed: boolean;
  retryOn429: boolean;
  exactRetryAfter: boolean;
}

/** What a policy reads of the pacer's account; it never changes it. */
export type PacerView = Pick<Pacer, 'state' | 'throttled' | 'windowEndsAt' | 'retryAfterSaysUntil' | 'waitMarginMs' | 'holdBeforeSend'>;

/** The pacer's account at the moment of the send. */
export interface Pacing {
  pacer: PacerView;
  inFlightKeyed: number;
  now: number;
}

/** How a policy times one send. */
export interface SendTiming {
  /** The wait before the first try, in place of the pacer's hold; undefined: none. */
  hold: Hold | undefined;
  /** The wait before the single retry of a 429, in place of the pacer's. */
  retryHoldMs?: (now: number) => number;
  /** Told the first try's exchange as it is answered. */
  sent?: (first: Exchange) => void;
}

export interface SendPolicy {
  /**
   * Called as each send is about to go out, with no other send in between (so a once-per-run
   * choice is made once): undefined leaves the pacer's timing.
   */
  time(send: PolicySend, pacing: Pacing): SendTiming | undefined;
}
