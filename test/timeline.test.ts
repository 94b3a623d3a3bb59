/**
 * report.html's rate-limit timeline, without a browser: the worker's record of the run
 * (timelineRecord), the figures the checks give their findings to draw (cites, pairedWith,
 * expected), the timeline read back from a report (timelineView), report.json's compact
 * timeline, and the section report.html renders from it. The browser tests
 * (report-timeline-browser.test.ts) open real runs' reports.
 */
import { describe, expect, it } from 'vitest';
import { checkEarly429, checkRefusalAnnouncingRoom } from '../src/checks/early-429.js';
import { checkRateLimitHeaders } from '../src/checks/rate-limit-headers.js';
import { checkLimitStable, checkRefillBeforeReset } from '../src/checks/rate-limit-sequence.js';
import { checkRetryHonoured } from '../src/checks/retry-after-reset.js';
import { serverClockOf, serverTimeOf } from '../src/checks/server-clock.js';
import { groupFindings } from '../src/conformance/group-findings.js';
import { violation } from '../src/checks/finding.js';
import { parseReport } from '../src/report/load.js';
import { renderHtml } from '../src/report/render/html.js';
import { renderJson } from '../src/report/render/json.js';
import { prepareTimelineChart } from '../src/report/render/timeline-chart.js';
import { MAX_MARKS, timelineAbsence, timelineView, type ExchangeAnchor } from '../src/report/timeline.js';
import { timelineRecord } from '../src/report/timeline-record.js';
import type { Report, TimelineResponse } from '../src/report/types.js';
import { NOW_MS, NOW_S, makeExchange } from './support/exchange-factory.js';
import { TIMELINE_START, mixedReport, sampleTimeline, timelineReport } from './support/report-factory.js';
import { reportSchemaErrors } from './support/report-schema.js';

const httpDate = (ms: number): string => new Date(ms).toUTCString();
const noAnchor: ExchangeAnchor = () => undefined;

describe('the worker\'s record of the run (timelineRecord)', () => {
  // A server whose clock runs 3.2 s ahead of ours: its Dates say so.
  const AHEAD_MS = 3_200;
  const sent = (i: number, more: Parameters<typeof makeExchange>[0] = {}) =>
    makeExchange({ seq: i + 1, sentAt: NOW_MS + i * 100, elapsedMs: 20, ...more, headers: { date: httpDate(NOW_MS + i * 100 + AHEAD_MS), ...more.headers } });
  const exchanges = [
    sent(0),
    sent(1, { method: 'POST', status: 201, headers: { 'x-ratelimit-remaining': '58' } }),
    sent(2, { target: '/pets/7', status: 429, headers: { 'x-ratelimit-remaining': '0', 'retry-after': '  2 ' } }),
    sent(3, { auth: 'wrong-key', status: 401, headers: { 'x-ratelimit-limit': '6O', 'x-ratelimit-remaining': undefined, 'x-ratelimit-reset': '99999999999999999999' } }),
    sent(4, { target: '/store/orders' }),
    sent(5, { target: '/pets/7', noResponse: true }),
    sent(6, { target: '/elsewhere' }),
  ];
  exchanges[4] = { ...exchanges[4]!, retryOf: 3 };
  const clock = serverClockOf(exchanges);
  const record = timelineRecord([...exchanges].reverse(), clock, [{ at: NOW_MS + 250, ms: 2000, reason: 'Retry-After of the last 429' }], new Set([3]));

  it('places every request on the server\'s clock as the run\'s checks do, from the first send, in send order', () => {
    expect(clock).toBeDefined();
    expect(record.clock).toBe('server');
    expect(record.offsetMs).toBe(Math.round(clock?.low ?? 0));
    expect(record.offsetMs).toBeGreaterThan(AHEAD_MS - 1_000);
    expect(record.start).toBe(Math.round(NOW_MS + (clock?.low ?? 0)));
    expect(record.responses.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    for (const ex of exchanges.filter((e) => e.response !== undefined)) {
      expect(record.responses.find((r) => r.seq === ex.seq)?.t, `#${ex.seq}`).toBe(Math.round(serverTimeOf(ex, clock) - record.start));
    }
    // No answer: when it was sent, on the same clock.
    expect(record.responses[5]).toMatchObject({ seq: 6, t: 500, error: 'ETIMEDOUT', auth: 'key' });
    expect(record.responses[5]?.status).toBeUndefined();
    // The wait began 250 ms after the first send, on the same clock too.
    expect(record.waits).toEqual([{ t: 250, ms: 2000, reason: 'Retry-After of the last 429' }]);
  });

  it('keeps the figures as integers (absent when not one), the operation, the credential, a 429\'s Retry-After, retries and lagged reads', () => {
    const [list, create, throttled, wrongKey, orders, , other] = record.responses;
    expect(list).toMatchObject({ op: 'listPets', status: 200, auth: 'key', limit: 60, remaining: 59, reset: NOW_S + 60, ms: 20 });
    expect(create).toMatchObject({ op: 'createPet', status: 201, remaining: 58 });
    expect(throttled).toMatchObject({ op: 'getPet', status: 429, remaining: 0, retryAfter: '2', lagged: true });
    expect(wrongKey).toMatchObject({ auth: 'wrong-key', status: 401 });
    // "6O" is no integer, a missing header is nothing, and 10^20 is beyond what JSON keeps exact.
    expect(wrongKey?.limit).toBeUndefined();
    expect(wrongKey?.remaining).toBeUndefined();
    expect(wrongKey?.reset).toBeUndefined();
    expect(orders).toMatchObject({ op: 'listOrders', retryOf: 3 });
    expect(orders?.retryAfter).toBeUndefined();
    expect(other?.op).toBe('other');
    expect(list?.lagged).toBeUndefined();
  });

  it('falls back to the local clock when no response carried a usable Date', () => {
    const undated = [makeExchange({ seq: 1, sentAt: NOW_MS, elapsedMs: 10, headers: { date: undefined } })];
    const local = timelineRecord(undated, serverClockOf(undated), []);
    expect(local).toMatchObject({ clock: 'local', start: NOW_MS, offsetMs: 0 });
    expect(local.responses[0]?.t).toBe(10);
  });
});

describe('what a finding carries for the timeline', () => {
  const at = (atMs: number, headers: Record<string, string | undefined>, more: Parameters<typeof makeExchange>[0] = {}) =>
    makeExchange({ sentAt: NOW_MS + atMs - 10, elapsedMs: 10, ...more, headers: { date: httpDate(NOW_MS + atMs), ...headers } });
  const window = (remaining: number, limit = 60) => ({ 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': String(NOW_S + 30) });

  it('an early 429: the announcement it broke, and the requests that announcement still left', () => {
    const announced = at(0, window(20), { seq: 4 });
    const [found] = checkEarly429(announced, at(100, { ...window(0), 'retry-after': '30' }, { seq: 9, status: 429 }), 3);
    // 20 announced - 3 of the run's own - 6 for other users of a shared key.
    expect(found).toMatchObject({ exchange: 9, pairedWith: 4, expected: { kind: 'remaining-at-least', value: 11 } });
  });

  it('a 429 that announces room, a Remaining above the Limit, a Limit off the plan', () => {
    const [room] = checkRefusalAnnouncingRoom(at(0, { ...window(20), 'retry-after': '30' }, { status: 429 }), 6n);
    expect(room?.expected).toEqual({ kind: 'remaining-at-most', value: 6 });
    const findings = checkRateLimitHeaders(at(0, window(70)), { plan: 'free' });
    expect(findings.find((f) => f.requirement === 'RATE-002')?.expected).toEqual({ kind: 'remaining-at-most', value: 60 });
    const off = checkRateLimitHeaders(at(0, window(20, 100)), { plan: 'free' });
    expect(off.find((f) => f.requirement === 'RATE-004')?.expected).toEqual({ kind: 'limit', value: 60 });
  });

  it('a refill before the Reset, a Limit that changed, a retry refused after Retry-After: the earlier exchange and the moment or value', () => {
    const earlier = at(0, window(5), { seq: 1 });
    const [refill] = checkRefillBeforeReset(earlier, at(5_000, { ...window(59), 'x-ratelimit-reset': String(NOW_S + 90) }, { seq: 2 }));
    expect(refill).toMatchObject({ requirement: 'RATE-003', pairedWith: 1, expected: { kind: 'window-until', value: (NOW_S + 30) * 1000 } });
    const [changed] = checkLimitStable(earlier, at(100, window(4, 50), { seq: 2 }));
    expect(changed).toMatchObject({ requirement: 'RATE-008', pairedWith: 1, expected: { kind: 'limit', value: 60 } });
    const throttled = at(0, { ...window(0), 'retry-after': '2' }, { seq: 5, status: 429 });
    const retry = at(2_100, window(0), { seq: 6, status: 429, sentAt: NOW_MS + 2_050 });
    const [refused] = checkRetryHonoured(throttled, retry, 'dedicated', 0n, serverClockOf([throttled, retry]));
    expect(refused).toMatchObject({ requirement: 'RATE-006', pairedWith: 5, expected: { kind: 'served-from' } });
    // Retry-After passed 2 s after the 429 arrived; the server's clock agrees with ours here within its Date's second.
    expect(Math.abs((refused?.expected?.value ?? 0) - (NOW_MS + 2_000))).toBeLessThanOrEqual(1_000);
  });

  it('a group of findings with one message names each response that showed it', () => {
    const [group] = groupFindings([violation('RATE-001', 'Received no X-RateLimit-Reset', 3), violation('RATE-001', 'Received no X-RateLimit-Reset', 8), violation('RATE-001', 'Received no X-RateLimit-Reset', 3)]);
    expect(group?.exchanges).toEqual([3, 8]);
  });
});

describe('the timeline read from a report (timelineView)', () => {
  const report = timelineReport();
  const anchors: ExchangeAnchor = (seq, preferred) => (seq === 5 || seq === 9 ? `ex-${preferred[0] ?? 'first'}-${seq}` : undefined);
  const view = timelineView(report, anchors);

  it('one mark per request, in the lane of its credential and headers, with the counts the summary gives', () => {
    expect(view?.marks.map((m) => m.seq)).toEqual(report.timeline?.responses.map((r) => r.seq));
    const lane = (name: string) => view?.marks.filter((m) => m.lane === name).map((m) => m.seq);
    expect(lane('keyed')).toEqual([1, 2, 3, 4, 5, 8, 9, 10, 12]);
    expect(lane('no-remaining')).toEqual([11, 13]);
    expect(lane('without-key')).toEqual([6, 7, 14]);
    expect(view?.marks.find((m) => m.seq === 9)?.y).toBe(59);
    expect(view?.marks.filter((m) => m.kind === 'throttled').map((m) => m.seq)).toEqual([10]);
    expect(view?.marks.filter((m) => m.kind === 'refused').map((m) => m.seq)).toEqual([3, 4, 6, 7, 12]);
    expect(view?.marks.find((m) => m.seq === 13)?.kind).toBe('no-response');
    expect(view?.counts).toEqual({ requests: 14, keyed: 11, withoutKey: 3, throttled: 1, noRateLimitHeaders: 2, lagged: 1, thinned: 0 });
    // The keyed count is the report's own count of requests with the key.
    expect(view?.counts.keyed).toBe(report.requestsByKey?.withKey);
  });

  it('numbers the findings of section 8 and CREATE-002 in report order, each with what it cites and expected, and nothing else', () => {
    expect(view?.findings).toEqual([
      { n: 1, requirement: 'CREATE-002', index: 1, message: expect.stringContaining('received 404') as string, cites: [12, 8] },
      // A report written before Evidence.cites: the exchange the evidence shows.
      { n: 2, requirement: 'RATE-001', index: 1, message: expect.stringContaining('Received no X-RateLimit-Limit') as string, cites: [11] },
      { n: 3, requirement: 'RATE-002', index: 1, message: expect.stringContaining('rose from 55') as string, cites: [9, 5], pairedWith: 5, expected: { kind: 'remaining-at-most', value: 53 } },
    ]);
    const cited = Object.fromEntries((view?.marks ?? []).filter((m) => m.cited.length > 0).map((m) => [m.seq, m.cited]));
    expect(cited).toEqual({ 5: [3], 8: [1], 9: [3], 11: [2], 12: [1] });
  });

  it('links each mark to its exchange in the evidence of the finding that cites it, else to its row', () => {
    expect(view?.marks.find((m) => m.seq === 9)?.href).toBe('ex-RATE-002-9');
    expect(view?.marks.find((m) => m.seq === 1)?.href).toBe('tl-ex-1');
    expect(view?.marks.find((m) => m.seq === 10)?.label).toBe('#10 listPets 429, Remaining 0 of 60, Reset 12:00:01Z, Retry-After 1, at 0.700 s');
  });

  it('tells the windows apart by their Reset, and spans the waits', () => {
    expect(view?.windows).toEqual([
      { reset: TIMELINE_START / 1000 + 1, x: 1, first: 1, last: 10, requests: 8, served: 5, throttled: 1, lowestRemaining: 0, limit: 60 },
      { reset: TIMELINE_START / 1000 + 2, x: 2, first: 12, last: 12, requests: 1, served: 0, throttled: 0, lowestRemaining: 58, limit: 60 },
    ]);
    expect(view?.waits).toEqual([{ n: 1, x: 0.71, width: 0.3, reason: 'Retry-After of the last 429' }]);
  });

  it('draws every exceptional request of a paid plan\'s day and thins only ordinary served ones to stay under MAX_MARKS', () => {
    const served = (seq: number): TimelineResponse => ({ seq, t: seq * 10, ms: 5, op: 'listPets', status: 200, auth: 'key', limit: 1000, remaining: 999, reset: TIMELINE_START / 1000 + 60 });
    // A Business key's day: more requests than a spread argument list takes.
    const responses = Array.from({ length: 130_000 }, (_, i) => served(i + 1));
    responses[99] = { ...served(100), status: 429, remaining: 0 };
    responses[199] = { ...served(200), auth: 'none' };
    const big: Report = { ...report, timeline: { ...sampleTimeline(), responses, waits: [] } };
    const thinned = timelineView(big, noAnchor);
    expect(thinned?.marks.length).toBeLessThanOrEqual(MAX_MARKS);
    expect(thinned?.counts.thinned).toBe(responses.length - (thinned?.marks.length ?? 0));
    for (const seq of [100, 200, 5, 9]) expect(thinned?.marks.some((m) => m.seq === seq), `#${seq}`).toBe(true);
  });

  it('says why a report has none', () => {
    expect(timelineView(mixedReport(), noAnchor)).toBeUndefined();
    expect(timelineAbsence(mixedReport())).toMatch(/written by an earlier version/);
    expect(timelineAbsence({ ...mixedReport(), halted: { reason: 'interrupted', signal: 'SIGINT', message: 'stopped', unjudged: [] } })).toMatch(/stopped before it could record/);
    expect(timelineAbsence({ ...mixedReport(), requests: 0 })).toMatch(/sent no request/);
  });
});

describe('report.json\'s timeline', () => {
  it('keeps each request and wait on one line, parses back to the report and is schema-valid', () => {
    const report = timelineReport();
    const text = renderJson(report);
    expect(parseReport(text, 'report.json')).toEqual(report);
    expect(reportSchemaErrors(report)).toEqual([]);
    const rows = text.split('\n').filter((line) => line.startsWith('      {"seq":'));
    expect(rows).toHaveLength(14);
    expect(rows[0]).toBe(`      {"seq":1,"t":0,"ms":30,"op":"listPets","status":200,"auth":"key","limit":60,"remaining":59,"reset":${TIMELINE_START / 1000 + 1}},`);
    expect(text).toContain('    "waits": [\n      {"t":710,"ms":300,"reason":"Retry-After of the last 429"}\n    ]\n  }\n}\n');
  });

  it('a report without one is written as before', () => {
    expect(renderJson(mixedReport())).toBe(`${JSON.stringify(mixedReport(), null, 2)}\n`);
  });

  it('the schema refuses a timeline that is not one', () => {
    const report = timelineReport();
    const broken = (change: (t: NonNullable<Report['timeline']>) => object): Report => ({ ...report, timeline: change(sampleTimeline()) as NonNullable<Report['timeline']> });
    expect(reportSchemaErrors(broken((t) => ({ ...t, clock: 'guessed' })))).not.toEqual([]);
    expect(reportSchemaErrors(broken((t) => ({ ...t, responses: [{ ...t.responses[0], auth: 'stolen' }] })))).not.toEqual([]);
    expect(reportSchemaErrors(broken((t) => ({ ...t, responses: [{ ...t.responses[0], remaining: -1 }] })))).not.toEqual([]);
    expect(reportSchemaErrors(broken((t) => ({ ...t, waits: [{ t: 1, ms: 1 }] })))).not.toEqual([]);
  });
});

describe('report.html\'s timeline section', () => {
  it('draws one linked mark per request, rings the cited ones, and links findings and marks both ways', async () => {
    const html = await renderHtml(timelineReport());
    const section = html.slice(html.indexOf('<section class="timeline"'), html.indexOf('</section>', html.indexOf('<section class="timeline"')));
    const marks = [...section.matchAll(/<a href="#([^"]+)" tabindex="-1" class="mark" data-seq="(\d+)" data-lane="([a-z-]+)" data-auth="([a-z-]+)" data-kind="([a-z-]+)"(?: data-cited="([\d ]+)")?>/g)];
    expect(marks.map((m) => Number(m[2])).sort((a, b) => a - b)).toEqual(Array.from({ length: 14 }, (_, i) => i + 1));
    expect(marks.filter((m) => m[4] === 'key')).toHaveLength(11);
    expect(marks.filter((m) => m[6] !== undefined).map((m) => [Number(m[2]), m[6]]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([[5, '3'], [8, '1'], [9, '3'], [11, '2'], [12, '1']]);
    // Each mark's link lands on an element of the page: its exchange in the evidence, or its row.
    for (const [, href] of marks) expect(html, href).toContain(`id="${href}"`);
    expect(marks.find((m) => m[2] === '9')?.[1]).toBe('ex-RATE-002-9');
    // Each finding's violation links to its place: the ring of its first cited mark.
    expect(html).toContain('<li data-kind="violation" id="finding-RATE-002-1"><p><span class="kind">violation</span>X-RateLimit-Remaining rose');
    expect(html).toMatch(/id="finding-RATE-002-1">.*<a class="tl-link" href="#tl-f3">F3 on the timeline<\/a>/);
    expect(section).toMatch(/<a id="tl-f3" href="#ex-RATE-002-9" tabindex="-1" class="ring" data-seq="9"/);
    expect(section).toMatch(/<a id="tl-f1" href="#[^"]+" tabindex="-1" class="ring" data-seq="12"/);
    const shown = [
      // The rise's bound, the wait and the Resets, drawn and labelled.
      '>F3: at most 53</text>',
      '>W1</text>',
      '>Reset</text>',
      // In words: the finding with its marks and bound, and the summary that labels the picture.
      '<li id="tl-finding-3"><span class="tl-n">F3</span><a class="rid" href="#finding-RATE-002-1">RATE-002</a>',
      'Expected: X-RateLimit-Remaining should have been at most 53.',
      '14 requests over 1.300 s from 2025-06-02 12:00:00Z, on the server’s clock as the run read it from the Date headers: 11 with the run’s key, 3 without a valid key; 1 response 429 Too Many Requests, 2 without rate-limit headers, 1 read of a created pet that lagged its write',
      '<figure aria-labelledby="timeline-summary">\n<svg class="timeline-chart" aria-hidden="true" focusable="false" ',
    ];
    for (const text of shown) expect(section).toContain(text);
    // Every request has a row: the table is the picture's text equivalent.
    expect(section.match(/<tr id="tl-ex-\d+">/g)).toHaveLength(14);
  });

  it('waits that overlap (a burst\u2019s requests each waiting out its 429) share one name in the picture, each its own in words', async () => {
    const waits = [0, 5, 12, 20].map((d, i) => ({ t: 700 + d, ms: 300, reason: `429 on exchange ${i + 6}: waiting before the single retry` }));
    const html = await renderHtml({ ...timelineReport(), timeline: { ...sampleTimeline(), waits } });
    const section = html.slice(html.indexOf('<section class="timeline"'), html.indexOf('</section>', html.indexOf('<section class="timeline"')));
    expect(section).toContain('>W1\u2013W4</text>');
    expect(section).not.toMatch(/>W\d<\/text>/);
    for (const n of [1, 2, 3, 4]) expect(section).toContain(`<span class="tl-n">W${n}</span>`);
  });

  it('rings of one finding that coincide (two 429s of a burst) share one label, each ring still drawn', async () => {
    const report = timelineReport();
    const timeline = sampleTimeline();
    const burst = [15, 16].map((seq): TimelineResponse => ({ seq, t: 1_400 + (seq - 15) * 2, ms: 5, op: 'listPets', status: 429, auth: 'key', limit: 60, remaining: 0, reset: timeline.responses[0]?.reset ?? 0, retryAfter: '1' }));
    const rate = report.requirements.find((r) => r.id === 'RATE-002');
    if (rate === undefined) throw new Error('the sample report has no RATE-002');
    const both = { ...report, requests: 16, requestsByKey: { withKey: 13, withoutKey: 3 }, timeline: { ...timeline, responses: [...timeline.responses, ...burst] }, requirements: report.requirements.map((r) => (r === rate ? { ...r, evidence: [...r.evidence, { kind: 'violation' as const, message: 'Two 429s announcing room', cites: [15, 16] }] } : r)) };
    const html = await renderHtml(both);
    const section = html.slice(html.indexOf('<section class="timeline"'), html.indexOf('</section>', html.indexOf('<section class="timeline"')));
    const cited = [...section.matchAll(/class="ring" data-seq="(1[56])" data-lane="[a-z-]+" data-auth="[a-z-]+" data-kind="[a-z-]+" data-cited="(\d+)"/g)];
    expect(cited.map((m) => m[1]).sort()).toEqual(['15', '16']);
    const n = cited[0]?.[2];
    expect(cited[1]?.[2]).toBe(n);
    expect(section.split(`>F${n ?? ''}</text>`)).toHaveLength(2);
  });

  it('stays offline and the same on every rendering', async () => {
    const html = await renderHtml(timelineReport());
    expect(html).not.toMatch(/\b(src|href)="(?!#)/);
    expect(html).not.toMatch(/@import|url\(/);
    expect(html).not.toMatch(/ecmeta_|\bzr\d+-/);
    expect(await renderHtml(timelineReport())).toBe(html);
    // The CLI's warm-up during the run's wait (prepareTimelineChart) draws a chart of its own first: nothing of it shows.
    await prepareTimelineChart();
    expect(await renderHtml(timelineReport())).toBe(html);
  });

  it('a Reset no date has (a server\'s own unit) is shown as the number it is, not a crash', async () => {
    const report = timelineReport();
    const timeline = sampleTimeline();
    timeline.responses[0] = { ...timeline.responses[0]!, reset: Number.MAX_SAFE_INTEGER };
    const html = await renderHtml({ ...report, timeline });
    expect(html).toContain(`${Number.MAX_SAFE_INTEGER * 1000} ms after 1970`);
  });

  it('a report without one says why instead', async () => {
    const html = await renderHtml(mixedReport());
    expect(html).toContain('<h2 id="timeline">Rate limit over the run</h2>\n<p class="note">This report.json has no timeline: it was written by an earlier version');
    expect(html).not.toContain('<svg');
  });
});
