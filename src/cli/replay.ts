/**
 * `petstore-conformance replay <report.json>`: the implementer's loop. For each failing
 * requirement of a saved report it (1) re-runs the requirement's test (and what it needs) with
 * the report's seed and, for property tests, the exact shrunk counterexample (for a failing
 * model-based sequence, that sequence, command by command), and then (2)
 * re-sends the very exchanges that showed the failure and judges the new responses with the same
 * checks (src/replay/). It says fixed only when both agree, still failing when either shows the
 * violation again, could not tell otherwise; the details go to the terminal and replay.json.
 *
 * The re-run also runs the tests that sent the failing exchanges (a cross-cutting requirement's
 * own test sends nothing), and goes first: it rebuilds the state the re-sent requests may need
 * (pets created with the same seed), as the original run had when it sent them.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { UsageError, type ReplayOptions } from './args.js';
import { loadReport } from '../report/load.js';
import { writeReports } from '../report/write.js';
import { exchangeEvidence } from '../report/evidence.js';
import type { Report } from '../report/types.js';
import { createClient, reachOptions } from '../http/client.js';
import { resolveOptions } from '../api/options.js';
import { certificateOf } from '../api/client-identity.js';
import { idKey, petsOf } from '../checks/pet-shape.js';
import { rerunSelection, resendFailures } from '../replay/resend.js';
import { replayExitCode, replayVerdict } from '../replay/verdict.js';
import { parsePlan, type Plan } from '../plans.js';
import { startReferenceServer } from '../../fixtures/reference-server/index.js';
import { runConformance } from '../api/run.js';
import { libraryOptions } from './library-options.js';
import { renderSummary, styleFor } from './terminal.js';
import { sha256Hex } from '../report/digest.js';
import { RENDERERS } from '../report/renderers.js';
import { asReplayReport, replayOfRecord } from '../replay/replay-of.js';

/** As a run's: the client's response body cap. */
const MAX_BODY_BYTES = 1024 * 1024;

interface ReplayTarget {
  baseUrl: string;
  embedded: boolean;
  apiKey: string;
  plan?: Plan;
  close(): Promise<void>;
}

/**
 * The embedded server is started here rather than by the re-run, so that the re-run and the
 * re-sent exchanges reach the same server, with the same store.
 */
async function resolveTarget(command: ReplayOptions, saved: Report): Promise<ReplayTarget> {
  const baseUrl = command.baseUrl ?? (saved.target.embedded ? undefined : saved.target.baseUrl);
  const plan = command.plan ?? (saved.target.plan === undefined ? undefined : parsePlan(saved.target.plan));
  if (baseUrl === undefined) {
    const server = await startReferenceServer({ windowSeconds: 1 });
    return { baseUrl: server.baseUrl, embedded: true, apiKey: server.keys.free, plan: plan ?? 'free', close: () => server.close() };
  }
  if (command.apiKey === undefined) throw new UsageError('an API key is required for a remote target: set PETSTORE_API_KEY or pass --api-key');
  return { baseUrl, embedded: false, apiKey: command.apiKey, ...(plan === undefined ? {} : { plan }), close: async () => undefined };
}

async function readCa(file: string | undefined): Promise<string | undefined> {
  if (file === undefined) return undefined;
  return readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot read --ca file "${file}": ${error.code ?? 'error'}`);
  });
}

/** The replay record's own file, beside the re-run's reports. */
const REPLAY_FILE = 'replay.json';

/**
 * Where the replay writes: --report-dir, else `replay-<first 12 hex of the input's SHA-256>`
 * beside the input, the same for every replay of the same bytes. Never where a file it writes
 * would replace the input.
 */
export function replayReportDir(command: Pick<ReplayOptions, 'reportFile' | 'reportDir' | 'reporters'>, inputDigest: string): string {
  const dir = resolve(command.reportDir ?? join(dirname(command.reportFile), `replay-${inputDigest.slice(0, 12)}`));
  const input = resolve(command.reportFile);
  const files = [RENDERERS.json.fileName, ...command.reporters.map((f) => RENDERERS[f].fileName), REPLAY_FILE].map((name) => join(dir, name));
  if (files.includes(input)) throw new UsageError(`--report-dir ${command.reportDir ?? dir} would overwrite the replayed report ${command.reportFile}: choose another directory`);
  return dir;
}

export async function replay(command: ReplayOptions): Promise<number> {
  const saved = await loadReport(command.reportFile);
  const inputDigest = sha256Hex(await readFile(command.reportFile));
  const reportDir = replayReportDir(command, inputDigest);
  const failing = saved.requirements.filter((r) => r.status === 'fail');
  if (failing.length === 0) {
    process.stdout.write(`nothing to replay: ${command.reportFile} has no failing requirement\n`);
    return 0;
  }
  const ca = await readCa(command.caFile);
  const target = await resolveTarget(command, saved);
  // A property's shrunk input by its seed and path; a failing model-based sequence command by command.
  const replayPaths = Object.fromEntries(
    failing.flatMap((r) => {
      if (r.property === undefined && r.sequence === undefined) return [];
      const property = r.property === undefined ? { seed: saved.seed, path: '' } : { seed: r.property.seed, path: r.property.path };
      return [[r.id, { ...property, ...(r.sequence === undefined ? {} : { sequence: r.sequence.commands }) }]];
    }),
  );
  const where = target.embedded ? 'the embedded reference server' : target.baseUrl;
  process.stdout.write(`replaying ${failing.length} failing requirement(s) of ${command.reportFile} against ${where} (seed ${saved.seed})\n`);
  let report: Report;
  let resent;
  try {
    const options = await libraryOptions(
      {
        ...command,
        reportDir,
        baseUrl: target.baseUrl,
        apiKey: target.apiKey,
        ...(target.plan === undefined ? {} : { plan: target.plan }),
        seed: saved.seed,
        only: rerunSelection(failing, new Set(saved.requirements.map((r) => r.id))),
      },
      // The embedded server is this process's: the environment's proxy could not reach it.
      { replay: replayPaths, ...(target.embedded ? { env: {} } : {}) },
    );
    report = await runConformance(options);
    // The re-sent exchanges take the re-run's route: its proxy, gateway headers and certificate.
    const reach = resolveOptions(options);
    // The re-run was handed the embedded server's URL like any other; its report says what it was.
    if (target.embedded) report = { ...report, target: { ...report.target, embedded: true } };
    const client = createClient({
      baseUrl: target.baseUrl,
      apiKey: target.apiKey,
      timeoutMs: command.timeoutMs,
      maxBodyBytes: MAX_BODY_BYTES,
      maxRequests: command.maxRequests,
      maxWaitMs: command.maxWaitMs,
      ...(ca === undefined ? {} : { ca }),
      ...reachOptions({ gatewayHeaders: reach.gatewayHeaders, proxy: reach.proxy, clientCertificate: reach.clientIdentity === undefined ? undefined : certificateOf(reach.clientIdentity) }),
    });
    try {
      resent = await resendFailures(failing, {
        client,
        readOnly: command.readOnly,
        reportBaseUrl: saved.target.baseUrl,
        apiKey: target.apiKey,
        ...(target.plan === undefined ? {} : { plan: target.plan }),
      });
    } finally {
      await client.close();
    }
  } finally {
    await target.close();
  }
  const usedUpWindow = report.timeline?.responses.some((r) => r.auth === 'key' && r.status === 429) ?? false;
  const results = failing.map((before) =>
    replayVerdict(before, resent.judgements.get(before.id), report.requirements.find((r) => r.id === before.id), resent.leftOut.get(before.id), usedUpWindow),
  );
  report = asReplayReport(
    report,
    replayOfRecord({ digest: inputDigest, path: command.reportFile, results, resent: resent.judgements, leftOut: resent.leftOut, exchangesResent: resent.exchanges.length }),
    results,
  );
  const paths = await writeReports(report, reportDir, command.reporters);
  // A re-sent createPet that succeeds adds a pet, as the run's did: say which, so it can be cleaned up.
  const createdPetIds = resent.exchanges
    .filter((ex) => ex.request.method === 'POST' && ex.response?.status === 201)
    .flatMap((ex) => petsOf(ex).map((pet) => idKey(pet['id']) ?? '(no integer id)'));
  const replayFile = join(reportDir, REPLAY_FILE);
  const record = { report: command.reportFile, results, createdPetIds, exchanges: resent.exchanges.map(exchangeEvidence) };
  await writeFile(replayFile, `${JSON.stringify(record, null, 2)}\n`, 'utf8');
  process.stdout.write(renderSummary(report, [...paths, replayFile], styleFor(process.stdout, process.env)));
  const created = createdPetIds.length === 0 ? '' : `; they created pet(s) ${createdPetIds.join(', ')}`;
  process.stdout.write(`replay (${resent.exchanges.length} exchange(s) re-sent${created}):\n`);
  for (const r of results) {
    process.stdout.write(`  ${r.id.padEnd(11)} ${r.verdict}\n`);
    for (const line of r.details) process.stdout.write(`      ${line}\n`);
  }
  return replayExitCode(results);
}
