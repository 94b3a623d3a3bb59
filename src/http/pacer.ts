/**
 * The rate-limit account of the run's key and every decision to wait or stop that follows from it.
 *
 * It keeps the last X-RateLimit-* values of the key's bucket and the pending Retry-After of the
 * last 429, and answers "how long must this send wait" and "must the run stop". It never sleeps
 * and never reads a clock: the client passes the time and does the waiting, so every rule here
 * can be followed with a fake clock.
 */
import type { HaltReason } from './errors.js';
import { retryAfterDelayFrom } from './retry-after.js';
import { resetAtMs, type ExchangeReading } from '../rate-limit/reading.js';

export interface RateLimitState {
  limit?: number;
  remaining?: number;
  /** X-RateLimit-Reset as the server sent it (Unix seconds per the spec). */
  reset?: number;
  /** Unix ms before which no request is sent, from the last 429's Retry-After (or fallback). */
  retryAfterUntil?: number;
}

export interface WaitBounds {
  /** Longest single wait (default 65 000 ms). */
  maxWaitMs?: number | undefined;
  /** Unix ms of the run's deadline, if any. */
  deadlineAt?: number | undefined;
  /**
   * Added to every computed deadline (default 250 ms): server clocks and the rounding of
   * Reset/Retry-After to seconds. The embedded reference server shares this process's clock and
   * rounds both up, so it needs only the timers' own slack (src/api/run.ts).
   */
  waitMarginMs?: number | undefined;
}

/** A wait the pacer asks for before a send. */
export interface Hold {
  ms: number;
  reason: string;
}

/** Why a wait must not be made: the run stops instead. */
export interface Refusal {
  reason: HaltReason;
  message: string;
}

const DEFAULT_MAX_WAIT_MS = 65_000;
const DEFAULT_WAIT_MARGIN_MS = 250;
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_CAP_MS = 32_000;
/** A 429 right after a 429 means our waits are not enough; going on risks getting the key banned. */
const MAX_CONSECUTIVE_429 = 2;

export class Pacer {
  private readonly maxWaitMs: number;
  private readonly deadlineAt: number | undefined;
  /** Added to every wait the pacer computes (WaitBounds.waitMarginMs). */
  readonly waitMarginMs: number;
  private readonly limits: RateLimitState = {};
  private throttledCount = 0;
  /** 429s answered to requests sent after the previous 429 arrived: these alone grow the backoff and count towards a halt. */
  private answered429 = 0;
  private consecutive429 = 0;
  /** Highest seq already sent when the last counted 429 arrived: responses up to it were in flight then. */
  private sentWhen429 = 0;
  /** X-RateLimit-Reset turned into Unix ms when it was observed. */
  private resetAtMs: number | undefined;
  /** seq of the keyed response the window state comes from, and of the last 429. */
  private windowSeq = 0;
  private retryAfterSeq = 0;
  /** Unix ms at which the last 429's own Retry-After passes, without backoff; undefined without one. */
  private retryAfterExactUntil: number | undefined;

  constructor(bounds: WaitBounds) {
    this.maxWaitMs = bounds.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    this.deadlineAt = bounds.deadlineAt;
    this.waitMarginMs = bounds.waitMarginMs ?? DEFAULT_WAIT_MARGIN_MS;
  }

  get state(): Readonly<RateLimitState> {
    return { ...this.limits };
  }

  /** 429 responses seen, whatever the auth mode. */
  get throttled(): number {
    return this.throttledCount;
  }

  /** X-RateLimit-Reset of the key's window, as Unix ms on the local clock; undefined before one was seen. */
  get windowEndsAt(): number | undefined {
    return this.resetAtMs;
  }

  /** Unix ms at which the last counted 429's own Retry-After passes, without backoff; undefined when it sent none. */
  get retryAfterSaysUntil(): number | undefined {
    return this.retryAfterExactUntil;
  }

  /** True once 429s came back to back: the run must stop sending. */
  get throttledTooOften(): boolean {
    return this.consecutive429 >= MAX_CONSECUTIVE_429;
  }

  /**
   * Updates the account from a response's reading (src/rate-limit/reading.ts): the window from a
   * keyed one (the other auth modes hit other buckets), the Retry-After deadline and backoff from
   * any 429.
   *
   * `sentSoFar` is the highest seq sent when this response arrived. A response to a request sent
   * before the last 429 arrived (a concurrent burst's in-flight requests) neither counts as a
   * 429 "in a row" nor clears that count: the client could not have heeded a 429 it had not seen.
   */
  observe(seq: number, reading: ExchangeReading, now: number, sentSoFar = seq): void {
    if (reading.keyed) this.observeWindow(seq, reading, now);
    const inFlightAtLast429 = seq <= this.sentWhen429;

    if (reading.status !== 429) {
      if (!inFlightAtLast429) this.consecutive429 = 0;
      return;
    }
    this.throttledCount++;
    if (inFlightAtLast429) {
      // Its Retry-After may still be later than the first one's: keep the later deadline.
      const until = now + this.retryAfterOf(reading, now, this.backoff());
      this.limits.retryAfterUntil = Math.max(this.limits.retryAfterUntil ?? 0, until);
      return;
    }
    this.answered429++;
    this.consecutive429++;
    this.sentWhen429 = Math.max(seq, sentSoFar);
    this.limits.retryAfterUntil = now + this.retryAfterOf(reading, now, this.backoff());
    // Its own delay, an HTTP-date measured against the response's Date (the server's clock).
    const { retryAfter } = reading;
    this.retryAfterExactUntil = retryAfter === undefined ? undefined : now + retryAfterDelayFrom(retryAfter, reading.dateMs ?? now);
    this.retryAfterSeq = seq;
  }

  /**
   * How long a send must wait: a pending Retry-After holds every send, an exhausted window holds
   * paced keyed sends. Every send asked for before the window ends is held, concurrent ones too:
   * none of them has slept yet, so letting any through would spend a request the window lacks.
   * Once the wait is over, now is past Reset and the stale Remaining=0 no longer holds anyone.
   * `retryAfterUntil` replaces the pending Retry-After's moment for a send policy that times it
   * otherwise (src/rate-limit/exact-retry.ts).
   */
  holdBeforeSend(send: { paced: boolean; keyed: boolean }, inFlightKeyed: number, now: number, retryAfterUntil = this.limits.retryAfterUntil): Hold | undefined {
    let until = 0;
    let reason = '';
    if (retryAfterUntil !== undefined && retryAfterUntil > now) {
      until = retryAfterUntil + this.waitMarginMs;
      reason = 'Retry-After of the last 429';
    }
    if (send.paced && send.keyed && this.windowExhausted(now, inFlightKeyed) && this.resetAtMs !== undefined) {
      const windowEnd = this.resetAtMs + this.waitMarginMs;
      if (windowEnd > until) {
        until = windowEnd;
        reason = 'X-RateLimit-Remaining is 0 until X-RateLimit-Reset';
      }
    }
    return until > now ? { ms: until - now, reason } : undefined;
  }

  /** How long to wait before the single retry of a 429. */
  holdBeforeRetry(now: number): number {
    const until = this.limits.retryAfterUntil ?? now;
    return Math.max(0, until - now) + this.waitMarginMs;
  }

  /**
   * After 429s in a row, the server's other instruction: hold every send until the window's
   * X-RateLimit-Reset (and no earlier than the backoff). False when no Reset lies ahead, so the
   * caller stops instead.
   */
  holdUntilReset(now: number): boolean {
    if (this.resetAtMs === undefined || this.resetAtMs <= now) return false;
    this.limits.retryAfterUntil = Math.max(this.resetAtMs, this.limits.retryAfterUntil ?? 0);
    return true;
  }

  /**
   * Whether a keyed request may be sent while `inFlight` keyed requests are unanswered (a few
   * independent cases sent together): the window's last Remaining, less every request in flight
   * and this one, still leaves one to spare, and no 429 was met nor Retry-After is pending. The
   * spare one is sent alone, so the pacer's hold and the limit probe see it as on a sequential
   * run. Unknown Remaining or Reset: never, nothing says the window has room.
   */
  roomToOverlap(inFlight: number, now: number): boolean {
    const { remaining } = this.limits;
    if (remaining === undefined || this.resetAtMs === undefined || this.resetAtMs <= now) return false;
    if (this.throttledCount > 0 || (this.limits.retryAfterUntil ?? 0) > now) return false;
    return remaining - inFlight - 1 >= 1;
  }

  /** Why a wait of `ms` must not be made (too long, or past the deadline); undefined when it may. */
  refuseWait(ms: number, reason: string, now: number): Refusal | undefined {
    if (ms > this.maxWaitMs) {
      return { reason: 'wait-too-long', message: `would have to wait ${Math.ceil(ms)} ms (${reason}), more than the ${this.maxWaitMs} ms allowed` };
    }
    // Sleeping only to be refused at the deadline would waste the time the deadline bounds.
    if (this.deadlineAt !== undefined && now + ms >= this.deadlineAt) {
      return {
        reason: 'deadline',
        message: `waiting ${Math.ceil(ms)} ms (${reason}) would pass the run's deadline (${new Date(this.deadlineAt).toISOString()}); nothing more is sent`,
      };
    }
    return undefined;
  }

  private observeWindow(seq: number, { limit, remaining, reset }: ExchangeReading, now: number): void {
    // Missing or malformed values keep what we knew: forgetting a Remaining of 0 because a
    // proxy's error page lacks the headers would let the next request through.
    if (limit !== undefined) this.limits.limit = Number(limit);
    if (remaining !== undefined) this.limits.remaining = Number(remaining);
    if (reset !== undefined) {
      this.limits.reset = Number(reset.value);
      // Every kind of Reset is waited for (a server sending another kind than the spec's is
      // RATE-003's to judge): the pacer waits, it does not hammer.
      this.resetAtMs = resetAtMs(reset, now);
    }
    if (remaining !== undefined || reset !== undefined) this.windowSeq = seq;
  }

  /** Exponential backoff over the run's answered 429s. */
  private backoff(): number {
    return Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (Math.max(1, this.answered429) - 1));
  }

  /** The backoff, stretched to the server's Retry-After (or Reset). */
  private retryAfterOf({ retryAfter, reset }: ExchangeReading, now: number, backoff: number): number {
    if (retryAfter !== undefined) return Math.max(backoff, retryAfterDelayFrom(retryAfter, now));
    return reset === undefined ? backoff : Math.max(backoff, resetAtMs(reset, now) - now);
  }

  private windowExhausted(now: number, inFlightKeyed: number): boolean {
    const { remaining } = this.limits;
    if (remaining === undefined || this.resetAtMs === undefined) return false;
    if (this.resetAtMs <= now) return false;
    // A 429's Retry-After is the server's more specific instruction: once it has passed, the
    // Remaining=0 that came with the same 429 does not add a wait for the whole window.
    if (this.retryAfterSeq >= this.windowSeq && this.retryAfterSeq > 0) return false;
    return remaining - inFlightKeyed <= 0;
  }
}
