/**
 * The rate limit's named bounds, one definition each: every rule, plan and send policy that needs
 * one imports it from here, so a bound changed for one rule is changed for all (see README.md here).
 */

/**
 * X-RateLimit-Reset and Date carry whole seconds, and the server's clock and ours may be a second
 * apart: a moment the headers name or imply may be off by this much either way, so no rule decides
 * on a difference smaller than this.
 */
export const WHOLE_SECONDS_MS = 2_000;

/** The spec's per-minute window: every plan's limit is per minute (spec §4). */
export const MINUTE_WINDOW_MS = 60_000;

/** The daily quota's window (spec §4). */
export const DAY_MS = 86_400_000;

/**
 * The furthest ahead of its response a per-minute window's Reset lies: a minute, and a Reset's
 * whole seconds. A Reset further ahead belongs to another limit (the day's).
 */
export const MINUTE_RESET_AHEAD_MS = MINUTE_WINDOW_MS + WHOLE_SECONDS_MS;

/**
 * sentAt has whole milliseconds: a pair of requests sent one after the other may look overlapped
 * by up to this much, and is still read as in order.
 */
export const IN_FLIGHT_TOLERANCE_MS = 1;
