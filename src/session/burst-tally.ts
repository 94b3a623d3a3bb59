/**
 * RATE-005's judgement of the burst, response by response: which window each served request fell
 * in, whether one window served more than the limit under test, and whether a window ended
 * before the limit was reached. Pure: the burst feeds it responses in the order they arrive.
 *
 * Windows are told apart by X-RateLimit-Reset when it is a Unix time (responses with the same
 * Reset belong to the window that resets then, by the server's own account). With the plan's
 * limit known, a Reset that says nothing usable does not stop the judgement: 2 × limit + 1
 * requests served in less than a minute mean one minute-long window served more than the limit,
 * however the windows are aligned.
 */
import type { LimitUnderTest } from './burst-plan.js';
import { isUnixSecondsReset } from '../rate-limit/reset-kind.js';
import { MINUTE_WINDOW_MS } from '../rate-limit/tolerances.js';

export interface BurstResponse {
  seq: number;
  status: number;
  limit?: number | undefined;
  remaining?: number | undefined;
  reset?: number | undefined;
  sentAt: number;
  receivedAt: number;
  /** Sent when the burst expected it over the limit (its headers' Remaining less what was in flight). */
  expectedOver?: boolean;
}

export type TallyEvent =
  | { kind: 'refused' }
  /** One window served more than it may: proven, nothing more needs sending. */
  | { kind: 'over'; message: string }
  /** A new window began before the limit was reached in the previous one. */
  | { kind: 'window-ended' }
  | { kind: 'continue' };

interface Window {
  served: number;
  /** seq and Remaining of each served response, for the allowance the headers claimed. */
  entries: { seq: number; remaining: number | undefined }[];
  limits: Set<number>;
  firstSent: number;
  lastReceived: number;
  refused: boolean;
  /** Requests the burst expected over the limit that got neither 2xx nor 429: a refusal of another kind. */
  otherRefusals: { seq: number; status: number }[];
  /** Requests the burst expected over the limit that were served (2xx): beside a 429 of the window, not its excess (servedBeside). */
  servedOver: number[];
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

export class BurstTally {
  readonly #tested: LimitUnderTest;
  readonly #windows = new Map<number, Window>();
  #current: number | undefined;
  #served = 0;
  /** Start of the span the count-only rule measures (restarted when a minute has passed). */
  #spanStart: number | undefined;
  #spanServed = 0;
  #lastReceived = 0;

  /** Whether every request fed in was a valid one, so a served request answers 2xx (the burst's; not the run's own, which the limit probe feeds). */
  readonly #validRequests: boolean;

  constructor(tested: LimitUnderTest, options: { validRequests?: boolean } = {}) {
    this.#tested = tested;
    this.#validRequests = options.validRequests === true;
  }

  /** Requests served (not refused) so far. */
  get served(): number {
    return this.#served;
  }

  add(r: BurstResponse): TallyEvent {
    const window = isUnixSecondsReset(r.reset) ? this.#window(r.reset, r) : undefined;
    if (r.status === 429) {
      if (window !== undefined) window.refused = true;
      return { kind: 'refused' };
    }
    this.#served += 1;
    this.#lastReceived = Math.max(this.#lastReceived, r.receivedAt);
    let ended = false;
    if (window !== undefined && r.reset !== undefined) {
      window.served += 1;
      window.entries.push({ seq: r.seq, remaining: r.remaining });
      if (r.expectedOver === true && (r.status < 200 || r.status > 299)) window.otherRefusals.push({ seq: r.seq, status: r.status });
      else if (r.expectedOver === true) window.servedOver.push(r.seq);
      if (r.limit !== undefined) window.limits.add(r.limit);
      window.lastReceived = Math.max(window.lastReceived, r.receivedAt);
      if (this.#current === undefined || r.reset > this.#current) {
        // A window with a single response is no window the burst tried to use up (or a made-up Reset).
        ended = (this.#windows.get(this.#current ?? -1)?.served ?? 0) >= 2;
        this.#current = r.reset;
      }
      const over = this.#overInWindow(r.reset, window);
      if (over !== undefined) return { kind: 'over', message: over };
    }
    const byCount = this.#overByCount(r);
    if (byCount === 'over' && !this.#resetPlacesRequests()) return { kind: 'over', message: this.#countMessage() };
    if (byCount === 'span-ended' && this.#windows.size === 0) ended = true;
    return ended ? { kind: 'window-ended' } : { kind: 'continue' };
  }

  /**
   * After the burst: a window that served more than the plan's limit before its 429 (or before the
   * spend cap) is a violation, unless it served no more than a Limit it advertised consistently
   * (with or without a 429 at that Limit: a burst a window's end cut short never reaches it), which
   * RATE-004 judges against the plan. Undefined when no window served too many.
   */
  excess(): { violation?: string; observation?: string } {
    const misrefused = this.#refusedWithAnotherStatus();
    if (misrefused !== undefined) return { violation: misrefused };
    if (!this.#tested.fromPlan) return {};
    for (const [reset, w] of this.#windows) {
      const allowed = this.#tested.limit + this.#refill(w);
      const beside = servedBeside(w);
      if (w.served - beside.length <= allowed) {
        if (w.served > allowed) return { observation: besideObservation(reset, beside) };
        continue;
      }
      const advertised = w.limits.size === 1 ? [...w.limits][0] : undefined;
      const where = this.#describe(reset, w);
      if (advertised !== undefined && w.served <= advertised) {
        // The window kept within the Limit it told: the excess over the plan is that Limit's
        // fault, RATE-004's. Without a 429 at it, whether it is enforced was not reached.
        const enforced = w.refused ? 'enforces its advertised' : 'stayed within its advertised';
        return { observation: `${where}: the target ${enforced} X-RateLimit-Limit ${advertised}, not ${this.#tested.limit} (RATE-004 judges the limit against the plan)` };
      }
      const refill = this.#refill(w);
      const allowance = refill === 0 ? '' : ` (at most ${this.#tested.limit + refill}, allowing for a limiter that refills at that rate)`;
      return { violation: `${where} / Expected 429 once ${this.#tested.limit} requests (${this.#tested.source}) were used up${allowance}` };
    }
    return {};
  }

  /**
   * A valid request the burst expected over the limit, in a window that answered 429, answered
   * with an error other than 429: the limiter refused it under the wrong status. A 2xx is no such
   * case (a limiter that refills may serve it); and only for valid requests, whose every answer but
   * 2xx is a refusal (the run's own may be refused for what they are).
   */
  #refusedWithAnotherStatus(): string | undefined {
    if (!this.#validRequests) return undefined;
    for (const [reset, w] of this.#windows) {
      const wrong = w.otherRefusals[0];
      if (!w.refused || wrong === undefined) continue;
      return `exchange #${wrong.seq}, sent when its window (X-RateLimit-Reset ${reset}) had nothing left by its own X-RateLimit-Remaining, while that window answered 429, received ${wrong.status} / Expected 429 for a request over the limit`;
    }
    return undefined;
  }

  /**
   * Requests a limiter that refills continuously (token bucket, sliding window) may add while the
   * window's requests were answered: the limit per minute, pro rata, in whole requests. A fixed
   * window adds none, but nothing in its headers tells the two apart.
   */
  #refill(w: Window): number {
    return Math.floor((this.#tested.limit * Math.max(0, w.lastReceived - w.firstSent)) / MINUTE_WINDOW_MS);
  }

  #window(reset: number, r: BurstResponse): Window {
    let w = this.#windows.get(reset);
    if (w === undefined) {
      w = { served: 0, entries: [], limits: new Set(), firstSent: r.sentAt, lastReceived: r.receivedAt, refused: false, otherRefusals: [], servedOver: [] };
      this.#windows.set(reset, w);
    }
    w.firstSent = Math.min(w.firstSent, r.sentAt);
    return w;
  }

  /** Beyond doubt in one window: 2 × limit + 1 under the plan, or more than the headers' own allowance without one. */
  #overInWindow(reset: number, w: Window): string | undefined {
    // The group's requests served beside its 429 are no proof of excess here either (servedBeside).
    const served = w.served - servedBeside(w).length;
    if (this.#tested.fromPlan) {
      if (served < 2 * this.#tested.limit + 1) return undefined;
      return `${this.#describe(reset, w)} / Expected 429 once ${this.#tested.limit} requests (${this.#tested.source}) were used up`;
    }
    const allowance = allowanceOf(w);
    if (allowance === undefined || served <= allowance) return undefined;
    return `${this.#describe(reset, w)}, after X-RateLimit-Remaining announced ${allowance} / Expected 429 once the window was used up`;
  }

  /**
   * Reset places requests in windows when it is a Unix time shared by many responses; made-up
   * values that differ on almost every response place nothing, and the count decides.
   */
  #resetPlacesRequests(): boolean {
    const windows = this.#windows.size;
    return windows > 0 && (windows <= 4 || windows <= this.#served / 4);
  }

  /**
   * The count-only rule, for a plan's limit when Reset cannot place requests in windows. It counts
   * what the limiter saw: a response with Remaining, or a 2xx (the request was served, so it got
   * past any limiter); a refusal without the headers may have come before the limiter ran.
   */
  #overByCount(r: BurstResponse): 'over' | 'span-ended' | undefined {
    if (!this.#tested.fromPlan || (r.remaining === undefined && (r.status < 200 || r.status > 299))) return undefined;
    this.#spanStart ??= r.sentAt;
    if (r.receivedAt - this.#spanStart >= MINUTE_WINDOW_MS) {
      this.#spanStart = r.sentAt;
      this.#spanServed = 1;
      return 'span-ended';
    }
    this.#spanServed += 1;
    return this.#spanServed >= 2 * this.#tested.limit + 1 ? 'over' : undefined;
  }

  #countMessage(): string {
    const span = this.#lastReceived - (this.#spanStart ?? this.#lastReceived);
    return (
      `${this.#spanServed} requests served in ${seconds(span)}, less than one 60 s window, none refused: however the windows are aligned, ` +
      `one of them served more than ${this.#tested.limit} / Expected 429 once ${this.#tested.limit} requests (${this.#tested.source}) were used up`
    );
  }

  #describe(reset: number, w: Window): string {
    const refused = w.refused ? ' before its 429' : ', none refused';
    const beside = servedBeside(w).length;
    const counted = beside === 0 ? '' : ` (and ${beside} sent over the limit together with a request it refused 429, not counted)`;
    return `${w.served - beside} requests served in ${seconds(w.lastReceived - w.firstSent)} within one window (X-RateLimit-Reset ${reset} on each)${refused}${counted}`;
  }
}

/**
 * The over-limit group's requests a window served while it answered another of them 429: sent
 * together, one operation refused and another served is what a count kept per operation gives
 * (Remaining rising between them is RATE-002's finding), and how many of them a window serves
 * depends on what the run left of each count, so they are no proof of the window's excess.
 */
function servedBeside(w: Window): number[] {
  return w.refused ? w.servedOver : [];
}

function besideObservation(reset: number, beside: readonly number[]): string {
  const list = beside.map((seq) => `#${seq}`).join(', ');
  return `the window ending at X-RateLimit-Reset ${reset} served exchange(s) ${list}, sent over the limit together with a request it refused 429: a count kept per operation? (RATE-002 judges Remaining between them)`;
}

/**
 * What the headers said the window allows: for each response that announced requests left, the
 * requests of the window served up to it (by seq) plus that Remaining; the largest, so reordering
 * of concurrent responses can only raise it. A Remaining of 0 on a response served past the limit
 * says nothing about the limit, so it counts only when no response announced more.
 */
function allowanceOf(w: Window): number | undefined {
  const rank = (seq: number): number => w.entries.filter((o) => o.seq <= seq).length;
  let best: number | undefined;
  for (const e of w.entries) {
    if (e.remaining !== undefined && e.remaining > 0) best = Math.max(best ?? 0, rank(e.seq) + e.remaining);
  }
  if (best !== undefined) return best;
  const zeros = w.entries.filter((e) => e.remaining === 0).map((e) => rank(e.seq));
  return zeros.length === 0 ? undefined : Math.min(...zeros);
}
