/**
 * What report.html's timeline shows, read from a Report alone (so a saved report.json renders it
 * years later): one mark per request of the run, in a lane by credential, the windows the keyed
 * responses announced, the waits, and each finding of the rate limit (and CREATE-002's lost writes)
 * with the exchanges it cites and what it expected. Pure: the findings are drawn as they carry
 * them (Evidence.cites, pairedWith, expected); no rule is judged again here.
 */
import type { AuthMode } from '../http/exchange.js';
import type { Evidence, Expectation, Report, RunTimeline, TimelineResponse } from './types.js';

/** Requirements whose findings the timeline draws: section 8, and the lost writes of CREATE-002. */
export const TIMELINE_REQUIREMENTS: ReadonlySet<string> = new Set(['RATE-001', 'RATE-002', 'RATE-003', 'RATE-004', 'RATE-005', 'RATE-006', 'RATE-007', 'RATE-008', 'CREATE-002']);

/**
 * Marks drawn one by one at most; beyond it (a day's quota of a paid plan) ordinary served
 * responses are thinned evenly, and every exceptional one (429, no headers, without a valid key,
 * cited, lagged) is still drawn. The table does the same.
 */
export const MAX_MARKS = 2_500;

/**
 * 'keyed': with the run's key and an X-RateLimit-Remaining to place it by; 'no-remaining': with
 * the key but no usable Remaining (header missing or not an integer, or no response at all);
 * 'without-key': no key, a wrong key or a malformed header, which a server may count apart.
 */
export type Lane = 'keyed' | 'no-remaining' | 'without-key';

/** 'throttled': 429; 'refused': any other status of 400 or more; 'no-response': a transport failure. */
export type MarkKind = 'served' | 'refused' | 'throttled' | 'no-response';

export const CREDENTIAL_LABELS: Readonly<Record<AuthMode, string>> = {
  key: 'the run\u2019s key',
  none: 'no key',
  'wrong-key': 'wrong key',
  'near-miss': 'key one edit off',
  malformed: 'malformed header',
};

export interface TimelineMark {
  seq: number;
  /** Seconds after the first request, on the timeline's clock. */
  x: number;
  lane: Lane;
  /** Remaining, in the keyed lane. */
  y?: number;
  op: string;
  kind: MarkKind;
  response: TimelineResponse;
  /** Numbers of the findings that cite it. */
  cited: number[];
  /** Fragment of the exchange in the report's evidence, else of its row in the table. */
  href: string;
  /** What the mark is, in words: its title and its row. */
  label: string;
}

export interface TimelineFinding {
  /** From 1, in report order: the label drawn beside its marks. */
  n: number;
  requirement: string;
  /** Index of the violation among its requirement's violations, from 1: the evidence's anchor. */
  index: number;
  message: string;
  cites: number[];
  pairedWith?: number;
  expected?: Expectation;
}

/** One window the keyed responses announced, by its Reset. */
export interface TimelineWindow {
  /** Unix seconds. */
  reset: number;
  /** Seconds after the first request at which it resets; undefined when beyond the chart (the day's quota). */
  x?: number;
  first: number;
  last: number;
  requests: number;
  served: number;
  throttled: number;
  lowestRemaining?: number;
  limit?: number;
}

export interface TimelineSpan {
  n: number;
  x: number;
  width: number;
  reason: string;
}

export interface TimelineView {
  timeline: RunTimeline;
  marks: TimelineMark[];
  findings: TimelineFinding[];
  windows: TimelineWindow[];
  waits: TimelineSpan[];
  /** The x axis, in seconds: from 0 to this. */
  endS: number;
  /** The y axis of the keyed lane: from 0 to this. */
  topY: number;
  counts: {
    requests: number;
    keyed: number;
    withoutKey: number;
    throttled: number;
    noRateLimitHeaders: number;
    lagged: number;
    /** Ordinary marks left out to stay under MAX_MARKS. */
    thinned: number;
  };
}

/** Where a mark links to: the exchange's first place in the evidence (the citing finding's requirement first), else its table row. */
export type ExchangeAnchor = (seq: number, preferred: readonly string[]) => string | undefined;

export const rowAnchor = (seq: number): string => `tl-ex-${seq}`;

const seconds = (ms: number): number => Math.round(ms) / 1000;

/**
 * A Unix ms as "2025-06-02 12:00:00Z"; the number itself when no date has it (a Reset a server
 * wrote in a unit of its own can lie beyond the year 275,760, where Date gives up).
 */
export function utcText(unixMs: number): string {
  const date = new Date(unixMs);
  return Number.isNaN(date.getTime()) ? `${unixMs} ms after 1970` : date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

/** The largest of many numbers (a day's run has more than a spread argument list takes). */
const largest = (values: Iterable<number>, start = Number.NEGATIVE_INFINITY): number => {
  let max = start;
  for (const v of values) if (v > max) max = v;
  return max;
};

function kindOf(r: TimelineResponse): MarkKind {
  if (r.status === undefined) return 'no-response';
  if (r.status === 429) return 'throttled';
  return r.status >= 400 ? 'refused' : 'served';
}

function laneOf(r: TimelineResponse): Lane {
  if (r.auth !== 'key') return 'without-key';
  return r.remaining === undefined ? 'no-remaining' : 'keyed';
}

const hasRateLimitHeaders = (r: TimelineResponse): boolean => r.limit !== undefined || r.remaining !== undefined || r.reset !== undefined;

export function markLabel(r: TimelineResponse): string {
  const answer = r.status === undefined ? `no response (${r.error ?? 'error'})` : String(r.status);
  const figures =
    r.status === undefined
      ? ''
      : hasRateLimitHeaders(r)
        ? `, Remaining ${r.remaining ?? '?'} of ${r.limit ?? '?'}${r.reset === undefined ? '' : `, Reset ${utcText(r.reset * 1000).slice(11)}`}`
        : ', no rate-limit headers';
  const extra = [
    r.auth === 'key' ? '' : `, ${CREDENTIAL_LABELS[r.auth]}`,
    r.retryAfter === undefined ? '' : `, Retry-After ${r.retryAfter}`,
    r.retryOf === undefined ? '' : `, retry of #${r.retryOf}`,
    r.lagged === true ? ', read before the pet showed (read-after-write lag)' : '',
  ].join('');
  return `#${r.seq} ${r.op} ${answer}${figures}${extra}, at ${seconds(r.t).toFixed(3)} s`;
}

/** The violations of the timeline's requirements, numbered in report order, with what each cites. */
export function timelineFindings(report: Pick<Report, 'requirements'>): TimelineFinding[] {
  const findings: TimelineFinding[] = [];
  for (const r of report.requirements) {
    if (!TIMELINE_REQUIREMENTS.has(r.id)) continue;
    let index = 0;
    for (const e of r.evidence) {
      if (e.kind !== 'violation') continue;
      index += 1;
      const cites = citesOf(e);
      if (cites.length === 0) continue;
      findings.push({
        n: findings.length + 1,
        requirement: r.id,
        index,
        message: e.message,
        cites,
        ...(e.pairedWith === undefined ? {} : { pairedWith: e.pairedWith }),
        ...(e.expected === undefined ? {} : { expected: e.expected }),
      });
    }
  }
  return findings;
}

/** A report written before Evidence.cites names only the exchange it shows. */
function citesOf(e: Evidence): number[] {
  if (e.cites !== undefined) return e.cites;
  return e.exchange === undefined ? [] : [e.exchange.seq];
}

function windowsOf(responses: readonly TimelineResponse[], start: number, endS: number): TimelineWindow[] {
  const byReset = new Map<number, TimelineWindow>();
  for (const r of responses) {
    if (r.auth !== 'key' || r.reset === undefined) continue;
    const at = seconds(r.reset * 1000 - start);
    const w = byReset.get(r.reset) ?? { reset: r.reset, ...(at >= 0 && at <= endS ? { x: at } : {}), first: r.seq, last: r.seq, requests: 0, served: 0, throttled: 0 };
    w.last = r.seq;
    w.requests += 1;
    if (kindOf(r) === 'served') w.served += 1;
    if (r.status === 429) w.throttled += 1;
    if (r.remaining !== undefined) w.lowestRemaining = Math.min(w.lowestRemaining ?? r.remaining, r.remaining);
    if (r.limit !== undefined) w.limit = Math.max(w.limit ?? r.limit, r.limit);
    byReset.set(r.reset, w);
  }
  return [...byReset.values()].sort((a, b) => a.reset - b.reset);
}

/** The ordinary served keyed responses to leave out so that at most MAX_MARKS are drawn: every k-th kept. */
function thinned(marks: readonly TimelineMark[]): Set<number> {
  const ordinary = marks.filter((m) => m.lane === 'keyed' && m.kind === 'served' && m.cited.length === 0 && m.response.lagged !== true);
  const exceptional = marks.length - ordinary.length;
  const room = Math.max(0, MAX_MARKS - exceptional);
  if (ordinary.length <= room) return new Set();
  const stride = Math.ceil(ordinary.length / Math.max(1, room));
  return new Set(ordinary.filter((_, i) => i % stride !== 0).map((m) => m.seq));
}

/**
 * The timeline of a report: undefined when the report has none (say why with timelineAbsence).
 * `anchor` gives the fragment of an exchange shown in the evidence.
 */
export function timelineView(report: Pick<Report, 'timeline' | 'requirements'>, anchor: ExchangeAnchor): TimelineView | undefined {
  const timeline = report.timeline;
  if (timeline === undefined || timeline.responses.length === 0) return undefined;
  const findings = timelineFindings(report);
  const citedBy = new Map<number, number[]>();
  for (const f of findings) for (const seq of f.cites) citedBy.set(seq, [...(citedBy.get(seq) ?? []), f.n]);
  const requirementsOf = (numbers: readonly number[]): string[] => numbers.map((n) => findings[n - 1]?.requirement ?? '');
  const all: TimelineMark[] = timeline.responses.map((r) => {
    const cited = citedBy.get(r.seq) ?? [];
    const lane = laneOf(r);
    return {
      seq: r.seq,
      x: seconds(r.t),
      lane,
      ...(lane === 'keyed' && r.remaining !== undefined ? { y: r.remaining } : {}),
      op: r.op,
      kind: kindOf(r),
      response: r,
      cited,
      href: anchor(r.seq, requirementsOf(cited)) ?? rowAnchor(r.seq),
      label: markLabel(r),
    };
  });
  const left = thinned(all);
  const marks = all.filter((m) => !left.has(m.seq));
  const lastMoment = largest([...timeline.responses.map((r) => r.t + r.ms), ...timeline.waits.map((w) => w.t + w.ms)]);
  const endS = seconds(lastMoment * 1.02 + 50);
  const keyed = timeline.responses.filter((r) => r.auth === 'key');
  const bounds = findings.flatMap((f) => (f.expected !== undefined && f.expected.kind !== 'window-until' && f.expected.kind !== 'served-from' ? [f.expected.value] : []));
  const topY = largest([...keyed.map((r) => Math.max(r.limit ?? 0, r.remaining ?? 0)), ...bounds], 1);
  return {
    timeline,
    marks,
    findings,
    windows: windowsOf(timeline.responses, timeline.start, endS),
    waits: timeline.waits.map((w, i) => ({ n: i + 1, x: seconds(w.t), width: seconds(w.ms), reason: w.reason })),
    endS,
    topY,
    counts: {
      requests: timeline.responses.length,
      keyed: keyed.length,
      withoutKey: timeline.responses.length - keyed.length,
      throttled: timeline.responses.filter((r) => r.status === 429).length,
      noRateLimitHeaders: timeline.responses.filter((r) => r.status !== undefined && !hasRateLimitHeaders(r)).length,
      lagged: timeline.responses.filter((r) => r.lagged === true).length,
      thinned: left.size,
    },
  };
}

/** Why a report shows no timeline: written before timelines existed, stopped before its end, or nothing sent. */
export function timelineAbsence(report: Report): string {
  if (report.timeline !== undefined || report.requests === 0) return 'The run sent no request, so there is nothing to draw.';
  const reason = report.halted?.reason;
  if (reason === 'interrupted' || reason === 'aborted') return 'The run was stopped before it could record its timeline; the evidence below still cites each exchange.';
  return 'This report.json has no timeline: it was written by an earlier version of petstore-conformance, which did not record one. Run again to get it.';
}
