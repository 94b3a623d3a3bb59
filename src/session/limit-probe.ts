/**
 * RATE-005 judged from the run's own requests, when they used up the key's window before the
 * burst and the client sent the next one anyway (the limit probe, src/http/client.ts). Pure: the
 * caller passes the run's exchanges and the probe.
 */
import type { Exchange } from '../http/exchange.js';
import type { LimitUnderTest } from './burst-plan.js';
import { BurstTally } from './burst-tally.js';
import { burstResponseOf, header } from './burst.js';
import { MINUTE_WINDOW_MS } from '../rate-limit/tolerances.js';

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
