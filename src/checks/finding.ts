/**
 * What a check says about an exchange. Checks are pure functions returning findings; they never
 * throw, assert or do I/O. A violation fails its requirement; an observation records what was
 * seen where the spec leaves room (it never changes a verdict).
 */
export type FindingKind = 'violation' | 'observation';

/**
 * What a finding held its response to, in terms a picture of the run can draw (report.html's
 * timeline): a bound on X-RateLimit-Remaining or -Limit at the finding's exchange, or a moment on
 * the server's clock. The check that judged says it, so a picture never recomputes a rule.
 */
export interface Expectation {
  /**
   * 'remaining-at-most': Remaining should have been at most `value` (a rise no refill explains, a
   * refusal that announced room); 'remaining-at-least': the announcements before it left at least
   * `value` requests (a 429 that came early, a fall beyond the run's own requests); 'limit': the
   * Limit that applies; 'window-until': the window the earlier response announced lasts until
   * `value`; 'served-from': a request from `value` on should have been served (Retry-After).
   */
  kind: 'remaining-at-most' | 'remaining-at-least' | 'limit' | 'window-until' | 'served-from';
  /** The count, or for the two moments Unix ms on the server's clock as the run read it. */
  value: number;
}

export interface Finding {
  requirement: string;
  kind: FindingKind;
  /**
   * What is wrong, in words that are the same for every response showing it: the report groups
   * violations by this text and counts them ("10 responses: …").
   */
  message: string;
  /** seq of the exchange the finding is about, when there is one. */
  exchange?: number;
  /** Where in this one response, e.g. "pets #42, #57 of 100": shown for the first of a group only. */
  detail?: string;
  /** seq of the earlier exchange a violation compares `exchange` with: shown as evidence beside it. */
  pairedWith?: number;
  /** What the check expected of `exchange`, when it can be drawn (see Expectation). */
  expected?: Expectation;
  /**
   * Set on a violation no single response shows, only a sequence of them (a rise of Remaining
   * between two responses, a 429 after an earlier one announced room, two creations in flight
   * given one id): what that sequence is. `replay` never re-sends its exchanges alone, whose
   * answers could only ever conform; a sequence that can show it again decides (src/replay/).
   */
  shownOnlyBy?: string;
  /**
   * An observation the console summary shows as well (a note under the verdict): something about
   * the target a user should know although it changes no verdict, such as a Date header that lags.
   */
  notable?: true;
}

export const violation = (requirement: string, message: string, exchange?: number, detail?: string): Finding => ({
  requirement,
  kind: 'violation',
  message,
  ...(exchange === undefined ? {} : { exchange }),
  ...(detail === undefined ? {} : { detail }),
});

export const observation = (requirement: string, message: string, exchange?: number): Finding => ({
  requirement,
  kind: 'observation',
  message,
  ...(exchange === undefined ? {} : { exchange }),
});

/** The violation, marked as one that only `sequence` shows (Finding.shownOnlyBy). */
export const shownOnlyBy = (finding: Finding, sequence: string): Finding => ({ ...finding, shownOnlyBy: sequence });
