/**
 * exchanges.har (--reporter har): a run against a reference server started here writes a HAR
 * that the HAR 1.2 JSON Schema of @har-sdk/validator accepts, that holds exactly the requests the
 * server received, in send order, with no key, that headless Chromium replays with routeFromHAR,
 * and that `report --reporter har` renders again, byte for byte, from the saved report.json.
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import harSdk from '@har-sdk/validator';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceBehaviour, startReferenceServer, type RunningReferenceServer } from '../fixtures/reference-server/index.js';
import { SHORT_WINDOWS } from '../fixtures/variants/index.js';
import { loggedExchange } from '../src/report/evidence.js';
import { renderHar } from '../src/report/render/har.js';
import type { LoggedExchange, Report } from '../src/report/types.js';
import { findChromium } from './support/chromium.js';
import { runCli, stderrBesidesProgress, type CliResult } from './support/cli.js';
import { makeExchange } from './support/exchange-factory.js';
import { passingReport } from './support/report-factory.js';
import { reportSchemaErrors } from './support/report-schema.js';
import { tempDirs } from './support/temp-dirs.js';
import { VARIANT_SEED } from './support/variant-run.js';
import { describeNearMiss, nearMissesOf, nearMissOf } from '../src/http/near-miss.js';
import { RUN_TIMEOUT_MS } from './support/hang-guard.js';

/** The parts of a HAR these tests read. */
interface Har {
  log: {
    version: string;
    creator: { name: string; version: string };
    entries: Array<{
      startedDateTime: string;
      time: number;
      comment: string;
      request: { method: string; url: string; headers: Array<{ name: string; value: string }>; postData?: { text: string; comment?: string }; bodySize: number };
      response: { status: number; headers: Array<{ name: string; value: string }>; content: { size: number; text?: string; comment?: string }; _error?: string };
      timings: Record<string, number>;
    }>;
  };
}

const harErrors = async (har: unknown): Promise<unknown[]> => new harSdk.HarValidator().verify(har as Parameters<harSdk.HarValidator['verify']>[0]);

const tempDir = tempDirs();

describe('renderHar on a report with an exchange log', () => {
  const withLog = (exchanges: LoggedExchange[]): Report => ({ ...passingReport(), exchanges });

  it('cuts long bodies as report.json does and says so, keeps failed exchanges, names retries', async () => {
    const long = loggedExchange(makeExchange({ seq: 1, purpose: 'census', body: 'x'.repeat(5_000) }));
    const throttled = loggedExchange(makeExchange({ seq: 2, purpose: 'LIST-003', status: 429 }));
    const retry = { ...loggedExchange(makeExchange({ seq: 3, purpose: 'LIST-003' })), retryOf: 2 };
    const failed = loggedExchange(makeExchange({ seq: 4, purpose: 'GET-002', noResponse: true }));
    const har = JSON.parse(renderHar(withLog([long, throttled, retry, failed]))) as Har;
    expect(await harErrors(har)).toEqual([]);
    const [first, , third, fourth] = har.log.entries;
    expect(first?.response.content.text).toBe('x'.repeat(2_000));
    expect(first?.response.content.size).toBe(5_000);
    expect(first?.response.content.comment).toMatch(/first 2000 characters of 5000 bytes.*; SHA-256 of the whole body [0-9a-f]{64}\)$/);
    expect(first?.response.content.comment).toContain(createHash('sha256').update('x'.repeat(5_000)).digest('hex'));
    expect(third?.comment).toBe('#3 LIST-003: retry after the 429 of #2');
    expect(fourth).toMatchObject({ comment: '#4 GET-002: no response: timed out', response: { status: 0, _error: 'timed out' } });
    expect(reportSchemaErrors(withLog([long, throttled, retry, failed]))).toEqual([]);
  });

  it('says when the client stopped reading a response at its cap, and keeps a request body cut', async () => {
    const capped = loggedExchange(makeExchange({ seq: 1, body: 'y'.repeat(1_500), truncated: true }));
    const post = makeExchange({ seq: 2, method: 'POST', status: 400 });
    post.request = { ...post.request, body: `{"name":"${'é'.repeat(3_000)}"}`, headers: { ...post.request.headers, 'content-type': 'application/json' } };
    const har = JSON.parse(renderHar(withLog([capped, loggedExchange(post)]))) as Har;
    expect(await harErrors(har)).toEqual([]);
    expect(har.log.entries[0]?.response.content.comment).toBe('the client stopped reading at its body cap: the server sent more than these 1500 bytes');
    const sent = har.log.entries[1]?.request;
    expect(sent?.postData?.text).toHaveLength(2_000);
    expect(sent?.bodySize).toBe(Buffer.byteLength(post.request.body ?? ''));
    expect(sent?.postData?.comment).toMatch(/^body cut to its first 2000 characters of 6011 bytes/);
  });

  it('shows a request body that is not UTF-8 as \\xHH, its size in bytes, and its exact bytes in the comment', async () => {
    const bytes = Buffer.concat([Buffer.from('{"name":"a ', 'utf8'), Buffer.from([0xff, 0xc0]), Buffer.from('"}', 'utf8')]);
    const post = makeExchange({ seq: 1, method: 'POST', status: 400 });
    post.request = { ...post.request, body: '{"name":"a \\xFF\\xC0"}', bodyBase64: bytes.toString('base64'), headers: { ...post.request.headers, 'content-type': 'application/json' } };
    const logged = withLog([loggedExchange(post)]);
    const har = JSON.parse(renderHar(logged)) as Har;
    expect(await harErrors(har)).toEqual([]);
    const sent = har.log.entries[0]?.request;
    expect(sent?.postData?.text).toBe('{"name":"a \\xFF\\xC0"}');
    expect(sent?.bodySize).toBe(bytes.length);
    expect(sent?.postData?.comment).toBe(`not UTF-8: each ill-formed byte is shown as \\xHH; the exact bytes, base64: ${bytes.toString('base64')}`);
    expect(reportSchemaErrors(logged)).toEqual([]);
  });

  it('renders a report without the log as an archive with no entries that says why', () => {
    const har = JSON.parse(renderHar(passingReport())) as Har & { log: { comment: string } };
    expect(har.log.entries).toEqual([]);
    expect(har.log.comment).toMatch(/holds no exchange log: run with --reporter har/);
  });
});

describe('a run with --reporter har against the reference server', () => {
  let server: RunningReferenceServer;
  /** What the server received, in arrival order: "GET /v1/pets?limit=1". */
  const received: string[] = [];
  let dir: string;
  let cli: CliResult;
  let harText: string;
  let har: Har;
  let report: Report;
  let key: string;
  let context: BrowserContext | undefined;

  beforeAll(async () => {
    server = await startReferenceServer({
      ...SHORT_WINDOWS,
      behaviour: {
        finalize: (response, ctx) => {
          received.push(`${ctx.method} ${ctx.url.pathname}${ctx.url.search}`);
          return referenceBehaviour.finalize(response, ctx);
        },
      },
    });
    key = server.keys.free;
    dir = await tempDir('har');
    try {
      cli = await runCli(['--base-url', server.baseUrl, '--plan', 'free', '--seed', String(VARIANT_SEED), '--report-dir', dir, '--reporter', 'json,har'], { PETSTORE_API_KEY: key });
    } finally {
      await server.close();
    }
    harText = await readFile(join(dir, 'exchanges.har'), 'utf8');
    har = JSON.parse(harText) as Har;
    report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report;
  }, RUN_TIMEOUT_MS);

  afterAll(async () => {
    await context?.close();
  });

  it('conforms, and report.json keeps the log valid against its schema', () => {
    expect(stderrBesidesProgress(cli)).toEqual([]);
    expect(cli.code).toBe(0);
    expect(report.exchanges?.length).toBe(report.requests);
    expect(reportSchemaErrors(report)).toEqual([]);
  });

  it('passes the HAR 1.2 JSON Schema (@har-sdk/validator), with timings that add up', async () => {
    expect(await harErrors(har)).toEqual([]);
    expect(har.log).toMatchObject({ version: '1.2', creator: { name: 'petstore-conformance', version: report.tool.version } });
    for (const e of har.log.entries) {
      expect(new Date(e.startedDateTime).toISOString()).toBe(e.startedDateTime);
      for (const part of ['send', 'wait', 'receive']) expect(e.timings[part]).toBeGreaterThanOrEqual(0);
      expect(e.time).toBeCloseTo((e.timings['send'] ?? 0) + (e.timings['wait'] ?? 0) + (e.timings['receive'] ?? 0), 2);
    }
  });

  it('holds every request the server received, in send order, each named by what sent it', () => {
    const entries = har.log.entries;
    expect(entries.length).toBe(server.requests);
    expect(entries.length).toBe(received.length);
    const sent = entries.map((e) => {
      const url = new URL(e.request.url);
      return `${e.request.method} ${url.pathname}${url.search}`;
    });
    expect([...sent].sort()).toEqual([...received].sort());
    expect(entries.map((e) => Number(/^#(\d+) /.exec(e.comment)?.[1]))).toEqual(entries.map((_e, i) => i + 1));
    const starts = entries.map((e) => Date.parse(e.startedDateTime));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    // The first request is the census, which also does the preflight's checks (bad key, wrong base URL).
    expect(entries[0]?.comment).toBe('#1 census');
    expect(entries.some((e) => / census$/.test(e.comment))).toBe(true);
    expect(entries.some((e) => / CREATE-003 fixed case /.test(e.comment))).toBe(true);
    for (const e of entries) expect(e.comment).toMatch(/^#\d+ (preflight|census|bracket|[A-Z]+-\d{3})/);
  });

  it('contains no key: the Authorization header reads as in report.json', async () => {
    const reportText = await readFile(join(dir, 'report.json'), 'utf8');
    // The key's near misses (AUTH-002) are as secret as the key: each is named by its kind only.
    for (const secret of [key, ...nearMissesOf(key).map((miss) => nearMissOf(key, miss))]) {
      expect(harText).not.toContain(secret);
      expect(reportText).not.toContain(secret);
    }
    const keyed = har.log.entries.flatMap((e) => e.request.headers.filter((h) => h.name === 'authorization' && h.value.startsWith('Bearer <')));
    expect(keyed.length).toBeGreaterThan(0);
    // AUTH-003's "Bearer <key> Bearer <key>" shows the key redacted twice.
    const shown = new Set(['Bearer <redacted>', 'Bearer <redacted> Bearer <redacted>', ...nearMissesOf(key).map((miss) => `Bearer ${describeNearMiss(miss)}`)]);
    for (const h of keyed) expect(shown).toContain(h.value);
    expect(keyed.map((h) => h.value)).toContain('Bearer <redacted>');
  });

  it('is read by headless Chromium: routeFromHAR answers a recorded request with the recorded response', async () => {
    const counts = new Map<string, number>();
    for (const e of har.log.entries) counts.set(`${e.request.method} ${e.request.url}`, (counts.get(`${e.request.method} ${e.request.url}`) ?? 0) + 1);
    const recorded = har.log.entries.find(
      (e) => e.request.method === 'GET' && e.response.status === 200 && e.response.content.comment === undefined && counts.get(`GET ${e.request.url}`) === 1,
    );
    if (recorded === undefined) throw new Error('no GET answered 200 that was sent once');
    const build = await findChromium(await tempDir('chromium'));
    context = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: build.executablePath,
      env: { ...process.env, ...build.env },
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    // The server is closed: only the archive can answer, and anything it lacks is aborted.
    await context.routeFromHAR(join(dir, 'exchanges.har'), { notFound: 'abort' });
    const page = await context.newPage();
    const response = await page.goto(recorded.request.url);
    expect(response?.status()).toBe(200);
    expect(await response?.text()).toBe(recorded.response.content.text);
    const remaining = recorded.response.headers.find((h) => h.name === 'x-ratelimit-remaining')?.value;
    expect(response?.headers()['x-ratelimit-remaining']).toBe(remaining);
  }, RUN_TIMEOUT_MS);

  it('`report --reporter har` renders the same HAR again from the saved report.json', async () => {
    const again = await tempDir('har-again');
    const result = await runCli(['report', join(dir, 'report.json'), '--reporter', 'har', '--report-dir', again]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(await readFile(join(again, 'exchanges.har'), 'utf8')).toBe(harText);
  });

  it('`report --reporter har` on a report without the log exits 2 with one line', async () => {
    const bare = join(await tempDir('har-bare'), 'report.json');
    const { exchanges: _dropped, ...withoutLog } = report;
    await writeFile(bare, JSON.stringify(withoutLog));
    const result = await runCli(['report', bare, '--reporter', 'html,har']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^petstore-conformance: ".*report\.json" holds no exchange log .*--reporter har.*\n$/);
  });
});
