/**
 * RATE-006, "the Retry-After header indicates when the client should retry", judged on claims
 * and on behaviour: a 429's Retry-After must not end far after its own X-RateLimit-Reset, and a
 * request the client sent once Retry-After had passed must not be refused again.
 */
import type { Exchange } from '../http/exchange.js';
import { observation, shownOnlyBy, violation, type Finding } from './finding.js';
import { plausibleResetMs, rateLimitValue } from './rate-limit-headers.js';
import { sharedKeyAllowance } from './key-use.js';
import { receivedAt, retryAfterPassesAt } from './response-date.js';
import type { ServerClock } from './server-clock.js';
import { iso } from './text.js';
import type { KeyMode } from '../run-config.js';
import { retryAfterEndOnServerClock, retryAfterEndsSurelyBefore } from '../rate-limit/reading.js';
import { sameWindow } from '../rate-limit/window.js';
import { resetAheadMs } from '../rate-limit/window-length.js';

/**
 * The retry's 429 may have come in a later window than the first 429's: it names a later Reset,
 * and it was not surely handled in the first 429's window (sameWindow).
 */
function inLaterWindow(throttled: Exchange, retry: Exchange, clock: ServerClock | undefined): boolean {
  const first = plausibleResetMs(throttled, clock);
  const again = plausibleResetMs(retry, clock);
  return first !== undefined && again !== undefined && again > first && !sameWindow({ ex: throttled, resetMs: first }, { ex: retry, resetMs: again }, clock);
}

const REQ = 'RATE-006';
/**
 * Retry-After may end this long after Reset: a conservative server rounds up and adds a second,
 * and Date and Reset may come from clocks a second apart.
 */
export const RETRY_AFTER_LATE_MS = 3_000;
/** ... or this share of the time to Reset, when longer (a day window's Reset is hours away). */
const RETRY_AFTER_LATE_SHARE = 0.1;

/**
 * On a 429: Retry-After and X-RateLimit-Reset describe the same moment, within the tolerance
 * above: surely later than that fails, surely earlier is recorded.
 */
export function checkRetryAfterAgreesWithReset(ex: Exchange, clock?: ServerClock): Finding[] {
  if (ex.response?.status !== 429) return [];
  const resetMs = plausibleResetMs(ex, clock);
  const end = retryAfterEndOnServerClock(ex, clock);
  if (resetMs === undefined || end === undefined) return [];
  const lateMs = Math.max(RETRY_AFTER_LATE_MS, RETRY_AFTER_LATE_SHARE * (resetAheadMs(ex, clock) ?? 0));
  const value = ex.response.headers['retry-after']?.trim() ?? '';
  const endMs = end.earliest > resetMs ? end.earliest : end.latest;
  const gap = Math.round((endMs - resetMs) / 1000);
  if (end.earliest > resetMs + lateMs) {
    return [
      violation(
        REQ,
        `Received Retry-After ${JSON.stringify(value)}, ending ${iso(endMs)}, ${gap} s after X-RateLimit-Reset ${iso(resetMs)} on the same 429 / Expected Retry-After to end by ${iso(resetMs + lateMs)}, when the limit resets`,
        ex.seq,
      ),
    ];
  }
  if (retryAfterEndsSurelyBefore(ex, resetMs, clock)) {
    return [observation(REQ, `Retry-After ${JSON.stringify(value)} ends ${-gap} s before X-RateLimit-Reset (a token bucket may allow the next request before it is full again; the retry tells)`, ex.seq)];
  }
  return [];
}

/**
 * A request sent once the previous 429's Retry-After had passed (the client's single retry, or the
 * recovery probe) and refused again with 429: Retry-After did not say when to retry. On a shared
 * key, a retry refused in a new window (it names a later Reset and was not surely handled in the
 * first 429's window) may have found that window used up by another client: recorded, not held
 * against the server, but only when the run saw others spend (nearly) a whole window of the key
 * (`othersSpentInAWindow`, from otherUseOf): a client that never spent more than a few requests
 * of a window cannot have used a fresh one up in the instant before the retry.
 */
export function checkRetryHonoured(throttled: Exchange, retry: Exchange, mode: KeyMode = 'shared', othersSpentInAWindow = 0n, clock?: ServerClock): Finding[] {
  if (throttled.response?.status !== 429 || retry.response?.status !== 429) return [];
  if (retry.seq <= throttled.seq || retry.request.auth !== throttled.request.auth) return [];
  const passesAt = retryAfterPassesAt(throttled);
  // sentAt is whole milliseconds and passesAt is not: the floor keeps a retry sent in the same millisecond judged.
  if (passesAt === undefined || retry.sentAt < Math.floor(passesAt)) return [];
  const value = throttled.response.headers['retry-after']?.trim() ?? '';
  const laterWindow = mode === 'shared' && inLaterWindow(throttled, retry, clock);
  const limit = rateLimitValue(retry, 'x-ratelimit-limit') ?? rateLimitValue(throttled, 'x-ratelimit-limit');
  if (laterWindow && limit !== undefined && othersSpentInAWindow + sharedKeyAllowance(limit) >= limit) {
    return [
      observation(
        REQ,
        `Received 429 again on exchange ${retry.seq}, sent once Retry-After ${JSON.stringify(value)} of exchange ${throttled.seq} had passed, in a new window (X-RateLimit-Reset ${retry.response.headers['x-ratelimit-reset'] ?? ''}): the key may be shared and another client may have used that window up first (not held against the server; --dedicated-key would)`,
        retry.seq,
      ),
    ];
  }
  const found = shownOnlyBy(
    violation(
      REQ,
      `Received 429 again on exchange ${retry.seq}, sent ${Math.round(retry.sentAt - receivedAt(throttled))} ms after the 429 of exchange ${throttled.seq} with Retry-After ${JSON.stringify(value)}` +
        `${laterWindow ? `, in a new window; other clients of the key were seen to spend at most ${othersSpentInAWindow} of a window's ${limit ?? '?'} requests in this run, too few to have used it up first` : ''} / Expected the request to be served once Retry-After had passed`,
      retry.seq,
    ),
    'a retry refused once the Retry-After of the 429 before it had passed',
  );
  // Retry-After passed at a local moment: on the server's clock, as the run reads it.
  return [{ ...found, pairedWith: throttled.seq, expected: { kind: 'served-from', value: Math.round(passesAt + (clock?.low ?? 0)) } }];
}
