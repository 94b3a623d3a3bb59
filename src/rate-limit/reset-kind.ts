/**
 * What an X-RateLimit-Reset value is, decided in one place: the spec says Unix seconds, and the
 * values servers send instead (a count of seconds, milliseconds) are told apart by size.
 */

/** Unix seconds below this lie before 2001: a relative count of seconds, not a timestamp. */
export const RELATIVE_BELOW = 1e9;
/** Unix seconds from this on lie after the year 5138: milliseconds, not seconds. */
export const MILLISECONDS_FROM = 1e11;

export type ResetKind = 'relative-seconds' | 'unix-seconds' | 'unix-milliseconds';

export function resetKind(reset: number | bigint): ResetKind {
  const value = Number(reset);
  if (value < RELATIVE_BELOW) return 'relative-seconds';
  return value < MILLISECONDS_FROM ? 'unix-seconds' : 'unix-milliseconds';
}

/** Whether the value is what the spec says, a Unix time in seconds. */
export function isUnixSecondsReset<T extends number | bigint>(reset: T | undefined): reset is T {
  return reset !== undefined && resetKind(reset) === 'unix-seconds';
}
