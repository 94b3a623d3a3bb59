/**
 * RATE-005 judged from the run's own requests when they used up the window and the client sent
 * the next one anyway (the limit probe): refused is a pass with the count, served over the plan's
 * limit is a failure, served within what a refilling limiter allows is left to the burst.
 */
import { describe, expect, it } from 'vitest';
import { limitFromPlan } from '../src/session/burst-plan.js';
import { judgeLimitProbe, probeWindow } from '../src/rate-limit/limit-probe.js';
import type { Exchange } from '../src/http/exchange.js';
import { NOW_MS, NOW_S, makeExchange } from './support/exchange-factory.js';

const FREE = limitFromPlan('free', undefined);
if (FREE === undefined) throw new Error('the free plan has a limit');

/** `served` keyed responses of one window (Reset NOW_S + 60), `gapMs` apart, then the probe with `probeStatus`. */
function run(served: number, probeStatus: number, gapMs = 5): { exchanges: Exchange[]; probe: Exchange } {
  const exchanges: Exchange[] = [];
  for (let i = 0; i <= served; i++) {
    const last = i === served;
    exchanges.push(
      makeExchange({
        seq: i + 1,
        status: last ? probeStatus : 200,
        sentAt: NOW_MS + i * gapMs,
        elapsedMs: 2,
        headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': String(Math.max(0, 59 - i)), 'x-ratelimit-reset': String(NOW_S + 60), ...(last && probeStatus === 429 ? { 'retry-after': '60' } : {}) },
      }),
    );
  }
  const probe = exchanges.at(-1);
  if (probe === undefined) throw new Error('no probe');
  return { exchanges, probe };
}

describe('RATE-005 from the limit probe', () => {
  it('passes with the count when the request after the window was used up got 429', () => {
    const { exchanges, probe } = run(60, 429);
    const verdict = judgeLimitProbe(exchanges, probe, FREE);
    expect(verdict).toEqual({ kind: 'refused', served: 60, observation: `the run's own requests used up the window: 60 served, the next refused (exchange #${probe.seq})` });
  });

  it('fails when the probe was served over the plan\'s limit in one window', () => {
    const { exchanges, probe } = run(60, 200);
    const verdict = judgeLimitProbe(exchanges, probe, FREE);
    expect(verdict.kind).toBe('over');
    expect(verdict.kind === 'over' ? verdict.message : '').toMatch(/61 requests served .* within one window .* Expected 429 once 60 requests/);
  });

  it('leaves a served probe to the burst when a limiter refilling over the window\'s span could have served it', () => {
    // 61 requests over 30 s: a token bucket refills 30 in that time.
    const { exchanges, probe } = run(60, 200, 500);
    expect(judgeLimitProbe(exchanges, probe, FREE)).toEqual({ kind: 'unproven' });
  });

  it('counts only the probe\'s window (by its Reset)', () => {
    const earlier = makeExchange({ seq: 0, status: 200, headers: { 'x-ratelimit-reset': String(NOW_S), 'x-ratelimit-remaining': '5' } });
    const { exchanges, probe } = run(60, 429);
    expect(probeWindow([earlier, ...exchanges], probe)).toHaveLength(61);
  });
});

describe('RATE-005 from the limit probe, with a Reset that moves on every response', () => {
  it('names the response that announced Remaining 0 instead of a count of one', () => {
    const served = makeExchange({ seq: 1, status: 200, headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW_S + 59) } });
    const probe = makeExchange({ seq: 2, status: 429, headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW_S + 60), 'retry-after': '1' } });
    const verdict = judgeLimitProbe([served, probe], probe, FREE);
    expect(verdict).toEqual({ kind: 'refused', served: 0, observation: "the run's own requests used up the window (X-RateLimit-Remaining 0 on exchange #1), the next refused (exchange #2)" });
  });
});
