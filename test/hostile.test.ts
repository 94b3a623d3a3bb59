/**
 * The CLI against servers broken on purpose (fixtures/hostile/): each run must end by itself,
 * with a clear exit code and verdicts, without a stack trace, and without the API key in anything
 * it prints or writes. Ending by itself is shown by the exit code: a run that hangs is killed by
 * the hang guard (support/hang-guard.ts), and its code is then null. What a run must not do is
 * proven by what happened (requests the server received, bytes it sent, the halt's reason), never
 * by how long it took. The CLI runs as a child process (support/cli.ts); at most three run at once,
 * since each one is a vitest run of its own.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Report, RequirementResult } from '../src/report/types.js';
import { startReferenceServer } from '../fixtures/reference-server/index.js';
import { SHORT_WINDOWS } from '../fixtures/variants/index.js';
import type { HostileServer } from '../fixtures/hostile/base.js';
import * as always429 from '../fixtures/hostile/always-429.js';
import * as echoAuth from '../fixtures/hostile/echo-auth.js';
import * as hugeBody from '../fixtures/hostile/huge-body.js';
import * as neverAnswers from '../fixtures/hostile/never-answers.js';
import * as redirect from '../fixtures/hostile/redirect.js';
import * as resetMidResponse from '../fixtures/hostile/reset-mid-response.js';
import * as slow from '../fixtures/hostile/slow.js';
import * as tls from '../fixtures/hostile/tls.js';
import * as truncatedJson from '../fixtures/hostile/truncated-json.js';
import { closedPort } from './support/ports.js';
import { nearMissesOf, nearMissOf } from '../src/http/near-miss.js';
import { consoleLines, readResourceUsage, RESOURCE_USAGE, runCli, stderrBesidesProgress, type CliResult } from './support/cli.js';
import { reportSchemaErrors } from './support/report-schema.js';
import { limiter } from './support/limiter.js';
import { tempDirs } from './support/temp-dirs.js';
import { servedUntilAfterAll } from './support/served.js';
import { RUN_TIMEOUT_MS } from './support/hang-guard.js';

/** Lower case (a header name is lower-cased), with characters that percent- and base64-encoding change. */
const KEY = 'pc-secret-3f9a/7q+x=k2v8w-c41d';
const ALL_FORMATS = 'json,junit,markdown,html,earl,har';
const CONCURRENT_RUNS = 3;
const MB = 1024 * 1024;
const tempDir = tempDirs();

/**
 * The key as it could leak: raw, percent-encoded (either hex case) and inside base64 at each of
 * the three byte alignments (standard and URL-safe), where only the middle characters depend on
 * the key alone.
 */
function keyForms(key: string): string[] {
  const percent = encodeURIComponent(key);
  const forms = [key, percent, percent.toLowerCase()];
  for (let offset = 0; offset < 3; offset++) {
    const b64 = Buffer.concat([Buffer.alloc(offset, 'x'), Buffer.from(key)]).toString('base64');
    const core = b64.slice(Math.ceil((offset * 4) / 3) + 1, -3);
    forms.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms;
}
/** The key and each near miss of it the run sends (AUTH-002): secrets alike, in every form. */
const LEAKS = [KEY, ...nearMissesOf(KEY).map((miss) => nearMissOf(KEY, miss))].flatMap(keyForms);

const limited = limiter(CONCURRENT_RUNS);

interface HostileRun extends CliResult {
  report: Report | undefined;
  /** Every file the run wrote, by name. */
  files: Map<string, string>;
}

/** Runs the CLI against `baseUrl` with every reporter, then checks what holds for every run. */
async function runAgainst(baseUrl: string, args: readonly string[] = [], before: readonly string[] = []): Promise<HostileRun> {
  const dir = await tempDir('hostile');
  const result = await limited(() =>
    runCli(['--base-url', baseUrl, '--report-dir', dir, '--reporter', ALL_FORMATS, ...args], { PETSTORE_API_KEY: KEY }, RUN_TIMEOUT_MS, before),
  );
  const files = new Map<string, string>();
  for (const name of await readdir(dir)) files.set(name, await readFile(join(dir, name), 'utf8'));
  const json = files.get('report.json');
  const report = json === undefined ? undefined : (JSON.parse(json) as Report);

  expect(result.stderr, 'no stack trace').not.toMatch(/\n\s+at /);
  for (const [where, text] of [['stdout', result.stdout], ['stderr', result.stderr], ...files] as const) {
    for (const form of LEAKS) expect(text.includes(form), `the key (as "${form}") leaked into ${where}`).toBe(false);
  }
  if (report !== undefined) expect(reportSchemaErrors(report)).toEqual([]);
  return { ...result, report, files };
}

function requirement(run: HostileRun, id: string): RequirementResult {
  const found = run.report?.requirements.find((r) => r.id === id);
  if (found === undefined) throw new Error(`${id} is not in the report`);
  return found;
}

function expectOneStderrLine(run: HostileRun, pattern: RegExp): void {
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}

/** Nothing could be judged: at most three console lines (what was tested, why and the fix, where the reports are), no table. */
function expectNothingJudgedConsole(run: HostileRun): void {
  const lines = consoleLines(run);
  expect(lines.length, lines.join('\n')).toBeLessThanOrEqual(3);
  expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(/^NOT VERIFIED: nothing was judged \(0 requests sent\); every requirement, with the reason, in .*report\.json, /);
  expect(run.report?.requirements.every((r) => r.status === 'inconclusive' || r.status === 'not-exercised')).toBe(true);
}

/** A halted run: exit 2, one line naming why, and the requirements it left unjudged, with reasons. */
function expectHalted(run: HostileRun, reason: NonNullable<Report['halted']>['reason'], line: RegExp): void {
  expect(run.code, run.stderr).toBe(2);
  expectOneStderrLine(run, line);
  expect(run.report?.halted?.reason).toBe(reason);
  expect(run.report?.halted?.unjudged).toContain('LIST-001');
  const list = requirement(run, 'LIST-001');
  expect(list.status).toBe('inconclusive');
  expect(list.reason).toBeTruthy();
  expect(run.report?.complete).toBe(false);
  expect(run.report?.verdict).toBe('not-verified');
}

const serve = servedUntilAfterAll();

describe.concurrent('against hostile servers the CLI ends by itself, says why, and never leaks the key', { timeout: RUN_TIMEOUT_MS }, () => {
  it('a server that accepts and never answers: per-request timeout, halt after 3 failures, exit 2', async () => {
    const server = await serve(neverAnswers.start());
    const run = await runAgainst(server.baseUrl, ['--timeout', '500']);
    expectHalted(run, 'transport', /^petstore-conformance: target stopped answering: 3 transport failures in a row, .*timeout/);
    expect(requirement(run, 'LIST-001').reason).toMatch(/timeout|transport failures/);
    expect(server.requests).toBeLessThanOrEqual(3);
  });

  it('a server that sends headers and then stalls the body: the same', async () => {
    const server = await serve(neverAnswers.start({ headers: true }));
    const run = await runAgainst(server.baseUrl, ['--timeout', '500']);
    expectHalted(run, 'transport', /^petstore-conformance: target stopped answering: .*timeout/);
    expect(server.requests).toBeLessThanOrEqual(3);
  });

  it('a connection reset mid-response: transport failures, exit 2', async () => {
    const server = await serve(resetMidResponse.start());
    const run = await runAgainst(server.baseUrl, ['--timeout', '500']);
    expectHalted(run, 'transport', /^petstore-conformance: target stopped answering: .*reset/);
    expect(server.requests).toBeLessThanOrEqual(3);
  });

  it.each(['truncated', 'html'] as const)('a %s body labelled JSON: failures with evidence, exit 1', async (body) => {
    const server = await serve(truncatedJson.start({ body }));
    const run = await runAgainst(server.baseUrl, ['--timeout', '500']);
    expect(run.code, run.stderr).toBe(1);
    expect(stderrBesidesProgress(run)).toEqual([]);
    const list = requirement(run, 'LIST-001');
    expect(list.status).toBe('fail');
    expect(list.evidence[0]?.message).toMatch(/not JSON/);
    expect(run.report?.halted).toBeUndefined();
  });

  it('a 300 MB body: read up to the cap only, memory stays bounded, unjudged bodies are not passes', async () => {
    // Peak memory stays below one body, and far below what keeping every response's capped body
    // (1 MiB each, about 130 of them here) would take: the run keeps a body only while it is judged,
    // and its record only the first 2,000 characters (src/http/kept-body.ts). Measured about 155 MiB
    // (an embedded run of the reference server peaks near 147 MiB); keeping whole bodies, 266 MiB.
    const BODY = 300 * MB;
    const server = await serve(hugeBody.start({ bytes: BODY }));
    const rssFile = join(await tempDir('rss'), 'rss');
    const run = await runAgainst(server.baseUrl, ['--timeout', '5000'], [RESOURCE_USAGE, rssFile]);
    const peakKb = (await readResourceUsage(rssFile)).maxRssKiB;
    expect(peakKb).toBeGreaterThan(10 * 1024); // a reading, not an empty file
    expect(peakKb * 1024).toBeLessThan(220 * MB);
    expect(run.code, run.stderr).toBe(1); // it also answers 200 where 401, 404, 400 are due
    const list = requirement(run, 'LIST-001');
    expect(list.status).toBe('inconclusive');
    expect(list.reason).toMatch(/exceeded the \d+-character cap/);
    // The client hung up after its cap: nowhere near 300 MB per request left the server. (The run
    // is CPU-bound, about 130 capped bodies read, hashed and dropped: how long it takes is the
    // machine's, `npm run bench`'s to measure.)
    expect(server.sent / server.requests).toBeLessThan(16 * MB);
  });

  it('redirects: never followed, the key never reaches the other origin, reported as failures', async () => {
    const elsewhere = await serve(redirect.startCounter());
    const server = await serve(redirect.start({ to: new URL(elsewhere.baseUrl).origin }));
    const run = await runAgainst(server.baseUrl, ['--timeout', '500']);
    expect(elsewhere.requests).toBe(0);
    expect(run.code, run.stderr).toBe(1);
    const list = requirement(run, 'LIST-001');
    expect(list.status).toBe('fail');
    const status = list.evidence.find((e) => e.kind === 'violation')?.exchange?.response?.status ?? 0;
    expect(status >= 300 && status < 400, `evidence status ${status}`).toBe(true);
    expect(run.files.get('report.json')).toContain('<redacted>'); // the Location carried the key
  });

  it('a server that echoes Authorization in bodies, header values and a header name: nothing leaks', async () => {
    const server = await serve(echoAuth.start());
    const run = await runAgainst(server.baseUrl, ['--timeout', '500']);
    expect(run.code, run.stderr).toBe(1);
    // Every near miss was sent and echoed back (and found nowhere by runAgainst): 3 of them, so 12 forms each.
    expect(server.authorizations.filter((a) => nearMissesOf(KEY).some((miss) => a === `Bearer ${nearMissOf(KEY, miss)}`))).toHaveLength(3);
    expect(requirement(run, 'AUTH-002').evidence.some((e) => e.exchange?.request.auth === 'near-miss')).toBe(true);
    expect(server.requests).toBeGreaterThan(20);
    expect(run.files.get('report.json')).toContain('<redacted>');
  });

  it('429 on everything: one retry after Retry-After, then stop; the refused retry fails RATE-006, exit 1', async () => {
    const server = await serve(always429.start({ retryAfter: 1 }));
    const run = await runAgainst(server.baseUrl, ['--timeout', '500', '--max-wait', '5']);
    // Retry-After said 1 s and the retry after it was refused: a must failed, so exit 1, not 2.
    expect(run.code, run.stderr).toBe(1);
    expect(requirement(run, 'RATE-006').status).toBe('fail');
    expect(run.report?.halted?.reason).toBe('throttled');
    expect(requirement(run, 'LIST-001').status).toBe('inconclusive');
    expect(run.report?.complete).toBe(false);
    expect(server.requests).toBeLessThanOrEqual(3);
  });

  it('429 with a Retry-After longer than --max-wait: stop at once, exit 2', async () => {
    const server = await serve(always429.start({ retryAfter: 3600 }));
    const run = await runAgainst(server.baseUrl, ['--timeout', '500', '--max-wait', '2']);
    expectHalted(run, 'wait-too-long', /^petstore-conformance: target asked for a longer wait than --max-wait: /);
    expect(server.requests).toBe(1);
  });

  it('a much slower target: the run completes and passes', async () => {
    const server = await serve(slow.start({ delayMs: 150, keys: { [KEY]: 'free' } }));
    const run = await runAgainst(server.baseUrl, ['--timeout', '3000', '--only', 'LIST,GET']);
    expect(run.code, run.stderr).toBe(0);
    expect(stderrBesidesProgress(run)).toEqual([]);
    for (const id of ['LIST-001', 'LIST-004', 'GET-002', 'GET-003']) expect(requirement(run, id).status).toBe('pass');
  });

  it('--deadline ends a slow run on time: nothing sent after it, the rest inconclusive, exit 2', async () => {
    const server = await serve(slow.start({ delayMs: 400, keys: { [KEY]: 'free' } }));
    const run = await runAgainst(server.baseUrl, ['--timeout', '2000', '--deadline', '3']);
    expectHalted(run, 'deadline', /^petstore-conformance: run deadline passed: the run's deadline \(.+\)/);
    // On time by what was sent: every request the server received is in the run's log, and each
    // was sent before the deadline the halt names, by the run's own clock (whatever the machine's
    // speed made of the three seconds, none or many requests).
    const deadline = Date.parse(/the run's deadline \(([^)]+)\)/.exec(run.report?.halted?.message ?? '')?.[1] ?? '');
    expect(deadline).toBeGreaterThan(0);
    const sent = run.report?.exchanges ?? [];
    expect(sent).toHaveLength(server.requests);
    expect(sent.filter((e) => e.sentAt >= deadline).map((e) => `#${e.seq} ${e.purpose}`)).toEqual([]);
    // The requirements it left undecided say why, the burst's included, even when the deadline came before any response.
    expect(requirement(run, 'RATE-005').reason).toMatch(/deadline/);
  });
});

describe.concurrent('unreachable targets: one line, exit 2, no request', { timeout: RUN_TIMEOUT_MS }, () => {
  it('connection refused', async () => {
    const run = await runAgainst(`http://127.0.0.1:${await closedPort()}/v1`);
    expect(run.code).toBe(2);
    expectOneStderrLine(run, /^petstore-conformance: target unreachable: connection refused/);
    // A CI job's artifact upload still finds a report: halted, nothing judged, no request sent.
    expect(run.report?.halted?.reason).toBe('unreachable');
    expect(run.report?.requests).toBe(0);
    expect(requirement(run, 'LIST-001').status).toBe('inconclusive');
  });

  it('a host name that does not resolve', async () => {
    const run = await runAgainst('http://pc-no-such-host.invalid/v1');
    expect(run.code).toBe(2);
    expectOneStderrLine(run, /^petstore-conformance: target unreachable: cannot resolve host/);
  });
});

describe.concurrent('TLS: verified or refused, never an insecure fallback; --ca for a private CA', { timeout: RUN_TIMEOUT_MS }, () => {
  let good: tls.Certificate;
  let wrongName: tls.Certificate;
  beforeAll(async () => {
    const dir = await tempDir('tls');
    good = await tls.selfSignedCertificate(dir, { name: 'good', altNames: { dns: ['localhost'], ip: ['127.0.0.1'] } });
    wrongName = await tls.selfSignedCertificate(dir, { name: 'wrong', altNames: { dns: ['other.invalid'] } });
  });

  async function httpsReference(certificate: tls.Certificate): Promise<{ proxy: HostileServer; requests: () => number }> {
    // The TLS front pipes each connection to one of the reference's: idle connections are left for
    // the client to close (its pool keeps them for the hint less 2 s), so the run never races a
    // server-side keep-alive close that a busy machine's late timers can lose.
    const reference = await serve(startReferenceServer({ ...SHORT_WINDOWS, keepAliveSeconds: 65, keys: { [KEY]: 'free' } }));
    const proxy = await serve(tls.start({ target: reference.baseUrl, certificate }));
    return { proxy, requests: () => reference.requests };
  }

  it('a self-signed certificate without --ca: exit 2, one line, nothing sent, even with NODE_TLS_REJECT_UNAUTHORIZED=0', async () => {
    const { proxy, requests } = await httpsReference(good);
    const dir = await tempDir('hostile');
    const insecureEnv = await limited(() =>
      runCli(['--base-url', proxy.baseUrl, '--report-dir', dir], { PETSTORE_API_KEY: KEY, NODE_TLS_REJECT_UNAUTHORIZED: '0' }),
    );
    expect(insecureEnv.code).toBe(2);
    expect(insecureEnv.stderr).toMatch(/TLS error with 127\.0\.0\.1:\d+: self-signed certificate; pass its CA with --ca <file> \(no insecure fallback is made\)/);
    const run = await runAgainst(proxy.baseUrl);
    expect(run.code).toBe(2);
    expectOneStderrLine(run, /^petstore-conformance: TLS error with 127\.0\.0\.1:\d+: self-signed certificate; pass its CA with --ca <file>/);
    expectNothingJudgedConsole(run);
    expect(requests()).toBe(0);
  });

  it('a certificate for another name, even with --ca: exit 2, one line', async () => {
    const { proxy, requests } = await httpsReference(wrongName);
    const run = await runAgainst(proxy.baseUrl, ['--ca', wrongName.certFile]);
    expect(run.code).toBe(2);
    // Reached by its address, the certificate must list it (IP:127.0.0.1): a DNS name never matches an address.
    expectOneStderrLine(run, /^petstore-conformance: TLS error with 127\.0\.0\.1:\d+: certificate does not match the IP address \(no insecure fallback is made\); the server needs a certificate whose subjectAltName lists this IP address$/);
    expectNothingJudgedConsole(run);
    expect(requests()).toBe(0);
  });

  it('--ca with the private CA: the full run passes over https', async () => {
    const { proxy, requests } = await httpsReference(good);
    const run = await runAgainst(proxy.baseUrl, ['--ca', good.certFile]);
    expect(run.code, run.stderr).toBe(0);
    expect(stderrBesidesProgress(run)).toEqual([]);
    expect(run.report?.target.baseUrl).toMatch(/^https:/);
    expect(run.report?.summary.fail).toBe(0);
    expect(requests()).toBeGreaterThan(50);
  });
});

describe.concurrent('data: writes are marked and listed, --read-only writes nothing', { timeout: RUN_TIMEOUT_MS }, () => {
  it('--read-only sends no POST; write-dependent requirements are not exercised, with the reason', async () => {
    const methods: string[] = [];
    const server = await serve(
      startReferenceServer({
        ...SHORT_WINDOWS,
        keys: { [KEY]: 'free' },
        behaviour: {
          delayMs: (ctx) => {
            methods.push(ctx.method);
            return 0;
          },
        },
      }),
    );
    const before = server.store.pets.length;
    const run = await runAgainst(server.baseUrl, ['--read-only']);
    expect(run.code, run.stderr).toBe(0);
    expect(methods.length).toBeGreaterThan(20);
    expect(methods.filter((m) => m !== 'GET')).toEqual([]);
    expect(server.store.pets.length).toBe(before);
    for (const id of ['CREATE-001', 'CREATE-003']) {
      expect(requirement(run, id).status).toBe('not-exercised');
      expect(requirement(run, id).reason).toMatch(/--read-only/);
    }
    expect(run.report?.createdPetIds).toEqual([]);
  });

  it('pets a run creates carry pc-<runId>- and report.json lists exactly their ids', async () => {
    const server = await serve(startReferenceServer({ ...SHORT_WINDOWS, keys: { [KEY]: 'free' } }));
    const seeded = server.store.pets.length;
    const run = await runAgainst(server.baseUrl);
    expect(run.code, run.stderr).toBe(0);
    const created = server.store.pets.slice(seeded);
    expect(created.length).toBeGreaterThan(0);
    const prefix = `pc-${run.report?.runId}-`;
    // The empty-name edge case is the one body that cannot carry a marker; its id is listed all the same.
    for (const pet of created) expect(pet.name === '' || pet.name.startsWith(prefix), pet.name).toBe(true);
    expect(created.filter((pet) => pet.name === '').length).toBeLessThanOrEqual(1);
    expect([...(run.report?.createdPetIds ?? [])].sort()).toEqual(created.map((p) => p.id.toString()).sort());
  });
});
