/** RATE-002's second half: within one window, Remaining falls with each keyed request. */
import type { Exchange } from '../http/exchange.js';
import { violation, type Finding } from './finding.js';
import { RELATIVE_BELOW, rateLimitValue } from './rate-limit-headers.js';

/** sentAt has whole milliseconds: a sequential pair may look up to 1 ms overlapped. */
const IN_FLIGHT_TOLERANCE_MS = 1;

/**
 * Compares two consecutive exchanges made with the run's key. Only the same Reset value counts
 * as the same window; falling by more than one is accepted (a shared key), and Remaining may
 * stay at 0 once the window is used up.
 */
export function checkRemainingFalls(prev: Exchange, next: Exchange): Finding[] {
  // Tolerates callers handing the pair over in either order; the later request is the one judged.
  const [earlier, later] = prev.seq <= next.seq ? [prev, next] : [next, prev];
  if (earlier.request.auth !== 'key' || later.request.auth !== 'key') return [];
  if (earlier.response === undefined || later.response === undefined) return [];
  // Requests in flight together (a concurrent burst) reach the server in either order: only a
  // pair whose first answer had arrived before the second was sent has an order to judge.
  if (earlier.sentAt + earlier.elapsedMs > later.sentAt + IN_FLIGHT_TOLERANCE_MS) return [];
  const before = rateLimitValue(earlier, 'x-ratelimit-remaining');
  const after = rateLimitValue(later, 'x-ratelimit-remaining');
  const resetBefore = rateLimitValue(earlier, 'x-ratelimit-reset');
  const resetAfter = rateLimitValue(later, 'x-ratelimit-reset');
  if (before === undefined || after === undefined || resetBefore === undefined || resetAfter === undefined) return [];
  // A relative Reset ("1" s to go) repeats in every window, so it cannot tell one window from the
  // next; it is RATE-003's violation, and Remaining refilling under it is not RATE-002's.
  if (resetBefore < BigInt(RELATIVE_BELOW) || resetAfter < BigInt(RELATIVE_BELOW)) return [];
  if (resetBefore !== resetAfter || before === 0n || after < before) return [];
  return [
    violation(
      'RATE-002',
      `Remaining did not fall: ${before} then ${after} within the window ending ${resetAfter} (exchanges ${earlier.seq} and ${later.seq}) / Expected at most ${before - 1n}`,
      later.seq,
    ),
  ];
}
