/**
 * The implementer's loop: a run fails, `replay` re-sends the failing cases (the shrunk input of a
 * property failure exactly) and says fixed or still failing; `report` re-renders a saved report.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { referenceBehaviour, startReferenceServer, invalid, type RunningReferenceServer } from '../fixtures/reference-server/index.js';
import type { Report } from '../src/report/types.js';
import { SHORT_WINDOWS, VARIANTS, variantServerOptions, type Variant } from '../fixtures/variants/index.js';
import { MAX_PER_REQUIREMENT } from '../src/replay/resend.js';
import { runCli, type CliResult } from './support/cli.js';
import { tempDirs } from './support/temp-dirs.js';
import { replaySchemaErrors } from './support/replay-schema.js';
import { nearMissesOf, nearMissOf } from '../src/http/near-miss.js';
import { sha256Hex } from '../src/report/digest.js';
import { reportSchemaErrors } from './support/report-schema.js';

const KEY = 'pc-replay-key-5d1c9a';
/** The property failure needs random runs: a Free key's window has no room for them after the fixed cases, a Pro key's has. */
const PRO_KEY = 'pc-replay-key-pro-8e2f4b';
const keys = { [KEY]: 'free' as const, [PRO_KEY]: 'pro' as const };
const tempDir = tempDirs();

let broken: RunningReferenceServer;
let fixedServer: RunningReferenceServer;
let dir: string;
let first: CliResult;
let report: Report;
const postedNames: string[] = [];

beforeAll(async () => {
  // Two faults: a default page of 10 (LIST-002), and names with a non-ASCII character refused
  // (a CREATE-001 property failure with a shrunk counterexample).
  broken = await startReferenceServer({
    ...SHORT_WINDOWS,
    keys,
    behaviour: {
      limit: (raw, ctx) => (raw === null ? { ok: true, value: 10 } : referenceBehaviour.limit(raw, ctx)),
      validateNewPet: (body, ctx) => {
        const result = referenceBehaviour.validateNewPet(body, ctx);
        if (result.ok) postedNames.push(result.value.name);
        // eslint-disable-next-line no-control-regex
        return result.ok && /[^\u0000-\u007f]/.test(result.value.name) ? invalid('ASCII names only') : result;
      },
    },
  });
  fixedServer = await startReferenceServer({ ...SHORT_WINDOWS, keys });
  dir = await tempDir('replay');
  first = await runCli(['--base-url', broken.baseUrl, '--plan', 'pro', '--report-dir', dir, '--reporter', 'json,markdown', '--seed', '42'], {
    PETSTORE_API_KEY: PRO_KEY,
  });
  report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report;
});

afterAll(async () => {
  await broken.close();
  await fixedServer.close();
});

const failing = (r: Report): string[] => r.requirements.filter((x) => x.status === 'fail').map((x) => x.id).sort();

describe('replay', () => {
  it('the first run fails exactly the two broken requirements, with a shrunk input for the property', () => {
    expect(first.code).toBe(1);
    expect(failing(report)).toEqual(['CREATE-001', 'LIST-002']);
    const property = report.requirements.find((r) => r.id === 'CREATE-001')?.property;
    expect(property?.counterexample).toMatch(/name/);
    expect(property?.path).not.toBe('');
  });

  it('says "still failing" against the same broken server, re-sending only the shrunk input', async () => {
    postedNames.length = 0;
    const out = await tempDir('replay-out');
    const result = await runCli(['replay', join(dir, 'report.json'), '--base-url', broken.baseUrl, '--report-dir', out, '--reporter', 'json'], {
      PETSTORE_API_KEY: PRO_KEY,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/CREATE-001\s+still failing/);
    expect(result.stdout).toMatch(/LIST-002\s+still failing/);
    // One POST for CREATE-001 (the counterexample) plus none for the three status examples.
    expect(postedNames).toHaveLength(1);
    // The same shrunk name, but for the request's own marker (pc-<run id>-<n>-), which fills the
    // counterexample's <marker> slot.
    const withoutMarker = (name: string): string => name.replace(/^(pc-[a-z0-9]+-[0-9]+-|<marker>)/, '');
    const shrunk = /"name":"(<marker>[^"]*)"/.exec(report.requirements.find((r) => r.id === 'CREATE-001')?.property?.counterexample ?? '')?.[1];
    expect(shrunk).toBeDefined();
    expect(withoutMarker(postedNames[0] ?? '')).toBe(withoutMarker(shrunk ?? 'x'));
    const again = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
    expect(again.seed).toBe(42);
  });

  it('leaves its input untouched, writes beside it in replay-<digest prefix>, and says it is a replay of it', async () => {
    // As docs/reports.md shows it: no --report-dir, the input in a directory of its own.
    const home = await tempDir('replay-default');
    const input = join(home, 'report.json');
    await copyFile(join(dir, 'report.json'), input);
    const digest = sha256Hex(await readFile(input));
    const result = await runCli(['replay', input, '--base-url', broken.baseUrl, '--reporter', 'json,markdown,html'], { PETSTORE_API_KEY: PRO_KEY });
    expect(result.code, result.stderr).toBe(1);
    expect(sha256Hex(await readFile(input))).toBe(digest);
    const out = join(home, `replay-${digest.slice(0, 12)}`);
    const replayText = await readFile(join(out, 'report.json'), 'utf8');
    expect(reportSchemaErrors(JSON.parse(replayText))).toEqual([]);
    const replayed = JSON.parse(replayText) as Report;
    expect(replayed.replayOf?.digest).toBe(digest);
    expect(replayed.replayOf?.path).toBe(input);
    expect([...(replayed.replayOf?.requirements ?? [])].sort()).toEqual(['CREATE-001', 'LIST-002']);
    expect(replayed.replayOf?.findingsResent.map((f) => f.requirement).sort()).toEqual(['CREATE-001', 'LIST-002']);
    // LIST-002 (the default page) has no single-exchange judge: the replay says the re-run alone decides it.
    expect(replayed.replayOf?.cannotDecide.map((c) => c.requirement)).toContain('LIST-002');
    const notRun = replayed.requirements.filter((r) => r.status === 'not-exercised');
    expect(notRun.length).toBeGreaterThan(0);
    expect(notRun.every((r) => r.reason?.startsWith('not replayed') === true)).toBe(true);
    expect(replayText).not.toMatch(/deselected by --only/);
    expect(result.stdout).not.toMatch(/deselected by --only/);
    const banner = `Replay of report ${digest}`;
    expect(result.stdout).toContain(banner);
    expect(await readFile(join(out, 'summary.md'), 'utf8')).toContain(banner);
    expect(await readFile(join(out, 'report.html'), 'utf8')).toContain(banner);
    // The original against its replay is no run-to-run comparison.
    const diff = await runCli(['diff', input, join(out, 'report.json')]);
    expect(diff.code).toBe(2);
    expect(diff.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('refuses a --report-dir where it would overwrite its input, in one line with exit 2, before sending anything', async () => {
    const home = await tempDir('replay-refuse');
    const input = join(home, 'report.json');
    await copyFile(join(dir, 'report.json'), input);
    const digest = sha256Hex(await readFile(input));
    const result = await runCli(['replay', input, '--base-url', broken.baseUrl, '--report-dir', home], { PETSTORE_API_KEY: PRO_KEY });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/would overwrite the replayed report/);
    expect(result.stdout).not.toMatch(/replaying/);
    expect(sha256Hex(await readFile(input))).toBe(digest);
  });

  it('says "fixed" against a correct server, with exit code 0', async () => {
    const out = await tempDir('replay-fixed');
    const result = await runCli(['replay', join(dir, 'report.json'), '--base-url', fixedServer.baseUrl, '--report-dir', out, '--reporter', 'json'], {
      PETSTORE_API_KEY: PRO_KEY,
    });
    expect(result.stdout).toMatch(/CREATE-001\s+fixed/);
    expect(result.stdout).toMatch(/LIST-002\s+fixed/);
    expect(result.code).toBe(0);
  });
});

describe('report', () => {
  it('re-renders a saved report.json exactly as the run rendered it', async () => {
    const out = await tempDir('render');
    const result = await runCli(['report', join(dir, 'report.json'), '--reporter', 'markdown', '--report-dir', out]);
    expect(result.code).toBe(0);
    expect(await readFile(join(out, 'summary.md'), 'utf8')).toBe(await readFile(join(dir, 'summary.md'), 'utf8'));
  });

  it('refuses a file that is not a report, in one line with exit code 2', async () => {
    const result = await runCli(['report', join(dir, 'nope.json')]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});

/**
 * Failures that hang on one specific request (fixtures/variants/replay.ts): replay must re-send
 * that request, since re-running the requirement's test alone may never send it again.
 */
describe('replay re-sends the exchanges behind each failure', () => {
  const byName = (name: string): Variant => {
    const found = VARIANTS.find((v) => v.name === name);
    if (found === undefined) throw new Error(`no variant ${name}`);
    return found;
  };
  const servers: RunningReferenceServer[] = [];

  async function serve(variant: Variant | undefined): Promise<RunningReferenceServer> {
    const server = await startReferenceServer(variantServerOptions(variant, { keys }));
    servers.push(server);
    return server;
  }

  /** A full run against the mutant; the path of its report.json. */
  async function failingRun(server: RunningReferenceServer): Promise<{ file: string; report: Report }> {
    const out = await tempDir('replay-mutant');
    const result = await runCli(['--base-url', server.baseUrl, '--plan', 'free', '--report-dir', out, '--reporter', 'json', '--seed', '7'], { PETSTORE_API_KEY: KEY });
    expect(result.code, result.stderr).toBe(1);
    const file = join(out, 'report.json');
    return { file, report: JSON.parse(await readFile(file, 'utf8')) as Report };
  }

  async function replayAgainst(file: string, server: RunningReferenceServer): Promise<{ result: CliResult; rerun: Report; replayJson: string }> {
    const out = await tempDir('replay-again');
    const result = await runCli(['replay', file, '--base-url', server.baseUrl, '--report-dir', out, '--reporter', 'json'], { PETSTORE_API_KEY: KEY });
    const replayJson = await readFile(join(out, 'replay.json'), 'utf8');
    expect(replaySchemaErrors(replayJson)).toEqual([]);
    return { result, rerun: JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report, replayJson };
  }

  const statusIn = (r: Report, id: string): string | undefined => r.requirements.find((x) => x.id === id)?.status;

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  /** The mutant fails exactly `id`; replay says still failing against it (exit 1), fixed against the reference (exit 0). */
  async function stillFailingThenFixed(name: string, id: string, still: RegExp, fixed: RegExp): Promise<{ file: string; first: Report; again: Awaited<ReturnType<typeof replayAgainst>> }> {
    const mutant = await serve(byName(name));
    const { file, report: first } = await failingRun(mutant);
    expect(failing(first)).toEqual([id]);
    const again = await replayAgainst(file, mutant);
    expect(again.result.stdout).toMatch(still);
    expect(again.result.code).toBe(1);
    const repaired = await replayAgainst(file, await serve(undefined));
    expect(repaired.result.stdout).toMatch(fixed);
    expect(repaired.result.code).toBe(0);
    return { file, first, again };
  }

  it('RATE-001 missing only on the 400 for malformed JSON: that POST is re-sent; still failing on the mutant, fixed on the reference', async () => {
    const { first, again } = await stillFailingThenFixed(
      'rate-headers-missing-on-malformed-json',
      'RATE-001',
      /RATE-001\s+still failing\n\s+POST \/pets \(re-send of #\d+ as #\d+\): .*X-RateLimit/,
      /RATE-001\s+fixed\n\s+POST \/pets \(re-send of #\d+ as #\d+\): 400, no violation of RATE-001/,
    );
    const cited = first.requirements.find((r) => r.id === 'RATE-001')?.evidence.find((e) => e.kind === 'violation')?.exchange;
    expect(cited?.request).toMatchObject({ method: 'POST', target: '/pets', auth: 'key' });
    expect(JSON.stringify(first)).not.toContain(KEY);
    // The re-run also runs the test that sent the malformed POST, so its checks see one again.
    expect(statusIn(again.rerun, 'CREATE-003')).toBe('pass');
    expect(statusIn(again.rerun, 'RATE-001')).toBe('fail');
    // The re-sent POST carried the key (auth mode 'key'); neither output shows it.
    const resent = (JSON.parse(again.replayJson) as { exchanges: Array<{ request: { method: string; target: string; body?: string; auth: string } }> }).exchanges;
    expect(resent.map((e) => [e.request.method, e.request.target, e.request.body, e.request.auth])).toEqual([['POST', '/pets', cited?.request.body, 'key']]);
    expect(again.replayJson + again.result.stdout).not.toContain(KEY);
  });

  it('a failure seen on many responses (MEDIA-001) re-sends at most 5 distinct ones and names the pets its re-sent POSTs created', async () => {
    const { again } = await stillFailingThenFixed('json-labelled-text-plain', 'MEDIA-001', /MEDIA-001\s+still failing/, /MEDIA-001\s+fixed/);
    const record = JSON.parse(again.replayJson) as { createdPetIds: string[]; exchanges: Array<{ request: { method: string }; response?: { status: number } }> };
    expect(record.exchanges.length).toBeLessThanOrEqual(MAX_PER_REQUIREMENT);
    const creations = record.exchanges.filter((e) => e.request.method === 'POST' && e.response?.status === 201).length;
    expect(creations).toBeGreaterThan(0);
    expect(record.createdPetIds).toHaveLength(creations);
    expect(again.result.stdout).toContain(`they created pet(s) ${record.createdPetIds.join(', ')}`);
  });

  it('a rise of Remaining (a limit counted per operation): re-run as a sequence that shows it, never two exchanges; fixed only where that sequence shows no rise', async () => {
    // Its windows at 20 s: a replay that meets a busy machine still sizes them well beyond what a dozen requests take.
    const mutant = await startReferenceServer(variantServerOptions(byName('limits-per-operation'), { keys, windowSeconds: 20 }));
    servers.push(mutant);
    const { file, report: first } = await failingRun(mutant);
    expect(failing(first)).toEqual(['RATE-002']);
    // The run may also show the fault as a Remaining that stood still (paired too): the rise is what the replay re-sends as a sequence.
    const paired = first.requirements.find((r) => r.id === 'RATE-002')?.evidence.filter((e) => e.kind === 'violation' && e.pairedWith !== undefined) ?? [];
    expect(paired.map((e) => e.shownOnlyBy)).toContain('a rise of X-RateLimit-Remaining between two responses of one window');
    const again = await replayAgainst(file, mutant);
    // Each of the two exchanges re-sent alone gets a fresh count of its own operation, and would conform; the sequence shows the rise.
    expect(again.result.stdout).toMatch(/RATE-002\s+still failing\n\s+re-sent #\d+ \(\S+ \S+\) x6, #\d+ \(\S+ \S+\) x6, #\d+: X-RateLimit-Remaining rose from/);
    expect(again.result.code).toBe(1);
    // The same server with one count per key: the sequence, in one fresh window, shows no rise.
    const repaired = await startReferenceServer(variantServerOptions(undefined, { keys, windowSeconds: 20 }));
    servers.push(repaired);
    const fixed = await replayAgainst(file, repaired);
    expect(fixed.result.stdout).toMatch(/RATE-002\s+fixed\n\s+re-sent #\d+ .* x6, #\d+ .* x6, #\d+, in one window: X-RateLimit-Remaining fell from 59 to 47, no rise/);
    expect(fixed.result.code).toBe(0);
    const sent = (JSON.parse(fixed.replayJson) as { exchanges: Array<{ request: { target: string } }> }).exchanges;
    expect(sent.length).toBeGreaterThanOrEqual(13);
  });

  it('a lost write (two overlapping creations given one id, PET-002): never re-sent alone; the re-run of the creations decides', async () => {
    const { again } = await stillFailingThenFixed(
      'overlapping-creates-share-id',
      'PET-002',
      /PET-002\s+still failing\n\s+re-run: \d+ responses: Received for a new pet an id that another creation/,
      /PET-002\s+fixed\n\s+re-run: pass.*\n\s+only two creations given one id showed the failure, never one response: none of its exchanges was re-sent alone/,
    );
    // The POSTs that received one id, each alone, would get ids of their own and conform: none is re-sent.
    expect((JSON.parse(again.replayJson) as { exchanges: unknown[] }).exchanges).toEqual([]);
    expect(statusIn(again.rerun, 'CREATE-001')).toBe('pass');
  });

  it('a 500 for one invalid body class only (CREATE-003): still failing on the mutant, fixed on the reference', async () => {
    await stillFailingThenFixed(
      'non-string-status-500',
      'CREATE-003',
      /CREATE-003\s+still failing\n\s+POST \/pets \(re-send of #\d+ as #\d+\): received 500 \/ expected 400/,
      /CREATE-003\s+fixed\n\s+POST \/pets \(re-send of #\d+ as #\d+\): 400, as expected/,
    );
  });

  it('a bare 404 on one path (ERR-001): still failing, fixed on the reference, could not tell where that path now answers 200', async () => {
    const { file, again } = await stillFailingThenFixed(
      'unknown-pet-404-without-body',
      'ERR-001',
      /ERR-001\s+still failing\n\s+GET \/pets\/\d+ \(re-send of #\d+ as #\d+\)/,
      /ERR-001\s+fixed/,
    );
    expect(statusIn(again.rerun, 'GET-002')).toBe('pass');

    // Every unknown id now answers 200 with some pet: the re-sent request no longer reaches a 404.
    const elsewhere = await replayAgainst(file, await serve(byName('unknown-id-first-pet')));
    expect(elsewhere.result.stdout).toMatch(/ERR-001\s+could not tell\n\s+GET \/pets\/\d+ \(re-send of #\d+ as #\d+\): answered 200 where the run saw 404/);
    expect(elsewhere.result.code).toBe(2);
  });

  it('a near miss of the key accepted (AUTH-002): re-sent rebuilt from the key; no output, report or replay file holds the key or a near miss', async () => {
    const { file, first, again } = await stillFailingThenFixed('keys-case-insensitive', 'AUTH-002', /AUTH-002\s+still failing/, /AUTH-002\s+fixed/);
    const cited = first.requirements.find((r) => r.id === 'AUTH-002')?.evidence.find((e) => e.kind === 'violation')?.exchange;
    expect(cited?.request).toMatchObject({ auth: 'near-miss', headers: { authorization: "Bearer <the key with its letters' case flipped>" } });
    expect(cited?.curl).toContain(`"Authorization: Bearer $(printf '%s' "$PETSTORE_API_KEY" | tr 'A-Za-z' 'a-zA-Z')"`);
    const resent = (JSON.parse(again.replayJson) as { exchanges: Array<{ request: { auth: string } }> }).exchanges;
    expect(resent.map((e) => e.request.auth)).toContain('near-miss');
    const secrets = [KEY, ...nearMissesOf(KEY).map((miss) => nearMissOf(KEY, miss))];
    expect(secrets).toHaveLength(4);
    const outputs = [await readFile(file, 'utf8'), again.replayJson, again.result.stdout, again.result.stderr, JSON.stringify(again.rerun)];
    for (const text of outputs) for (const secret of secrets) expect(text.includes(secret), secret).toBe(false);
  });
});

describe('schemas/replay.schema.json', () => {
  it('rejects a record with an unknown verdict, a malformed id or a missing field', () => {
    const record = { report: 'r.json', results: [{ id: 'RATE-001', level: 'must', verdict: 'fixed', details: [] }], createdPetIds: [], exchanges: [] };
    expect(replaySchemaErrors(JSON.stringify(record))).toEqual([]);
    expect(replaySchemaErrors(JSON.stringify({ ...record, results: [{ ...record.results[0], verdict: 'maybe' }] }))).not.toEqual([]);
    expect(replaySchemaErrors(JSON.stringify({ ...record, results: [{ ...record.results[0], id: 'rate-1' }] }))).not.toEqual([]);
    const { createdPetIds: _dropped, ...withoutIds } = record;
    expect(replaySchemaErrors(JSON.stringify(withoutIds))).not.toEqual([]);
  });
});
