/**
 * RATE-007, opted into with --exhaust-daily-quota: the key's daily quota is used up at the pace
 * the per-minute limit allows (the client waits out each window), and the request after it is
 * sent without waiting, since a day-long wait would stop the run. It prints the cost first and
 * an ETA as it goes.
 */
import type { Exchange } from '../http/exchange.js';
import { isDailyRefusal } from '../checks/daily-quota.js';
import { resetAheadMs, resetBeyondWindow } from '../rate-limit/window-length.js';
import type { ServerClock } from '../checks/server-clock.js';
import { planLimits, type Plan } from '../plans.js';
import { header } from './burst.js';
import { DAY_MS } from '../rate-limit/tolerances.js';

/** ETA lines while the day is used up. */
const PROGRESS_STEPS = 10;

export interface DayInputs {
  plan: Plan;
  /** The per-minute window as the run saw it (at most a minute). */
  windowMs: number;
  /** Local time of the run's first request, to tell whether a UTC day ended meanwhile. */
  runStartedAt: number;
  /** Sends one keyed request; paced: wait out an exhausted window first. */
  send(paced: boolean): Promise<Exchange>;
  /** Keyed requests the target served (not 429) since the run began. */
  served(): number;
  note(message: string): void;
  now(): number;
  /** The server's clock as the run's Date headers show it so far (Session.serverClock). */
  clock?: () => ServerClock | undefined;
}

export type DayOutcome =
  /** The day's quota ran out and a 429 that says so came. */
  | { kind: 'refused'; ex: Exchange; served: number }
  /** More than the day's quota was served. */
  | { kind: 'not-enforced'; last: Exchange; served: number; elapsedMs: number }
  /** A 429 that described the per-minute window, and the key was refused again after it. */
  | { kind: 'window-headers'; first: Exchange; second: Exchange; served: number }
  /** More than the day's quota was served, but a UTC day ended during the run. */
  | { kind: 'day-changed'; served: number };

/** What it costs, said before a request is spent on it. */
export function costLine(plan: Plan): string {
  const { perDay, perMinute } = planLimits(plan);
  const minutes = Math.ceil(perDay / perMinute);
  return `RATE-007 (--exhaust-daily-quota): using up the ${plan} plan's daily quota, up to ${perDay.toLocaleString('en-US')} requests, about ${minutes} minutes at ${perMinute} a minute`;
}

export async function exhaustDailyQuota(inputs: DayInputs): Promise<DayOutcome> {
  const perDay = planLimits(inputs.plan).perDay;
  const started = inputs.now();
  const servedAtStart = inputs.served();
  const step = Math.max(1, Math.ceil(perDay / PROGRESS_STEPS));
  let nextNote = servedAtStart + step;
  let last: Exchange | undefined;
  let refused: Exchange | undefined;
  inputs.note(costLine(inputs.plan));
  for (;;) {
    // Once the headers say the day is used up, the next request is the one that must be refused: waiting for their Reset would take the rest of the day.
    const dayUsedUp = last !== undefined && header(last, 'x-ratelimit-remaining') === 0 && resetBeyondWindow(resetAheadMs(last, inputs.clock?.()) ?? 0, inputs.windowMs);
    const ex = await inputs.send(!dayUsedUp);
    const served = inputs.served();
    if (ex.response?.status === 429) {
      if (isDailyRefusal(ex, inputs.windowMs, inputs.clock?.())) return { kind: 'refused', ex, served };
      // A per-minute 429: the client holds the next request until its Retry-After.
      if (refused !== undefined) return { kind: 'window-headers', first: refused, second: ex, served };
      refused = ex;
      last = ex;
      continue;
    }
    refused = undefined;
    last = ex;
    if (served > perDay) {
      const dayEnded = Math.floor(inputs.runStartedAt / DAY_MS) !== Math.floor(inputs.now() / DAY_MS);
      return dayEnded ? { kind: 'day-changed', served } : { kind: 'not-enforced', last: ex, served, elapsedMs: inputs.now() - started };
    }
    if (served >= nextNote) {
      nextNote += step;
      const rate = (served - servedAtStart) / Math.max(1, inputs.now() - started);
      const etaS = Math.ceil((perDay + 1 - served) / rate / 1000);
      const eta = etaS > 120 ? `${Math.ceil(etaS / 60)} min` : `${etaS} s`;
      inputs.note(`RATE-007: ${served} of ${perDay} requests of the day served, about ${eta} to go`);
    }
  }
}
