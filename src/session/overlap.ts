/**
 * Which requests were in flight at the same moment, read from the exchanges themselves (sent at,
 * answered at): what the run really sent together, whatever it meant to. Pure.
 */
import type { Exchange } from '../http/exchange.js';
import { receivedAt } from '../checks/response-date.js';

/**
 * The largest set of exchanges all in flight at one moment (each sent before any of the others
 * was answered), in seq order. Among sets as large, the one `worth` scores highest, then the latest
 * (the most recent writes, which a lagging read is most likely to miss). One exchange when none
 * overlapped, none for none.
 */
export function inFlightTogether(exchanges: readonly Exchange[], worth: (group: readonly Exchange[]) => number = () => 0): Exchange[] {
  let best: Exchange[] = [];
  let bestWorth = Number.NEGATIVE_INFINITY;
  // The moment of greatest overlap is when one of them was sent.
  for (const at of exchanges) {
    const group = exchanges.filter((ex) => ex.sentAt <= at.sentAt && receivedAt(ex) > at.sentAt);
    const score = worth(group);
    if (group.length > best.length || (group.length === best.length && score >= bestWorth)) {
      best = group;
      bestWorth = score;
    }
  }
  return [...best].sort((a, b) => a.seq - b.seq);
}
