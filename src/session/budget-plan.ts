/**
 * How many random property runs each property test may make. Requests are the scarce resource:
 * the fixed requests (deterministic probes and every property's fixed examples) are always sent,
 * and the random runs share what the current window has left after them, so a larger window buys
 * more random cases and a smaller one never drops a fixed case. On a Free key (60 a minute) the
 * fixed requests alone exceed one window, so no random run is added: every one would be a request
 * of the key's next window.
 */
import { invalidNewPetExamples } from '../arbitraries/invalidNewPet.js';
import { newPetExamples } from '../arbitraries/newPet.js';

export type PropertyKind = 'validCreate' | 'invalidCreate' | 'limits' | 'sequences';

/**
 * Commands of one model-based sequence at most (suites/model-sequences.ts), each one request unless
 * a getPet waits out read-after-write lag: what one sequence is planned to cost.
 */
export const SEQUENCE_COMMANDS = 6;
/**
 * createPets of one sequence at most: with at most RULES.sequences.max sequences they add no more
 * pets than the room STORE_GROWTH (src/session/session.ts) leaves beside CREATE-001's.
 */
export const SEQUENCE_CREATES = 2;

export interface PlanInputs {
  /** Requests the run may still send (--max-requests minus those sent). */
  budgetLeft: number;
  /** X-RateLimit-Remaining of the key's window, when the target told us. */
  windowRemaining?: number;
  /** Whether the run may write (POST). */
  writes: boolean;
  /** Requests the property tests' fixed examples take (always sent, on top of the runs). */
  exampleRequests: number;
  /**
   * Whether one limit=100 listing showed the whole store. When it did not, the created-nothing
   * checks bracket the refused requests and may fetch ids and list a status (CREATED_NOTHING_REQUESTS).
   */
  wholeStore?: boolean;
}

interface KindRule {
  /** Requests one run costs. */
  cost: number;
  /** Share of the spare requests. */
  share: number;
  min: number;
  max: number;
}

const RULES: Record<PropertyKind, KindRule> = {
  // a create plus, for some runs, a fetch of the created pet
  // No minimum: the fixed examples decide every verdict, so random runs are only what the window
  // has room for after them (none on a Free key, whose window the fixed requests already exceed).
  validCreate: { cost: 1.5, share: 0.2, min: 0, max: 25 },
  invalidCreate: { cost: 1, share: 0.15, min: 0, max: 25 },
  limits: { cost: 1, share: 0.15, min: 0, max: 25 },
  // Whole sequences, the fixed one first: the embedded server's window of 100 has room for that
  // one (the 9 its fixed requests leave), a Pro key's for every one; a Free key's for none.
  sequences: { cost: SEQUENCE_COMMANDS, share: 0.5, min: 0, max: 6 },
};

/**
 * Keyed requests the deterministic probes send after the first census, counted from the suites:
 * censuses after writes (3), fetches of created pets (3: a group of creations in flight together), listing (default 1, limit=1 1,
 * out-of-range 6 and number-like 6, filters 3, an invalid filter 1 (a seeded one only with room for random runs), combined 1), getPet (1 listed, 1 more above 2^53 when listed, 0 and -1,
 * 3 unknown (an ordinary one, 2^53+1, the int64 maximum), abc, 1.5 and 2 beyond int64), orders (1), the creation that opens the bracket of the
 * unauthorised posts (1), plus a margin of 4 for re-checks against a fresh census. The
 * authentication probes carry no valid key and so draw on no key's window.
 */
export const DETERMINISTIC_REQUESTS = 3 + 3 + 19 + 11 + 1 + 1 + 4;

/** CREATE-001 sends its edge NewPets and CREATE-003 one body of each invalid class first. */
export const PROPERTY_EXAMPLE_REQUESTS = newPetExamples(1n).length + invalidNewPetExamples().length;

/** Ids between the brackets that CREATE-004 and AUTH-004 each fetch one by one, at most. */
export const MAX_GAP_FETCHES = 10;

/**
 * What CREATE-004 and AUTH-004 may spend when one listing cannot show the store: the closing
 * creation of the bracket (1), up to 10 ids fetched between the brackets by each (20), one
 * status-filtered listing (1) and a listing after each closing creation (2). See
 * suites/rejected-writes.ts.
 */
export const CREATED_NOTHING_REQUESTS = 1 + 2 * MAX_GAP_FETCHES + 1 + 2;

export type RunPlan = Record<PropertyKind, number>;

export function planPropertyRuns(inputs: PlanInputs): RunPlan {
  const window = inputs.windowRemaining ?? Number.POSITIVE_INFINITY;
  const createdNothing = inputs.writes && inputs.wholeStore === false ? CREATED_NOTHING_REQUESTS : 0;
  const spare = Math.max(0, Math.min(inputs.budgetLeft, window) - DETERMINISTIC_REQUESTS - createdNothing - inputs.exampleRequests);
  const runs = (kind: PropertyKind, room = spare): number => {
    const rule = RULES[kind];
    const affordable = Math.floor((room * rule.share) / rule.cost);
    return Math.max(rule.min, Math.min(rule.max, affordable));
  };
  // The fixed sequence comes before any random case: a spare that holds one whole sequence but
  // whose share does not still sends it, and the random cases share what it leaves.
  const firstSequence = inputs.writes && runs('sequences') === 0 && spare >= SEQUENCE_COMMANDS;
  const room = firstSequence ? spare - SEQUENCE_COMMANDS : spare;
  return {
    validCreate: inputs.writes ? runs('validCreate', room) : 0,
    invalidCreate: inputs.writes ? runs('invalidCreate', room) : 0,
    limits: runs('limits', room),
    // Sequences create pets: none without writes.
    sequences: firstSequence ? 1 : inputs.writes ? runs('sequences') : 0,
  };
}
