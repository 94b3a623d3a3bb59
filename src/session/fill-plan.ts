/**
 * Whether the run can afford to create pets so that a check can be decided (LIST-004 proves the
 * maximum of 100 only on a store of more than 100 pets). Requests are the scarce resource: the
 * creation must leave the rest of the run its budget, and it must not make the run wait for
 * rate-limit windows to reset for more than a few seconds (on a Free key with a real 60 s window
 * it usually cannot, and the requirement is then inconclusive, never passed).
 */

/** A wait for the key's window to reset that is short enough to be worth a decided requirement. */
export const SHORT_WAIT_MS = 5_000;

export interface FillInputs {
  /** Requests the creation costs (the creations and the probe that follows). */
  cost: number;
  /** Requests the run may still send (--max-requests minus those sent). */
  budgetLeft: number;
  /** Requests kept for what follows (the burst, the recovery probe). */
  reserve: number;
  /** X-RateLimit-Remaining of the key's window, when the target told us. */
  windowRemaining?: number;
  /** X-RateLimit-Limit, the size of the next window. */
  windowLimit?: number;
  /** Milliseconds until the window resets, when known. */
  msToReset?: number;
  /**
   * How long a whole window lasts, as the run has seen it (the furthest X-RateLimit-Reset ahead).
   * Without it the creation may spill into one more window at most.
   */
  windowMs?: number;
}

export type FillDecision = { ok: true } | { ok: false; reason: string };

export function planFill(inputs: FillInputs): FillDecision {
  const { cost, budgetLeft, reserve, windowRemaining, windowLimit, msToReset, windowMs } = inputs;
  if (cost > budgetLeft - reserve) {
    return { ok: false, reason: `they would cost ${cost} requests and only ${Math.max(0, budgetLeft - reserve)} of the run's budget (--max-requests) can be spared` };
  }
  if (windowRemaining === undefined || cost <= windowRemaining) return { ok: true };
  // Each window that must reset adds a wait: the current one's end, then whole windows. Whether
  // it fits is judged on that wait alone, so the decision does not depend on where in its window
  // the run happens to be (with 1 s windows, a run at the end of one could be refused a creation
  // that a run a moment later would make).
  const resets = windowLimit === undefined || windowLimit <= 0 ? undefined : Math.ceil((cost - windowRemaining) / windowLimit);
  if (resets !== undefined && msToReset !== undefined) {
    const wholeWindowsMs = resets > 1 ? (resets - 1) * (windowMs ?? Number.POSITIVE_INFINITY) : 0;
    if (Math.max(0, msToReset) + wholeWindowsMs <= SHORT_WAIT_MS) return { ok: true };
  }
  const resetIn = msToReset === undefined ? 'at an unknown time' : `in ${Math.ceil(msToReset / 1000)} s`;
  const windows = resets === undefined ? 'an unknown number of windows' : `${resets + 1} windows`;
  return {
    ok: false,
    reason: `they would cost ${cost} requests, the key's window has ${windowRemaining} left and resets ${resetIn}: ${windows} and more than ${SHORT_WAIT_MS / 1000} s of waiting`,
  };
}
