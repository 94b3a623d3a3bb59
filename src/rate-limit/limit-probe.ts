/**
 * The limit probe: when the run's own requests use up the key's window before RATE-005's burst,
 * the next one is sent anyway, as the request over the limit, instead of waiting for the window
 * (a send policy, src/http/send-policy.ts); a 429 to it is retried exactly at Retry-After
 * (RATE-006's recovery check, exact-retry.ts). Then RATE-005 is judged from the run's own
 * requests (judgeLimitProbe: pure, the caller passes the run's exchanges and the probe).
 */
import type { Exchange } from '../http/exchange.js';
import type { Pacing, PolicySend, SendTiming } from '../http/send-policy.js';
import type { LimitUnderTest } from '../session/burst-plan.js';
import { BurstTally } from '../session/burst-tally.js';
import { burstResponseOf, header } from '../session/burst.js';
import { exactRetryMs } from './exact-retry.js';
import { MINUTE_WINDOW_MS } from './tolerances.js';

/**
 * The probe needs this much of the window left: its retry (after a Retry-After of 0, at once)
 * must still land in the window that refused it, or a Retry-After that ends too early would go
 * unnoticed. Closer to Reset, waiting for the next window costs less than a second.
 */
const PROBE_MIN_WINDOW_LEFT_MS = 1_000;

/**
 * True when a send would be held only because the server's own Remaining reached 0 in this
 * window: a paced keyed send, nothing keyed in flight, no 429 seen in the run and no Retry-After
 * pending, and enough of the window left for the retry to land in it. Then the next request is
 * the one over the limit, whoever sends it. (The pacer holds every such send for the window.)
 */
export function atWindowLimit(send: Pick<PolicySend, 'paced' | 'keyed'>, { pacer, inFlightKeyed, now }: Pacing): boolean {
  if (!send.paced || !send.keyed || inFlightKeyed > 0 || pacer.throttled > 0) return false;
  const { remaining, retryAfterUntil } = pacer.state;
  if ((retryAfterUntil ?? 0) > now) return false;
  const endsAt = pacer.windowEndsAt;
  return remaining === 0 && endsAt !== undefined && endsAt - now >= PROBE_MIN_WINDOW_LEFT_MS;
}

export class LimitProbe {
  /** Whether the run may make its probe, given the X-RateLimit-Limit last advertised: the limit under test is known and RATE-005 selected. */
  readonly #may: (advertisedLimit: number | undefined) => boolean;
  /** Once per run: set when the probe is decided, before it is sent, so no concurrent send makes a second. */
  #used = false;
  #probe: Exchange | undefined;

  constructor(may: (advertisedLimit: number | undefined) => boolean) {
    this.#may = may;
  }

  /** The request sent over the limit, once it was answered. */
  get exchange(): Exchange | undefined {
    return this.#probe;
  }

  /**
   * The timing of this send when it is the run's probe (decided once): sent at once, its 429
   * retried exactly at Retry-After. Only a send that takes the single retry: that retry is the
   * recovery check.
   */
  time(send: PolicySend, pacing: Pacing): SendTiming | undefined {
    if (this.#used || !send.retryOn429 || !atWindowLimit(send, pacing) || !this.#may(pacing.pacer.state.limit)) return undefined;
    this.#used = true;
    return {
      hold: undefined,
      retryHoldMs: (now) => exactRetryMs(pacing.pacer, now),
      sent: (first) => {
        this.#probe = first;
      },
    };
  }
}

export type LimitProbeVerdict =
  /** The probe got its 429: `served` requests of its window were served before it. */
  | { kind: 'refused'; served: number; observation: string }
  /** The window served more than the limit under test. */
  | { kind: 'over'; message: string }
  /** Served, but the run's requests alone prove no excess (a limiter that refills may serve it): the burst must tell. */
  | { kind: 'unproven' };

/**
 * The keyed responses of the probe's window, up to the probe: those that share its Reset, or,
 * when it has none, those sent within a minute before it.
 */
export function probeWindow(exchanges: readonly Exchange[], probe: Exchange): Exchange[] {
  const reset = header(probe, 'x-ratelimit-reset');
  return exchanges.filter(
    (e) =>
      e.seq <= probe.seq &&
      e.request.auth === 'key' &&
      e.response !== undefined &&
      (reset === undefined ? e.sentAt > probe.sentAt - MINUTE_WINDOW_MS : header(e, 'x-ratelimit-reset') === reset || e.seq === probe.seq),
  );
}

export function judgeLimitProbe(exchanges: readonly Exchange[], probe: Exchange, tested: LimitUnderTest): LimitProbeVerdict {
  const window = probeWindow(exchanges, probe);
  const tally = new BurstTally(tested);
  let proof: string | undefined;
  for (const ex of window) {
    const event = tally.add(burstResponseOf(ex));
    if (event.kind === 'over') proof ??= event.message;
  }
  const violation = proof ?? tally.excess().violation;
  if (violation !== undefined) return { kind: 'over', message: violation };
  if (probe.response?.status !== 429) return { kind: 'unproven' };
  const served = window.filter((e) => e.response?.status !== 429).length;
  if (served >= 2) return { kind: 'refused', served, observation: `the run's own requests used up the window: ${served} served, the next refused (exchange #${probe.seq})` };
  // A Reset that moves with every response (a token bucket's "full again") groups nothing: say what the server said instead.
  const emptied = exchanges.filter((e) => e.seq < probe.seq && e.request.auth === 'key' && e.response?.status !== 429 && header(e, 'x-ratelimit-remaining') === 0).at(-1);
  const where = emptied === undefined ? '' : ` (X-RateLimit-Remaining 0 on exchange #${emptied.seq})`;
  return { kind: 'refused', served, observation: `the run's own requests used up the window${where}, the next refused (exchange #${probe.seq})` };
}
