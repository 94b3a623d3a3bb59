/**
 * Model-based sequences: fast-check's `commands` run by `asyncModelRun` against the target, each
 * command checking the response against a model of what the sequence did. The machinery is
 * generic; the operations and the model are the suite's (suites/model-sequences.ts).
 *
 * Like a property (requirement-test.ts): fixed sequences first, whatever the seed, then seeded
 * random ones, as many as the plan allows (none on a Free key). The first sequence that breaks
 * ends the run of sequences, since the verdict is already decided and the target's quota is the
 * user's; it is then shrunk (fast-check's shrinker for a random one, step by step removal for a
 * fixed one) to the shortest sequence that still breaks the same requirement, spending at most
 * SHRINK_REQUESTS more requests. What is reported is that sequence as numbered steps, each with
 * what was sent, what came back, what the model expected and a curl line, and as commands that
 * `replay` sends again.
 *
 * A sequence stops at its first step with a violation (what follows it would be judged on a
 * model that no longer describes the store). Violations of requirements the run did not select
 * are neither reported nor stop a sequence.
 */
import fc from 'fast-check';
import type { Finding } from '../checks/finding.js';
import type { SendRequest } from '../http/client.js';
import type { Exchange } from '../http/exchange.js';
import { toCurl } from '../http/curl.js';
import type { SequenceCommand, SequenceFailure } from '../report/types.js';
import { clientStop, type RequirementRun } from './requirement-test.js';

/** Extra requests shrinking may spend once a sequence has broken: a few shorter sequences. */
export const SHRINK_REQUESTS = 30;

/** What one step of a sequence saw, as the command reports it. */
export interface StepReport {
  operation: string;
  /** The command as `replay` sends it again (a getPet names the created pet it resolved to). */
  command: SequenceCommand;
  sent: string;
  received: string;
  expected: string;
  exchanges: readonly Exchange[];
  /** Violations (and observations) of this step, each naming its requirement. */
  findings: readonly Finding[];
  /** The model once the step was judged, a line per item (report.html shows it beside the step). */
  model?: readonly string[];
}

/** Thrown by SequenceDriver.send when a 429 got through the client's retries: the step reached nothing to judge. */
class SequenceThrottled extends Error {
  constructor(readonly exchange: Exchange) {
    super(`exchange #${exchange.seq} was answered 429 after the client's retry, so the sequence could not go on`);
  }
}

/** Thrown by SequenceDriver.record to end a sequence at the step that broke it. */
class SequenceBroken extends Error {
  constructor(readonly step: number) {
    super(`the sequence broke at step ${step}`);
  }
}

/**
 * The system under test as the commands see it (fast-check's "real"): sends through the test's
 * client, each exchange named after the sequence and step, and keeps the steps.
 */
export class SequenceDriver {
  readonly steps: StepReport[] = [];
  /** The commands that ran (passed their check), in order. */
  readonly ran: unknown[] = [];
  requests = 0;

  constructor(
    readonly test: RequirementRun,
    readonly label: string,
    /** Whether a finding breaks the sequence: a violation of a requirement being judged. */
    readonly breaks: (finding: Finding) => boolean,
  ) {}

  async send(request: Omit<SendRequest, 'purpose'>): Promise<Exchange> {
    this.requests += 1;
    const ex = await this.test.send({ ...request, purpose: `${this.label}, step ${this.steps.length + 1}` });
    // A window other clients emptied is no answer about the store: never judged as one.
    if (ex.response?.status === 429) throw new SequenceThrottled(ex);
    return ex;
  }

  /** Keeps the step; throws when it broke the sequence, which ends the model run there. */
  record(step: StepReport): void {
    this.steps.push(step);
    if (step.findings.some(this.breaks)) throw new SequenceBroken(this.steps.length);
  }

  /** The violations that broke the sequence (its last step's), or none. */
  get breaking(): Finding[] {
    return this.steps.at(-1)?.findings.filter(this.breaks) ?? [];
  }
}

/** A command of a sequence: data and a run against the model and the driver. */
export type SequenceOp<M extends object> = fc.AsyncCommand<M, SequenceDriver>;

export interface SequenceSpec<M extends object> {
  /** The model a sequence starts from (every sequence starts empty: it is followed from step 1). */
  model(): M;
  /** Arbitraries of the random sequences' commands. */
  commands: ReadonlyArray<fc.Arbitrary<SequenceOp<M>>>;
  maxCommands: number;
  /** Sent whatever the seed, before the random ones, when any sequence is run. */
  examples: ReadonlyArray<{ label: string; commands: ReadonlyArray<SequenceOp<M>> }>;
  /** The command a saved step stands for (replay). */
  fromRecord(record: SequenceCommand): SequenceOp<M>;
  /** Sequences to run, the fixed ones first; 0 runs none. */
  sequences: number;
  seed: number;
  /** A sequence from a saved report: sent once, instead of any other. */
  replay?: readonly SequenceCommand[];
  /** Whether a violation of this requirement is judged in this run. */
  judged(requirement: string): boolean;
}

export interface SequenceOutcome {
  /** Violations of the failing sequence's breaking step, prefixed with the sequence and step. */
  findings: Finding[];
  /** The failing sequence, shrunk, under the requirement of its first violation. */
  failure?: { requirement: string; record: SequenceFailure };
  /** Sequences sent (shrinking not counted) and their steps. */
  sequences: number;
  steps: number;
  /** Why sequences stopped before the plan's number was reached (the client's budget, a halt). */
  stopped?: string;
  seed: number;
  /** A replayed sequence: set when some of its commands could not run (a pet it reads was not created). */
  unfollowed?: string;
  replayed?: true;
}

interface Execution {
  driver: SequenceDriver;
  /** The requirement of the breaking step's first violation, when the sequence broke. */
  broke?: string;
  stopped?: { code: string; message: string };
}

type Breaks = (finding: Finding) => boolean;

async function execute<M extends object>(t: RequirementRun, spec: SequenceSpec<M>, commands: Iterable<SequenceOp<M>>, label: string, breaks: Breaks): Promise<Execution> {
  const driver = new SequenceDriver(t, label, breaks);
  // Each command notes that it ran, so a fixed sequence is shrunk over the commands that did.
  const noted = [...commands].map(
    (op): SequenceOp<M> => ({
      check: (model) => op.check(model),
      run: (model, real) => {
        real.ran.push(op);
        return op.run(model, real);
      },
      toString: () => op.toString(),
    }),
  );
  try {
    await fc.asyncModelRun(() => ({ model: spec.model(), real: driver }), noted);
    return { driver };
  } catch (error) {
    if (error instanceof SequenceBroken) return { driver, broke: driver.breaking[0]?.requirement ?? '' };
    if (error instanceof SequenceThrottled) return { driver, stopped: { code: 'throttled', message: error.message } };
    const stop = clientStop(error);
    if (stop === undefined) throw error;
    return { driver, stopped: stop };
  }
}

/** The failing sequence as report.json keeps it: steps a person can follow, commands replay sends. */
function failureRecord(execution: Execution, meta: { label: string; seed: number; path: string; sequencesRun: number }): SequenceFailure {
  const { steps } = execution.driver;
  const breaking = new Set(execution.driver.breaking);
  return {
    ...meta,
    steps: steps.map((step, i) => {
      const violations = step.findings.filter((f) => breaking.has(f)).map((f) => f.message);
      return {
        n: i + 1,
        operation: step.operation,
        sent: step.sent,
        received: step.received,
        expected: step.expected,
        ...(violations.length === 0 ? {} : { violations }),
        exchanges: step.exchanges.map((ex) => ex.seq),
        curl: step.exchanges.map(toCurl),
        ...(step.model === undefined ? {} : { model: [...step.model] }),
      };
    }),
    commands: steps.map((step) => step.command),
  };
}

/** The failing step's violations, each saying which sequence and step showed it. */
function failureFindings(execution: Execution, label: string): Finding[] {
  const total = execution.driver.steps.length;
  return execution.driver.breaking.map((f) => ({ ...f, message: `${label}, step ${total} of ${total}: ${f.message}` }));
}

/**
 * Removes one step at a time before the breaking one, keeping each removal after which the
 * sequence still breaks on the same requirement: a fixed sequence shrunk as far as a step goes.
 */
async function shrinkBySteps<M extends object>(
  t: RequirementRun,
  spec: SequenceSpec<M>,
  commands: ReadonlyArray<SequenceOp<M>>,
  failing: Execution,
  label: string,
): Promise<{ execution: Execution; shrunk: boolean }> {
  const requirement = failing.broke ?? '';
  const sameRequirement: Breaks = (f) => f.kind === 'violation' && f.requirement === requirement;
  let kept = commands.filter((op) => failing.driver.ran.includes(op));
  let best = failing;
  let spent = 0;
  let shrunk = false;
  for (let i = 0; i < kept.length - 1 && spent < SHRINK_REQUESTS; ) {
    const candidate = [...kept.slice(0, i), ...kept.slice(i + 1)];
    const tried = await execute(t, spec, candidate, `${label} (shrinking)`, sameRequirement);
    spent += tried.driver.requests;
    if (tried.stopped !== undefined) break;
    if (tried.broke === requirement) {
      kept = candidate.filter((op) => tried.driver.ran.includes(op));
      best = tried;
      shrunk = true;
    } else i += 1;
  }
  return { execution: best, shrunk };
}

function summaryOf(outcome: SequenceOutcome, examples: number): string {
  if (outcome.replayed === true) return `model-based sequences: the saved sequence replayed, ${outcome.steps} steps`;
  const fixed = Math.min(examples, outcome.sequences);
  return `model-based sequences: ${fixed} fixed and ${outcome.sequences - fixed} random (seed ${outcome.seed}), ${outcome.steps} steps`;
}

/** One line for the observations of every requirement the sequences judge. */
export function sequenceSummary(outcome: SequenceOutcome, examples: number): string {
  const stopped = outcome.stopped === undefined ? '' : `; stopped: ${outcome.stopped}`;
  return `${summaryOf(outcome, examples)}${outcome.failure === undefined ? '' : `; the first to break (${outcome.failure.record.label}) broke ${outcome.failure.requirement}`}${stopped}`;
}

export async function runSequences<M extends object>(t: RequirementRun, spec: SequenceSpec<M>): Promise<SequenceOutcome> {
  const outcome: SequenceOutcome = { findings: [], sequences: 0, steps: 0, seed: spec.seed };
  const judged: Breaks = (f) => f.kind === 'violation' && spec.judged(f.requirement);
  const broken = (execution: Execution, label: string, record: SequenceFailure): SequenceOutcome => ({
    ...outcome,
    findings: failureFindings(execution, label),
    failure: { requirement: execution.broke ?? '', record },
  });
  const count = (execution: Execution): void => {
    outcome.sequences += 1;
    outcome.steps += execution.driver.steps.length;
  };

  if (spec.replay !== undefined) {
    const label = 'replayed sequence';
    outcome.replayed = true;
    const execution = await execute(t, spec, spec.replay.map(spec.fromRecord), label, judged);
    count(execution);
    if (execution.stopped !== undefined) return { ...outcome, stopped: execution.stopped.message };
    if (execution.broke !== undefined) return broken(execution, label, failureRecord(execution, { label, seed: spec.seed, path: '', sequencesRun: 1 }));
    const skipped = spec.replay.length - execution.driver.ran.length;
    // A getPet of a pet that was not created this time cannot run: the sequence was not the one that failed.
    return skipped === 0 ? outcome : { ...outcome, unfollowed: `${skipped} of its ${spec.replay.length} commands could not run (a pet they read was not created)` };
  }

  for (const example of spec.examples.slice(0, spec.sequences)) {
    const label = `fixed sequence ${example.label}`;
    const execution = await execute(t, spec, example.commands, label, judged);
    count(execution);
    if (execution.stopped !== undefined) return { ...outcome, stopped: execution.stopped.message };
    if (execution.broke === undefined) continue;
    const { execution: smallest, shrunk } = await shrinkBySteps(t, spec, example.commands, execution, label);
    const shown = shrunk ? `${label} (shrunk)` : label;
    return broken(smallest, shown, failureRecord(smallest, { label: shown, seed: spec.seed, path: '', sequencesRun: outcome.sequences }));
  }

  const runs = Math.max(0, spec.sequences - spec.examples.length);
  if (runs === 0) return outcome;
  let failing: Execution | undefined;
  let requirement: string | undefined;
  let stopped: string | undefined;
  let shrinkSpent = 0;
  const predicate = async (commands: Iterable<SequenceOp<M>>): Promise<boolean> => {
    if (stopped !== undefined || (failing !== undefined && shrinkSpent >= SHRINK_REQUESTS)) return true;
    const shrinking = failing !== undefined;
    const breaks: Breaks = requirement === undefined ? judged : (f) => judged(f) && f.requirement === requirement;
    const execution = await execute(t, spec, commands, shrinking ? 'random sequence (shrinking)' : `random sequence ${outcome.sequences + 1} (seed ${spec.seed})`, breaks);
    if (shrinking) shrinkSpent += execution.driver.requests;
    else count(execution);
    if (execution.stopped !== undefined) {
      stopped = execution.stopped.message;
      return true;
    }
    if (execution.broke === undefined) return true;
    requirement ??= execution.broke;
    failing = execution;
    return false;
  };
  const details = await fc.check(fc.asyncProperty(fc.commands([...spec.commands], { maxCommands: spec.maxCommands }), predicate), { numRuns: runs, seed: spec.seed });
  if (details.failed && failing === undefined) throw details.errorInstance ?? new Error('model-based sequence failed');
  const result: SequenceOutcome = { ...outcome, ...(stopped === undefined ? {} : { stopped }) };
  if (failing === undefined) return result;
  const label = `random sequence (seed ${spec.seed}, shrunk)`;
  return { ...broken(failing, label, failureRecord(failing, { label, seed: spec.seed, path: details.counterexamplePath ?? '', sequencesRun: outcome.sequences })), ...(stopped === undefined ? {} : { stopped }) };
}
