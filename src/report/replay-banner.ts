/**
 * How a replay's report words itself (src/replay/replay-of.ts marks such reports): the line it opens
 * with in every format and on the console, the word each replayed requirement gets, and its verdict.
 */
import { NOT_REPLAYED } from '../conformance/reasons.js';
import type { Report, RequirementResult, RequirementStatus } from './types.js';

/** The statuses a replayed requirement can have in its replay's report. */
export type ReplayedStatus = Extract<RequirementStatus, 'pass' | 'fail' | 'inconclusive'>;
export const REPLAYED_STATUSES: readonly ReplayedStatus[] = ['fail', 'inconclusive', 'pass'];

/**
 * The replay verdict of a requirement, by the status its replay's report records: the console's
 * word and report.json's status are one fact.
 */
export const REPLAY_WORDS = { pass: 'fixed', fail: 'still failing', inconclusive: 'could not tell' } as const satisfies Record<ReplayedStatus, string>;

/** The verdict line's first words for a replay: never a conformance verdict, since a replay judges only what failed. */
export const REPLAY_VERDICT_WORDS: Readonly<Record<Report['verdict'], string>> = {
  conforms: 'REPLAY, FIXED',
  'does-not-conform': 'REPLAY, STILL FAILING',
  'not-verified': 'REPLAY, COULD NOT TELL',
};

/**
 * A replay's verdict, from its replayed requirements alone (the requirements re-run beside them
 * only rebuilt what the re-sent requests needed): a must-requirement still failing, else one that
 * could not be told, else fixed. Should-requirements still failing are warnings, as in a run.
 */
export function replayVerdictOf(replayed: ReadonlyArray<Pick<RequirementResult, 'level' | 'status'>>): Report['verdict'] {
  const must = replayed.filter((r) => r.level === 'must');
  if (must.some((r) => r.status === 'fail')) return 'does-not-conform';
  return must.some((r) => r.status !== 'pass') ? 'not-verified' : 'conforms';
}

/** The banner every format of a replay's report opens with; undefined for an ordinary run's. */
export function replayBanner(report: Report): string | undefined {
  const of = report.replayOf;
  if (of === undefined) return undefined;
  const others = report.requirements.filter((r) => r.reason === NOT_REPLAYED).length;
  const undecided = of.cannotDecide.length === 0 ? '' : `; cannot decide ${of.cannotDecide.map((c) => c.requirement).join(', ')}`;
  return `Replay of report ${of.digest} (${of.path}): ${of.requirements.length} failing requirement(s) replayed (${of.requirements.join(', ')}), ${others} not replayed${undecided}. Not a conformance run.`;
}
