/**
 * The run's timeline (Report.timeline), built in the worker once the run is over: every request
 * placed on the server's clock exactly as the run's timing checks placed it (server-clock.ts,
 * with the clock read from the whole run's Date headers), its operation, status, credential and
 * rate-limit headers, and the waits the run made. Only figures, no headers or bodies: report.html
 * draws the timeline from report.json alone, and a run of a day's quota keeps it small.
 */
import { operationOf } from '../checks/body.js';
import { rateLimitValue, type RateLimitHeader } from '../checks/rate-limit-headers.js';
import { receivedAt } from '../checks/response-date.js';
import { serverTimeOf, type ServerClock } from '../checks/server-clock.js';
import type { Exchange } from '../http/exchange.js';
import type { RunTimeline, TimelineResponse } from './types.js';

/** A wait the client made, as it began on the local clock. */
export interface WaitRecord {
  /** Unix ms, local clock. */
  at: number;
  ms: number;
  reason: string;
}

const RETRY_AFTER_CHARS = 40;

/** The header as a JSON-safe integer; undefined when absent, not all digits, or beyond 2^53 (RATE-001 and RATE-008 report those). */
function safeValue(ex: Exchange, name: RateLimitHeader): number | undefined {
  const value = rateLimitValue(ex, name);
  return value === undefined || value > BigInt(Number.MAX_SAFE_INTEGER) ? undefined : Number(value);
}

function responseOf(ex: Exchange, clock: ServerClock | undefined, start: number, offsetMs: number, lagged: ReadonlySet<number>): TimelineResponse {
  const res = ex.response;
  const at = res === undefined ? ex.sentAt + offsetMs : serverTimeOf(ex, clock);
  const retryAfter = res?.status === 429 ? res.headers['retry-after'] : undefined;
  const limit = safeValue(ex, 'x-ratelimit-limit');
  const remaining = safeValue(ex, 'x-ratelimit-remaining');
  const reset = safeValue(ex, 'x-ratelimit-reset');
  return {
    seq: ex.seq,
    t: Math.round(at - start),
    ms: Math.round(receivedAt(ex) - ex.sentAt),
    op: operationOf(ex) ?? 'other',
    ...(res === undefined ? {} : { status: res.status }),
    ...(ex.error === undefined ? {} : { error: ex.error.code }),
    auth: ex.request.auth,
    ...(limit === undefined ? {} : { limit }),
    ...(remaining === undefined ? {} : { remaining }),
    ...(reset === undefined ? {} : { reset }),
    ...(retryAfter === undefined ? {} : { retryAfter: retryAfter.trim().slice(0, RETRY_AFTER_CHARS) }),
    ...(ex.retryOf === undefined ? {} : { retryOf: ex.retryOf }),
    ...(lagged.has(ex.seq) ? { lagged: true as const } : {}),
  };
}

/**
 * The timeline of `exchanges` (the run's record, any order), placed with `clock` (the run's
 * final reading; undefined when no response carried a usable Date: the local clock then).
 * `lagged`: seqs of reads of created pets made again within the read-after-write grace.
 */
export function timelineRecord(exchanges: readonly Exchange[], clock: ServerClock | undefined, waits: readonly WaitRecord[], lagged: ReadonlySet<number> = new Set()): RunTimeline {
  const offsetMs = clock?.low ?? 0;
  const sorted = [...exchanges].sort((a, b) => a.seq - b.seq);
  // A loop, not Math.min(...): a day's quota is more requests than an argument list takes.
  let firstSent = Number.POSITIVE_INFINITY;
  for (const at of [...sorted.map((ex) => ex.sentAt), ...waits.map((w) => w.at)]) firstSent = Math.min(firstSent, at);
  const start = Number.isFinite(firstSent) ? Math.round(firstSent + offsetMs) : 0;
  return {
    clock: clock === undefined ? 'local' : 'server',
    start,
    offsetMs: Math.round(offsetMs),
    responses: sorted.map((ex) => responseOf(ex, clock, start, offsetMs, lagged)),
    waits: waits.map((w) => ({ t: Math.round(w.at + offsetMs - start), ms: Math.round(w.ms), reason: w.reason })),
  };
}
