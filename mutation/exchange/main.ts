/**
 * `npm run mutate:exchanges`: the whole suite against every exchange mutant (issue 45), never part
 * of `npm test` or .ci/run.
 *
 *   npm run mutate:exchanges                          every mutant (time-dependent ones at 4 phases x 2 seeds)
 *   npm run mutate:exchanges -- --list                the mutants and their count per section, nothing run
 *   npm run mutate:exchanges -- --only '^remove@'     the mutants whose name matches
 *   npm run mutate:exchanges -- --incremental         reuse results whose operators and checks are unchanged
 *   npm run mutate:exchanges -- --identity            the identity operator on every conforming variant
 *   npm run mutate:exchanges -- --rejudge             the last results judged again with room.yaml as it is now, nothing run
 *
 * A mutant is killed only when every one of its runs fails a requirement of one of its target's
 * sections; one that does on some runs only is unstable; one that no run reached (the operator
 * never changed an exchange) is unreached. Survivors, unreached and unstable mutants are looked up
 * in room.yaml; the script exits 1 when one is left unexplained (or an identity run fails).
 * Results: reports/exchange-mutation.json and a table on stdout; a line on stderr per mutant.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { VARIANTS, phaseSeeds, windowPhasesOf, type Variant } from '../../fixtures/variants/index.js';
import { loadCatalog } from '../../src/catalog.js';
import { packageRoot } from '../../src/interface/package-root.js';
import { IDENTITY } from './layer.js';
import { sectionDigests, sha } from './digests.js';
import { countBySection, exchangeMutants, type ExchangeMutant } from './mutants.js';
import { statusOf, type MutantStatus } from './judge.js';
import { explanationOf, loadRoom, type RoomEntry } from './room.js';
import { runThroughLayer, type LayerRun } from './run.js';

const ROOT = packageRoot();
const OUT = join(ROOT, 'reports', 'exchange-mutation.json');
/** As the stability bench: 4 phases of the window, here 2 seeds, for what time can move. */
const PHASES = 4;
const SEEDS = phaseSeeds(2);
/** Runs at once: the machine's two cores are shared (EXCHANGE_MUTATION_PARALLEL, at most 2). */
const PARALLEL = Math.min(2, Math.max(1, Number(process.env['EXCHANGE_MUTATION_PARALLEL'] ?? 1)));
/** Every this-many-th mutant run once also runs at the 4 phases: their verdict must not move. */
const PHASE_SAMPLE_EVERY = 25;

export interface MutantResult {
  name: string;
  sections: string[];
  timeDependent: boolean;
  status: MutantStatus;
  explainedBy?: { kind: RoomEntry['kind']; interpretation: string; why: string };
  digest: string;
  runs: { offsetMs: number | undefined; seed: number; failing: string[]; applied: number; error?: string }[];
}

// ---------------------------------------------------------------- incremental digests

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The operators and the layer (one digest: they share helpers), and what decides the verdicts outside the catalog. */
const OPERATOR_DIGEST = sha(['layer.ts', 'operators.ts', 'targets.ts', 'mutants.ts', 'run.ts'].map((f) => readFileSync(join(ROOT, 'mutation', 'exchange', f), 'utf8')));
const DIST = join(ROOT, 'dist');
const built = new Map(['src', 'suites', 'reporters'].flatMap((d) => filesUnder(join(DIST, d))).map((f) => [relative(DIST, f), readFileSync(f, 'utf8')]));
const CATALOG = loadCatalog().requirements;
const CHECKS = sectionDigests(built, CATALOG);
const catalogBySection = new Map<string, string[]>();
for (const r of CATALOG) catalogBySection.set(r.section, [...(catalogBySection.get(r.section) ?? []), JSON.stringify(r)]);

/**
 * A mutant's result is reused only while its name, the operators, the built code its sections'
 * verdicts depend on (digests.ts; the whole tree for a time-dependent one, and for the identity,
 * which every check judges) and its sections'
 * catalog entries are unchanged.
 */
const digestOf = (mutant: ExchangeMutant): string =>
  sha([mutant.name, mutant.server ?? '', OPERATOR_DIGEST, ...(mutant.timeDependent || mutant.sections.length === 0 ? [CHECKS.whole] : mutant.sections.map((s) => CHECKS.of(s))), ...mutant.sections.flatMap((s) => catalogBySection.get(s) ?? [])]);

// ---------------------------------------------------------------- runs

async function runAll<T>(jobs: (() => Promise<T>)[], done: (i: number, result: T) => void): Promise<T[]> {
  const results = new Array<T>(jobs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < jobs.length; i = next++) {
      const job = jobs[i];
      if (job === undefined) continue;
      results[i] = await job();
      done(i, results[i] as T);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return results;
}

/** The conforming variant a mutant runs in front of (ExchangeMutant.server); the reference when none. */
function serverOf(mutant: ExchangeMutant): Variant | undefined {
  if (mutant.server === undefined) return undefined;
  const variant = VARIANTS.find((v) => v.name === mutant.server && v.kind === 'conforming');
  if (variant === undefined) throw new Error(`${mutant.name}: no conforming variant named ${mutant.server}`);
  return variant;
}

function placements(mutant: ExchangeMutant, index: number): { offsetMs: number; seed: number }[] {
  const phases = windowPhasesOf(serverOf(mutant), PHASES);
  const seed = SEEDS[0] ?? 1;
  if (mutant.timeDependent) return phases.flatMap((offsetMs) => SEEDS.map((s) => ({ offsetMs, seed: s })));
  if (index % PHASE_SAMPLE_EVERY === 0) return phases.map((offsetMs) => ({ offsetMs, seed }));
  return [{ offsetMs: phases[0] ?? 0, seed }];
}

async function identityOnConformingVariants(): Promise<number> {
  const conforming = VARIANTS.filter((v) => v.kind === 'conforming');
  let falseFailures = 0;
  await runAll(
    conforming.map((variant) => () => runThroughLayer(variant, IDENTITY, { seed: SEEDS[0] ?? 1 })),
    (i, run) => {
      const name = conforming[i]?.name ?? '?';
      const ok = run.error === undefined && run.failing.length === 0 && run.verdict === 'conforms';
      if (!ok) falseFailures += 1;
      process.stdout.write(`${ok ? '  ' : '! '}identity on ${name}: ${run.verdict}${run.failing.length > 0 ? ` failing ${run.failing.map((f) => f.id).join(' ')}` : ''}${run.error === undefined ? '' : ` (${run.error})`}, ${run.applied} exchanges changed of ${run.exchanges}\n`);
    },
  );
  process.stdout.write(`identity: ${conforming.length} conforming variants, ${falseFailures} not conforming through the layer\n`);
  return falseFailures === 0 ? 0 : 1;
}

function argValue(flag: string): string | undefined {
  const at = process.argv.indexOf(flag);
  return at < 0 ? undefined : process.argv[at + 1];
}

function previousResults(): Map<string, MutantResult> {
  if (!existsSync(OUT)) return new Map();
  const previous = JSON.parse(readFileSync(OUT, 'utf8')) as { mutants?: MutantResult[] };
  return new Map((previous.mutants ?? []).map((m) => [m.name, m]));
}

function summaryOf(results: readonly MutantResult[]): Record<string, number> {
  const count = (p: (r: MutantResult) => boolean): number => results.filter(p).length;
  return {
    mutants: results.length,
    killed: count((r) => r.status === 'killed'),
    unstable: count((r) => r.status === 'unstable'),
    equivalent: count((r) => r.status !== 'killed' && r.explainedBy?.kind === 'equivalent'),
    room: count((r) => r.status !== 'killed' && r.explainedBy?.kind === 'room'),
    unexplained: count((r) => r.status !== 'killed' && r.explainedBy === undefined),
  };
}

async function main(): Promise<number> {
  if (process.argv.includes('--identity')) return identityOnConformingVariants();
  const all = exchangeMutants();
  const only = new RegExp(argValue('--only') ?? '');
  // The mutants run once first, so a run cut short has judged every class.
  const chosen = [...all.filter((m) => only.test(m.name) && !m.timeDependent), ...all.filter((m) => only.test(m.name) && m.timeDependent)];
  const targets = new Set(all.map((m) => m.target));
  const operators = new Set(all.map((m) => m.operator));
  process.stdout.write(`${operators.size} operators, ${targets.size} targets, ${all.length} mutants (${all.filter((m) => m.timeDependent).length} time-dependent)\n`);
  process.stdout.write(`per section: ${[...countBySection(all)].map(([s, n]) => `${s}: ${n}`).join(', ')}\n`);
  if (process.argv.includes('--list')) {
    for (const m of all) process.stdout.write(`${m.name}  [${m.sections.join(', ')}]${m.timeDependent ? ' timed' : ''}\n`);
    return 0;
  }
  const room = loadRoom();
  if (process.argv.includes('--rejudge')) {
    // Judged again from the runs' failing ids, with the sections the mutants have now.
    const sectionOf = new Map(loadCatalog().requirements.map((r) => [r.id, r.section]));
    const current = new Map(all.map((m) => [m.name, m]));
    const results = [...previousResults().values()].map((r) => {
      const sections = current.get(r.name)?.sections ?? r.sections;
      const runs = r.runs.map((run) => ({ ...run, failing: run.failing.map((id) => ({ section: sectionOf.get(id) ?? '' })) }));
      return rejudged({ ...r, sections, status: statusOf({ sections }, runs) }, room);
    });
    const measured = existsSync(OUT) ? (JSON.parse(readFileSync(OUT, 'utf8')) as Partial<Figures>).wallSeconds : undefined;
    return report(results, { operators: operators.size, targets: targets.size, wallSeconds: measured ?? 0 }, false);
  }
  const reuse = process.argv.includes('--incremental') ? previousResults() : new Map<string, MutantResult>();
  const results: MutantResult[] = [];
  const started = performance.now();
  const figures = (): Figures => ({ operators: operators.size, targets: targets.size, wallSeconds: Math.round((performance.now() - started) / 1000) });
  const write = (): void => writeResults(results, figures());
  const jobs = chosen.map((mutant) => async (): Promise<MutantResult> => {
    const digest = digestOf(mutant);
    const kept = reuse.get(mutant.name);
    if (kept !== undefined && kept.digest === digest) return rejudged(kept, room);
    const index = all.indexOf(mutant);
    const runs: LayerRun[] = [];
    for (const placement of placements(mutant, index)) runs.push(await runThroughLayer(serverOf(mutant), mutant.make(), placement));
    const status = statusOf(mutant, runs);
    return rejudged(
      {
        name: mutant.name,
        sections: mutant.sections,
        timeDependent: mutant.timeDependent,
        status,
        digest,
        runs: runs.map((r) => ({ offsetMs: r.offsetMs, seed: r.seed, failing: r.failing.map((f) => f.id), applied: r.applied, ...(r.error === undefined ? {} : { error: r.error }) })),
      },
      room,
    );
  });
  await runAll(jobs, (i, result) => {
    results.push(result);
    write();
    const runs = result.runs.map((r) => (r.failing.length === 0 ? '-' : r.failing.join('+'))).join(' ');
    process.stderr.write(`[${results.length}/${jobs.length}] ${result.status}${result.explainedBy === undefined ? '' : ` (${result.explainedBy.kind})`} ${chosen[i]?.name ?? ''}: ${runs}\n`);
  });
  return report(results, figures(), true);
}

interface Figures {
  operators: number;
  targets: number;
  wallSeconds: number;
}

function writeResults(results: readonly MutantResult[], figures: Figures): void {
  mkdirSync(join(ROOT, 'reports'), { recursive: true });
  writeFileSync(OUT, `${JSON.stringify({ ...figures, summary: summaryOf(results), mutants: results }, null, 1)}\n`);
}

/** The result with the room entry that explains it now (none for a kill). */
function rejudged(result: MutantResult, room: readonly RoomEntry[]): MutantResult {
  const { explainedBy: _old, ...rest } = result;
  const entry = result.status === 'killed' ? undefined : explanationOf(result.name, room);
  return { ...rest, ...(entry === undefined ? {} : { explainedBy: { kind: entry.kind, interpretation: entry.interpretation, why: entry.why } }) };
}

/** The table on stdout (and the results file); 1 when a mutant that was not killed is left unexplained. */
function report(results: readonly MutantResult[], figures: Figures, write: boolean): number {
  if (write || results.length > 0) writeResults(results, figures);
  const summary = summaryOf(results);
  process.stdout.write(`\n${'status'.padEnd(18)}mutants\n`);
  for (const status of ['killed', 'unstable', 'failed-elsewhere', 'survived', 'unreached'] as const) process.stdout.write(`${status.padEnd(18)}${results.filter((r) => r.status === status).length}\n`);
  process.stdout.write(`\n${JSON.stringify(summary)}\n`);
  const notKilled = results.filter((r) => r.status !== 'killed');
  const sectionOf = new Map(loadCatalog().requirements.map((q) => [q.id, q.section]));
  for (const r of notKilled) {
    // Where the runs differ: how many the operator reached (changed an exchange in), how many failed on the mutant's sections.
    const reached = r.runs.filter((run) => run.applied > 0).length;
    const kills = r.runs.filter((run) => run.failing.some((id) => r.sections.includes(sectionOf.get(id) ?? ''))).length;
    const runs = r.runs.length > 1 ? `, reached in ${reached} of ${r.runs.length} runs, killed in ${kills}` : '';
    process.stdout.write(`${r.explainedBy === undefined ? 'UNEXPLAINED' : r.explainedBy.kind.padEnd(11)} ${r.status.padEnd(16)} ${r.name}${r.explainedBy === undefined ? '' : ` (${r.explainedBy.interpretation})`}${runs}\n`);
  }
  process.stdout.write(`results: ${OUT}\n`);
  return summary['unexplained'] === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(2);
  },
);
