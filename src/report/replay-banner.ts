/** The line a replay's report opens with, in every format and on the console (src/replay/replay-of.ts marks such reports). */
import { NOT_REPLAYED } from '../conformance/reasons.js';
import type { Report } from './types.js';

/** The banner every format of a replay's report opens with; undefined for an ordinary run's. */
export function replayBanner(report: Report): string | undefined {
  const of = report.replayOf;
  if (of === undefined) return undefined;
  const others = report.requirements.filter((r) => r.reason === NOT_REPLAYED).length;
  const undecided = of.cannotDecide.length === 0 ? '' : `; cannot decide ${of.cannotDecide.map((c) => c.requirement).join(', ')}`;
  return `Replay of report ${of.digest} (${of.path}): ${of.requirements.length} failing requirement(s) replayed (${of.requirements.join(', ')}), ${others} not replayed${undecided}. Not a conformance run.`;
}
