/**
 * The petIds getPet is sent on every run, whatever the seed (GET-002, GET-003). Ids are exact
 * bigints: the ones above 2^53 are the point.
 */
import { INT64_MAX, INT64_MIN } from '../interface/int64.js';

/** Ids that are int64 but that no service assigning ids from 1 would hold; 400 is as reasonable as 404. */
export const NON_POSITIVE_IDS: readonly bigint[] = [0n, -1n];
/** petIds the path parameter's type excludes: not integers, or integers beyond int64 on either side. */
export const NOT_INT64: readonly string[] = ['abc', '1.5', String(INT64_MAX + 1n), String(INT64_MIN - 1n)];

const TWO_53 = 2n ** 53n;
/** Odd, so no double holds it: a parser through a double reads another id. */
const JUST_ABOVE_2_53 = TWO_53 + 1n;

/**
 * int64 petIds at the edges of the type: the non-positive ones, one just above 2^53 and both
 * bounds. Every one is a getPet path (the spec sets no minimum), so a route or validator that
 * refuses them before the key check answers an unauthenticated getPet with something else than 401.
 */
export const INT64_EDGE_IDS: readonly bigint[] = [...NON_POSITIVE_IDS, JUST_ABOVE_2_53, INT64_MAX, INT64_MIN];

export interface UnknownIdProbe {
  label: string;
  /** The id sent when the run has not seen it; `largestKnown` is the largest id the run has seen. */
  first: (largestKnown: bigint) => bigint;
  /** The next id tried after one the run has seen (free) or one that turned out to exist (one more request). */
  step: bigint;
}

/**
 * Unknown ids GET-002 sends on every run, each answered 404 by a conforming server: an ordinary
 * one, one just above 2^53 and the int64 maximum. The big ones and their neighbours are odd, so
 * no double holds them: validators that cap integers at Number.MAX_SAFE_INTEGER answer 400, and a
 * parser through a double looks up another id. Their neighbours stay above 2^53 and near the maximum.
 */
export const UNKNOWN_ID_PROBES: readonly UnknownIdProbe[] = [
  { label: 'an ordinary unknown id', first: (largest) => (largest + 1_000_003n <= INT64_MAX ? largest + 1_000_003n : 987_654_321_987n), step: 1_000_003n },
  { label: 'an id just above 2^53', first: () => JUST_ABOVE_2_53, step: 2n },
  { label: 'the int64 maximum', first: () => INT64_MAX, step: -2n },
];

/** The probe's ids in order, within 1..INT64_MAX, skipping those in `known`: at most `count`. */
export function unknownIdCandidates(probe: UnknownIdProbe, known: ReadonlySet<bigint>, largestKnown: bigint, count: number): bigint[] {
  const ids: bigint[] = [];
  for (let id = probe.first(largestKnown); ids.length < count && id > 0n && id <= INT64_MAX; id += probe.step) if (!known.has(id)) ids.push(id);
  return ids;
}
