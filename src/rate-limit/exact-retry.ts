/**
 * RATE-006's exact retry: a request sent when the last 429's own Retry-After passes, with none of
 * the backoff the pacer adds on top. That moment is what RATE-006 tests (a server still refusing
 * then told a Retry-After that ends too early), and a longer wait would hide a wrong one.
 */
import type { Hold } from '../http/pacer.js';
import type { PacerView, Pacing, PolicySend } from '../http/send-policy.js';

/** The moment the last 429's Retry-After passes; the pacer's own when that 429 sent none. */
const exactUntil = (pacer: PacerView): number | undefined => pacer.retryAfterSaysUntil ?? pacer.state.retryAfterUntil;

/** The wait before a send that asked for the exact Retry-After (SendRequest.exactRetryAfter): the pacer's hold, with that moment for the Retry-After's. */
export function exactRetryAfterHold(send: PolicySend, { pacer, inFlightKeyed, now }: Pacing): Hold | undefined {
  return pacer.holdBeforeSend(send, inFlightKeyed, now, exactUntil(pacer));
}

/** The wait before the retry of a 429 that is itself RATE-006's recovery check (the limit probe's): exactly the Retry-After, after a Retry-After of 0 at once. */
export function exactRetryMs(pacer: PacerView, now: number): number {
  const until = exactUntil(pacer) ?? now;
  return Math.max(0, until - now) + pacer.waitMarginMs;
}
