/**
 * requirementTest(id, body): the only way a suite declares a test. The title and meta come from
 * the catalog (an unknown id throws at collection time), so a requirement is never named twice.
 *
 * Verdicts: a violation recorded for the requirement fails the test, whatever else happened. A
 * test that cannot tell calls t.inconclusive(reason) (or is stopped by the client: budget spent,
 * run halted, target not answering) and is reported inconclusive, never pass. t.notExercised()
 * (a choice: no --plan, --read-only, an opt-in not given) and deselection by --only are reported
 * as not exercised, which never blocks the word "conforms".
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { test } from 'vitest';
import type { TestContext } from 'vitest';
import fc from 'fast-check';
import { getRequirement } from '../catalog.js';
import { violation, observation, type Finding } from '../checks/finding.js';
import type { Exchange } from '../http/exchange.js';
import type { SendRequest } from '../http/client.js';
import type { HaltReason } from '../http/errors.js';
import { exchangeEvidence } from '../report/evidence.js';
import { bodyChars } from '../http/kept-body.js';
import { display } from './display.js';
import type { Evidence, KeyUse, Observation, RestsOn, SequenceFailure } from '../report/types.js';
import { keyUseLine } from '../report/key-use.js';
import { getSession, type Session, type SuiteSession } from '../session/session.js';
import { preflightOnce } from '../session/preflight.js';
import { deriveSeed } from './seed.js';
import { DESELECTED } from './reasons.js';
import { groupFindings, groupLine } from './group-findings.js';
import './meta.js';

/** Long enough for one full rate-limit window wait plus the requests around it. */
const TEST_TIMEOUT_MS = 5 * 60_000;
const MAX_EVIDENCE = 12;
const MAX_OBSERVATIONS = 12;
/** Exchanges cited for a requirement that passed, so an auditor sees what was exercised. */
const PASS_CITATIONS = 3;
/** Exchanges a violation's evidence names (Evidence.cites), its group's included: enough to mark on the timeline, bounded for report.json. */
const MAX_CITED = 50;
/** Extra requests shrinking may spend once a property has failed. */
const SHRINK_REQUESTS = 12;

class Stop extends Error {
  constructor(
    readonly verdict: 'inconclusive' | 'not-exercised',
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** Errors of the client that end a test without a verdict (budget, halt, transport), by code. */
export function clientStop(error: unknown): { code: string; message: string } | undefined {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string' && error.code.startsWith('PC_')) {
    return { code: error.code, message: error.message };
  }
  return undefined;
}

/** An input every run sends before the random ones, named by the class it stands for. */
/** Violations a probe names with a case of its own (a part of the example it was given), kept as named. */
const NAMED_CASE = new WeakSet<Finding>();

/**
 * A violation of the case `label` within an example: a combined example whose parts were each sent
 * alone (CREATE-001) names the part the server mishandled, not the combination.
 */
export function inCase(label: string, finding: Finding): Finding {
  const named = { ...finding, message: `${label}: ${finding.message}` };
  NAMED_CASE.add(named);
  return named;
}

export interface PropertyExample<T> {
  label: string;
  input: T;
  /** The class the example is an edge of, where a class has several ("status-number" of "status-number 0"). */
  className?: string;
}

export interface PropertyOptions<T> {
  /** Random runs (seeded, shrunk on failure), on top of the examples. */
  runs: number;
  /**
   * Inputs always tried first, one per equivalence class, whatever the seed and the budget. Every
   * example's findings are recorded, so every class the server mishandles is reported.
   */
  examples?: ReadonlyArray<PropertyExample<T>>;
  /** What the examples' classes are, for the summary line ("invalid classes"). */
  classes?: string;
  /** The class of a random input, so a shrunk counterexample is named like the examples. */
  classOf?: (input: T) => string;
  /**
   * The examples are independent (no one creates what another needs or reads another's answer):
   * send a few at a time while the key's window has room (SendScheduler.together). Their findings are
   * still reported in the examples' order. 'groups': in groups released at the same moment, for
   * examples whose overlap is itself under test (TogetherOptions.groups).
   */
  examplesTogether?: boolean | 'groups';
}

/**
 * What a property's cases amount to. A property that tried no case has shown nothing: its pass
 * would rest on no exchange at all, so it is inconclusive with that reason.
 */
/**
 * What a property's cases give the requirement: inconclusive when it tried none and the test
 * relied on no other exchange (a property planned with no case is one part of a test that judged
 * others, as LIST-003's random limits on a Free key beside its fixed listings).
 */
export function casesJudged(examples: number, completed: number, otherExchanges = 0): { detail: string; inconclusive?: string } {
  const detail = `${examples} fixed examples and ${completed - examples} random runs`;
  return completed === 0 && otherExchanges === 0 ? { detail, inconclusive: `judged on 0 cases (${detail}): nothing was tried` } : { detail };
}

export class RequirementRun {
  readonly id: string;
  readonly session: SuiteSession;
  /** The whole session: its ledger and scheduler are the harness's, not the suite's. */
  readonly #session: Session;
  readonly #mark: number;
  readonly #cited: Exchange[] = [];
  /** Code of the client error that stopped this test, if one did: the exit code depends on it. */
  stoppedBy: string | undefined;
  /** The first exchange the test relied on whose body was cut at the client's cap. */
  #capped: Exchange | undefined;
  /** The property case being tried, named on the exchanges it sends ("fixed case not-json"); per async context, as cases may run together. */
  readonly #case = new AsyncLocalStorage<string>();

  constructor(id: string, session: Session) {
    this.id = id;
    this.session = session;
    this.#session = session;
    this.#mark = session.ledger.mark();
    this.#firstExchange = session.client.exchanges.length;
  }

  readonly #firstExchange: number;

  /** Exchanges the run has made since this test began. */
  get exchangesSent(): number {
    return this.session.client.exchanges.length - this.#firstExchange;
  }

  /** What the verdict this test reaches rests on (report.json's `restsOn`). */
  restOn(restsOn: RestsOn): void {
    this.#meta.restsOn = restsOn;
  }

  /** Send through the shared client, tagged with this requirement (and the property case being tried). */
  async send(req: Omit<SendRequest, 'purpose'> & { purpose?: string }): Promise<Exchange> {
    await this.#session.scheduler.beforeSend();
    const label = this.#case.getStore();
    const ex = await this.session.client.send({ ...req, purpose: req.purpose ?? (label === undefined ? this.id : `${this.id} ${label}`) });
    if (this.#cited.length < PASS_CITATIONS) this.#cited.push(ex);
    this.#noteCapped(ex);
    return ex;
  }

  #noteCapped(ex: Exchange): void {
    if (ex.response?.truncated === true) this.#capped ??= ex;
  }

  /**
   * An exchange this test relied on whose body was cut at the body cap: the checks cannot judge
   * such a body, so a test that found nothing wrong has not shown a pass either.
   */
  get capped(): Exchange | undefined {
    return this.#capped;
  }

  record(findings: readonly Finding[]): void {
    this.#session.ledger.add(findings);
  }

  fail(message: string, ex?: Exchange): void {
    this.record([violation(this.id, message, ex?.seq)]);
  }

  observe(message: string, ex?: Exchange): void {
    this.record([observation(this.id, message, ex?.seq)]);
  }

  /**
   * Cite an exchange as evidence even when nothing was wrong with it. `reliedOn` false: shown for
   * the record only (cross-cutting tests), so a capped body there does not affect the verdict.
   */
  cite(ex: Exchange, reliedOn = true): void {
    // By seq: the run's record of an exchange (client.exchanges) is another object than the one send returned.
    if (!this.#cited.some((c) => c.seq === ex.seq)) this.#cited.unshift(ex);
    if (reliedOn) this.#noteCapped(ex);
  }

  inconclusive(reason: string): never {
    throw new Stop('inconclusive', reason);
  }

  /** Not exercised by the user's choice (no --plan, --read-only, an opt-in flag not given): say which choice. */
  notExercised(reason: string): never {
    throw new Stop('not-exercised', reason);
  }

  /** Findings about this requirement made since the test began. */
  findings(): Finding[] {
    return this.#session.ledger.since(this.#mark, this.id);
  }

  /** Every finding about this requirement the run has made, in any test or check (a cross-cutting requirement's verdict). */
  findingsOfRun(): Finding[] {
    return this.#session.ledger.all(this.id);
  }

  get cited(): readonly Exchange[] {
    return this.#cited;
  }

  /**
   * A property whose probe sends requests: first every fixed example, outside fast-check, each
   * judged and recorded; then seeded random runs, which only add cases. Of the random part only
   * the shrunk counterexample's violations are recorded (not every shrinking step's), and
   * shrinking stops after a few requests so a failure cannot eat the target's quota. When two or
   * more classes fail, a first line names them all with the status each got.
   */
  async property<T>(arbitrary: fc.Arbitrary<T>, probe: (input: T) => Promise<Finding[]>, options: PropertyOptions<T>): Promise<void> {
    const entry = this.session.config.replay?.[this.id];
    // An entry that only carries a model-based sequence (src/conformance/sequence.ts) replays no property.
    const replay = entry !== undefined && (entry.sequence === undefined || entry.path !== '') ? entry : undefined;
    const seed = replay?.seed ?? deriveSeed(this.session.config.seed, this.id);
    const failed: { label: string; className: string; violations: Finding[] }[] = [];
    let stopped: string | undefined;
    let completed = 0;
    /** Runs the probe; undefined when the client stopped the run. */
    const attempt = async (input: T, label: string): Promise<Finding[] | undefined> => {
      if (stopped !== undefined) return undefined;
      try {
        const findings = await this.#case.run(label, () => probe(input));
        const own = findings.filter((f) => f.kind === 'violation' && f.requirement === this.id);
        this.record(findings.filter((f) => !own.includes(f)));
        completed += 1;
        return own;
      } catch (error) {
        const client = clientStop(error);
        if (client === undefined) throw error;
        stopped = client.message;
        this.stoppedBy = client.code;
        return undefined;
      }
    };
    // A replay re-sends exactly the shrunk counterexample a saved report names, nothing else.
    if (replay === undefined) {
      const examples = options.examples ?? [];
      const outcomes: Array<Finding[] | undefined> = [];
      const tryExample = async (example: PropertyExample<T>, index: number): Promise<void> => {
        outcomes[index] = await attempt(example.input, `fixed case ${example.label}`);
      };
      const together = options.examplesTogether;
      if (together !== undefined && together !== false) await this.#session.scheduler.together(examples, tryExample, { groups: together === 'groups' });
      else for (const [index, example] of examples.entries()) await tryExample(example, index);
      examples.forEach((example, index) => {
        const own = outcomes[index];
        if (own !== undefined && own.length > 0) failed.push({ label: example.label, className: example.className ?? example.label, violations: own });
      });
    }
    let failing: Finding[] | undefined;
    let shrinkCalls = 0;
    let randomRuns = 0;
    const predicate = async (input: T): Promise<boolean> => {
      if (failing !== undefined && shrinkCalls++ >= SHRINK_REQUESTS) return true;
      const own = await attempt(input, failing === undefined ? `random run ${++randomRuns} (seed ${seed})` : 'shrinking');
      if (own === undefined || own.length === 0) return true;
      failing = own;
      return false;
    };
    const parameters: fc.Parameters<[T]> = replay === undefined ? { numRuns: options.runs, seed } : { seed, path: replay.path, endOnFailure: true };
    const details = replay !== undefined || options.runs > 0 ? await fc.check(fc.asyncProperty(arbitrary, predicate), parameters) : undefined;
    if (details?.failed === true && failing === undefined) throw details.errorInstance ?? new Error('property failed');
    if (details?.failed === true && failing !== undefined) {
      const input = details.counterexample?.[0];
      const className = input === undefined || options.classOf === undefined ? 'input' : options.classOf(input);
      failed.push({ label: `random ${className} (shrunk)`, className, violations: failing });
      this.#meta.property = {
        counterexample: display(details.counterexample?.[0]),
        seed,
        path: details.counterexamplePath ?? '',
        numRuns: details.numRuns,
      };
    }
    const classes = new Set(failed.map((f) => f.className)).size;
    const caseCount = classes === failed.length ? '' : ` (${failed.length} cases)`;
    if (failed.length > 1) this.fail(`${classes} ${options.classes ?? 'classes'} mishandled${caseCount}: ${failed.map((f) => `${f.label} (answered ${this.#answer(f.violations)})`).join(', ')}`);
    for (const f of failed) this.record(f.violations.map((v) => (NAMED_CASE.has(v) ? v : { ...v, message: `${f.label}: ${v.message}` })));
    if (failed.length > 0) return;
    if (stopped !== undefined) this.inconclusive(`stopped after ${completed} property runs: ${stopped}`);
    const cases = casesJudged(options.examples?.length ?? 0, completed, Math.max(this.exchangesSent, this.#cited.length));
    this.restOn({ exchanges: this.exchangesSent, cases: completed, detail: cases.detail });
    if (cases.inconclusive !== undefined) this.inconclusive(cases.inconclusive);
    this.observe(`${cases.detail} (seed ${seed})`);
  }

  /** The status (or transport error) of the exchange a violation cites. */
  #answer(violations: readonly Finding[]): string {
    const seq = violations.find((v) => v.exchange !== undefined)?.exchange;
    const ex = seq === undefined ? undefined : this.session.client.exchanges[seq - 1];
    return String(ex?.response?.status ?? ex?.error?.code ?? 'no response');
  }

  #metaRef: TestContext['task']['meta'] | undefined;
  get #meta(): TestContext['task']['meta'] {
    if (this.#metaRef === undefined) throw new Error('RequirementRun used outside its test');
    return this.#metaRef;
  }
  /** Lines of context shown first in the evidence, whatever the verdict (e.g. the key mode the verdict was judged under). */
  readonly notes: string[] = [];

  /** RATE-002's account of the key: report.json's keyUse, and a note in its evidence. */
  noteKeyUse(keyUse: KeyUse): void {
    this.#meta.keyUse = keyUse;
    this.notes.push(keyUseLine(keyUse));
  }

  /** The failing model-based sequence behind this requirement's failure: report.json's `sequence`, shown as numbered steps. */
  noteSequence(failure: SequenceFailure): void {
    this.#meta.sequence = failure;
  }

  attach(meta: TestContext['task']['meta']): void {
    this.#metaRef = meta;
  }
}

function evidenceOf(run: RequirementRun, findings: readonly Finding[]): { evidence: Evidence[]; observations: Observation[] } {
  const exchanges = run.session.client.exchanges;
  const exchangeAt = (seq: number | undefined): Exchange | undefined => (seq === undefined ? undefined : exchanges[seq - 1]);
  const violations = findings.filter((f) => f.kind === 'violation');
  const groups = groupFindings(violations);
  const notes = run.notes.map((message): Evidence => ({ kind: 'note', message }));
  const evidence: Evidence[] = groups.slice(0, MAX_EVIDENCE).flatMap((g): Evidence[] => {
    const ex = exchangeAt(g.first.exchange);
    const paired = exchangeAt(g.first.pairedWith);
    const cites = [...new Set([...(g.first.exchange === undefined ? [] : [g.first.exchange]), ...(g.first.pairedWith === undefined ? [] : [g.first.pairedWith]), ...g.exchanges])].slice(0, MAX_CITED);
    return [
      {
        kind: 'violation',
        message: groupLine(g),
        ...(ex === undefined ? {} : { exchange: exchangeEvidence(ex) }),
        ...(cites.length === 0 ? {} : { cites }),
        ...(paired === undefined ? {} : { pairedWith: paired.seq }),
        ...(g.first.shownOnlyBy === undefined ? {} : { shownOnlyBy: g.first.shownOnlyBy }),
        ...(g.first.expected === undefined ? {} : { expected: g.first.expected }),
      },
      ...(paired === undefined ? [] : [{ kind: 'exchange' as const, message: `compared with exchange #${paired.seq}: ${paired.request.method} ${paired.request.target}`, exchange: exchangeEvidence(paired) }]),
    ];
  });
  if (groups.length > MAX_EVIDENCE) {
    evidence.push({ kind: 'note', message: `and ${groups.length - MAX_EVIDENCE} more distinct violations` });
  }
  if (violations.length === 0) {
    for (const ex of run.cited) evidence.push({ kind: 'exchange', message: `${ex.request.method} ${ex.request.target}`, exchange: exchangeEvidence(ex) });
  }
  const seen = new Set<string>();
  const observations: Observation[] = [];
  for (const f of findings) {
    if (f.kind !== 'observation' || seen.has(f.message)) continue;
    seen.add(f.message);
    if (observations.length < MAX_OBSERVATIONS) {
      observations.push({ requirement: f.requirement, message: f.message, ...(f.exchange === undefined ? {} : { exchange: f.exchange }), ...(f.notable === true ? { notable: true } : {}) });
    }
  }
  return { evidence: [...notes, ...evidence], observations };
}

function summarise(violations: readonly Finding[]): string {
  const groups = groupFindings(violations);
  const lines = groups.slice(0, 5).map((g) => `- ${groupLine(g)}${g.first.exchange === undefined ? '' : ` (exchange #${g.first.exchange})`}`);
  if (groups.length > 5) lines.push(`- and ${groups.length - 5} more`);
  return lines.join('\n');
}

type Collect = (run: RequirementRun) => Finding[];

/**
 * vitest aborts a test's signal when the run is cancelled (the library's AbortSignal) but lets
 * its body go on in the background: stopping the client is what keeps it from sending more.
 * A timeout aborts the signal too, and must not end the whole run.
 */
function stopClientOnRunAbort(signal: AbortSignal, session: Session): void {
  signal.addEventListener(
    'abort',
    () => {
      const reason: unknown = signal.reason;
      if (reason instanceof Error && reason.name === 'TestRunAbortError') session.client.stop('aborted', 'the run was aborted by its caller');
    },
    { once: true },
  );
}

function declare(id: string, body: (t: RequirementRun) => Promise<void>, collect: Collect, timeoutMs = TEST_TIMEOUT_MS, titleSuffix?: string): void {
  const requirement = getRequirement(id);
  test(`${id} ${requirement.title}${titleSuffix === undefined ? '' : ` (${titleSuffix})`}`, { meta: { requirement: id }, timeout: timeoutMs }, async (ctx) => {
    const session = getSession();
    stopClientOnRunAbort(ctx.signal, session);
    await preflightOnce(session);
    const meta = ctx.task.meta;
    if (!session.isSelected(id)) {
      meta.verdict = 'not-exercised';
      meta.reason = DESELECTED;
      ctx.skip(meta.reason);
    }
    const run = new RequirementRun(id, session);
    run.attach(meta);
    let stop: Stop | undefined;
    try {
      await body(run);
    } catch (error) {
      if (error instanceof Stop) stop = error;
      else {
        const client = clientStop(error);
        if (client === undefined) throw error;
        run.stoppedBy = client.code;
        stop = new Stop('inconclusive', client.message);
      }
    }
    const findings = collect(run);
    const { evidence, observations } = evidenceOf(run, findings);
    meta.evidence = evidence;
    meta.observations = observations;
    const stats = session.client.stats;
    meta.requestsSoFar = stats.requests;
    meta.keyedRequestsSoFar = stats.keyedRequests;
    meta.waitedMsSoFar = Math.round(stats.waitedMs);
    meta.createdIds = [...session.store.createdIds];
    const halt = session.client.stopped;
    if (halt !== undefined) meta.halt = halt;
    // Undecided once the run has halted, a test could not send what it needed: the halt is its
    // reason first, whatever it then found missing (RATE-005 finds no rate-limit headers to plan
    // its burst by when a deadline passed before any response), so the reason does not depend on
    // how far a busy machine let the run get.
    if (stop?.verdict === 'inconclusive' && halt !== undefined && !stop.reason.includes(halt.message)) {
      stop = new Stop('inconclusive', `${halt.message}; left undecided: ${stop.reason}`);
    }
    if (stop?.verdict === 'inconclusive' && run.stoppedBy !== undefined) meta.stoppedBy = run.stoppedBy;
    const violations = findings.filter((f) => f.kind === 'violation');
    if (violations.length > 0) throw new Error(`${id} violated:\n${summarise(violations)}`);
    const capped = run.capped;
    if (stop === undefined && capped !== undefined) {
      const size = capped.response === undefined ? 0 : bodyChars(capped.response);
      stop = new Stop('inconclusive', `the response body of exchange #${capped.seq} (${capped.request.method} ${capped.request.target}) exceeded the ${size}-character cap, so it could not be judged`);
    }
    // A test may judge exchanges an earlier one sent for the session (the shared listing): those it cited count too.
    if (stop === undefined && meta.restsOn === undefined) run.restOn({ exchanges: Math.max(run.exchangesSent, run.cited.length) });
    if (stop !== undefined) {
      meta.verdict = stop.verdict;
      meta.reason = stop.reason;
      ctx.skip(stop.reason);
    }
  });
}

/**
 * A test of one requirement; its verdict comes from the findings it records while it runs.
 * `timeoutMs` is for the opt-in tests that pace through far more than one window; `titleSuffix`
 * tells a second test of a requirement from its first (its verdict combines with theirs, the worst
 * winning: src/report/build.ts).
 */
export function requirementTest(id: string, body: (t: RequirementRun) => Promise<void>, options: { timeoutMs?: number; titleSuffix?: string } = {}): void {
  declare(id, body, (run) => run.findings(), options.timeoutMs, options.titleSuffix);
}

/**
 * A test of a cross-cutting requirement: its checks ran on every exchange of the run, so its
 * verdict comes from everything the ledger holds for it. `relevant` says which exchanges the
 * requirement applies to; with none, it could not be exercised and is inconclusive.
 */
const STOPPED_FROM_OUTSIDE: ReadonlySet<HaltReason> = new Set(['aborted', 'interrupted']);

export function crossCuttingTest(id: string, relevant: (ex: Exchange) => boolean, body?: (t: RequirementRun) => Promise<void>): void {
  declare(
    id,
    async (t) => {
      if (body !== undefined) await body(t);
      const seen = t.session.client.exchanges.filter(relevant);
      for (const ex of seen.slice(0, PASS_CITATIONS)) t.cite(ex, false);
      t.restOn({ exchanges: seen.length, detail: `every response of the run this requirement applies to` });
      if (seen.length === 0) t.inconclusive('no response of the run was one this requirement applies to');
      // After a stop only the responses before it were judged; a full run judges far more, so a
      // pass here would claim what the run never saw. A violation found stays a failure.
      const halt = t.session.client.stopped;
      // The stop's reason is the verdict's (src/api/run.ts afterStop); what was judged goes to restsOn.
      if (halt !== undefined && STOPPED_FROM_OUTSIDE.has(halt.reason)) {
        const partial = `judged on ${seen.length} responses before the stop; a full run judges every response`;
        t.restOn({ exchanges: seen.length, detail: partial });
        t.inconclusive(partial);
      }
      t.observe(`checked on ${seen.length} responses`);
    },
    (run) => run.findingsOfRun(),
  );
}
