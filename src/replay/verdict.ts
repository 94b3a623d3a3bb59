/**
 * One replay verdict per failing requirement, from two sources: the re-sent exchanges (resend.ts)
 * and the re-run of the requirement's test with the saved seed. Pure.
 *
 * fixed: the re-run passes and every re-sent exchange now conforms (or the requirement has no
 * single-exchange judge, and the re-run is all there is). still failing: either shows the
 * violation again. could not tell: anything else, with why. A violation only a sequence of
 * responses shows is never judged by its exchanges re-sent alone (resend.ts): a rise of Remaining
 * by the sequence that can show it again (rise-sequence.ts), which must say no rise, in a window
 * that could have shown one, for fixed; the others by the re-run of the tests that made it, except
 * a Remaining that stood still until a window was used up, which the re-run alone need not reach:
 * could not tell, unless the re-run met a 429 itself.
 */
import { REPLAY_WORDS, REPLAYED_STATUSES, replayVerdictOf, type ReplayedStatus } from '../report/replay-banner.js';
import type { Level, RequirementResult } from '../report/types.js';
import type { Judgement } from './judge.js';
import { isRise } from './rise-sequence.js';
import { STANDING_STILL_SEQUENCE } from '../checks/deferred-counting.js';

export type ReplayVerdict = (typeof REPLAY_WORDS)[ReplayedStatus];

/** The status a replay verdict is recorded as in the replay's report (REPLAY_WORDS read backwards). */
export function statusOfReplay(verdict: ReplayVerdict): ReplayedStatus {
  const status = REPLAYED_STATUSES.find((s) => REPLAY_WORDS[s] === verdict);
  if (status === undefined) throw new Error(`no status for the replay verdict ${verdict}`);
  return status;
}

export interface RequirementReplay {
  id: string;
  level: Level;
  verdict: ReplayVerdict;
  /** The evidence behind the verdict: re-sent exchanges' messages, the re-run's violations or reason. */
  details: string[];
}

function rerunDetails(after: RequirementResult | undefined): string[] {
  if (after === undefined) return ['re-run: the requirement was not in the re-run report'];
  if (after.status === 'fail') {
    const messages = [...new Set(after.evidence.filter((e) => e.kind === 'violation').map((e) => e.message))];
    return messages.length === 0 ? ['re-run: fail'] : messages.map((m) => `re-run: ${m}`);
  }
  return [`re-run: ${after.status}${after.reason === undefined ? '' : ` (${after.reason})`}`];
}

export function replayVerdict(
  before: RequirementResult,
  /** undefined: nothing was re-sent for this requirement (no single-exchange judge, or no exchange cited). */
  judgements: readonly Judgement[] | undefined,
  after: RequirementResult | undefined,
  leftOut = 0,
  /** Whether the re-run used up a window (a 429 to the key): then it could have shown a Remaining that stood still. */
  rerunUsedUpWindow = false,
): RequirementReplay {
  const sent = judgements ?? [];
  const violating = sent.filter((j) => j.outcome === 'violates');
  const unknown = sent.filter((j) => j.outcome === 'unknown');
  const base = { id: before.id, level: before.level };
  const capped = leftOut > 0 ? [`${leftOut} more distinct failing exchange(s) were not re-sent (a cap that spares the target's quota)`] : [];
  if (violating.length > 0 || after?.status === 'fail') {
    return { ...base, verdict: 'still failing', details: [...violating.map((j) => j.message), ...(after?.status === 'fail' ? rerunDetails(after) : [])] };
  }
  const unreached = rerunUsedUpWindow ? [] : windowsNotUsedUp(before);
  if (after?.status === 'pass' && unknown.length === 0 && unreached.length > 0) {
    return { ...base, verdict: 'could not tell', details: [...sent.map((j) => j.message), 're-run: pass', ...unreached] };
  }
  if (after?.status === 'pass' && unknown.length === 0) {
    const rerun = before.sequence === undefined ? 're-run: pass' : `re-run: pass; the failing sequence (${before.sequence.steps.length} steps), sent again, met every expectation of the model`;
    const how = judgements === undefined ? [before.sequence === undefined ? 're-run: pass (no single exchange of this requirement can be re-sent and judged alone)' : rerun] : [...sent.map((j) => j.message), rerun];
    return { ...base, verdict: 'fixed', details: [...how, ...sequencesRerun(before), ...capped] };
  }
  return { ...base, verdict: 'could not tell', details: [...unknown.map((j) => j.message), ...(after?.status === 'pass' ? [] : rerunDetails(after))] };
}

/** The violations only a used-up window shows, for a re-run that used none up: the requirement's tests alone need not. */
function windowsNotUsedUp(before: RequirementResult): string[] {
  const shown = before.evidence.some((e) => e.kind === 'violation' && e.shownOnlyBy === STANDING_STILL_SEQUENCE);
  return shown ? [`only ${STANDING_STILL_SEQUENCE} showed the failure, and the re-run of its tests used up no window (no 429): its pass does not show it fixed (run the whole suite again)`] : [];
}

/**
 * What the re-run stood for: the violations only a sequence of responses showed (other than rises
 * of Remaining, which their own sequence decides), whose exchanges replay does not re-send alone.
 */
function sequencesRerun(before: RequirementResult): string[] {
  const shown = new Set(before.evidence.filter((e) => e.kind === 'violation' && e.shownOnlyBy !== undefined && !isRise(before.id, e)).map((e) => e.shownOnlyBy));
  return [...shown].map((what) => `only ${what} showed the failure, never one response: none of its exchanges was re-sent alone; the re-run, which sends the tests that made that sequence, showed none`);
}

const EXIT_CODES = { 'does-not-conform': 1, 'not-verified': 2, conforms: 0 } as const;

/** 1: a must-requirement still fails; 2: one could not be told (CI must not read that as fixed); else 0. The replay report's verdict, as a code. */
export function replayExitCode(results: readonly RequirementReplay[]): 0 | 1 | 2 {
  return EXIT_CODES[replayVerdictOf(results.map((r) => ({ level: r.level, status: statusOfReplay(r.verdict) })))];
}
