/**
 * How many property runs each property test may make. Requests are the scarce resource: a
 * complete run on a Free key (60 a minute) must fit the requests left in the current window,
 * keeping enough for the deterministic probes still to come and for the burst that ends the run.
 */
export type PropertyKind = 'validCreate' | 'invalidCreate' | 'limits';

export interface PlanInputs {
  /** Requests the run may still send (--max-requests minus those sent). */
  budgetLeft: number;
  /** X-RateLimit-Remaining of the key's window, when the target told us. */
  windowRemaining?: number;
  /** Whether the run may write (POST). */
  writes: boolean;
  /** Requests the property tests' fixed examples take (always sent, on top of the runs). */
  exampleRequests: number;
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
  validCreate: { cost: 1.5, share: 0.4, min: 3, max: 25 },
  invalidCreate: { cost: 1, share: 0.3, min: 0, max: 25 },
  limits: { cost: 1, share: 0.3, min: 2, max: 25 },
};

/**
 * Keyed requests the deterministic probes send after the first census, counted from the suites:
 * censuses after writes (3), fetches of created pets (5), listing (default 1, limit=1 1,
 * out-of-range 6, filters 3, invalid filter 1, combined 1), getPet (2 known, 1 unknown, 2
 * malformed), orders (1), plus a margin of 4 for re-checks against a fresh census. The
 * authentication probes carry no valid key and so draw on no key's window.
 */
export const DETERMINISTIC_REQUESTS = 3 + 5 + 13 + 5 + 1 + 4;

export type RunPlan = Record<PropertyKind, number>;

export function planPropertyRuns(inputs: PlanInputs): RunPlan {
  const window = inputs.windowRemaining ?? Number.POSITIVE_INFINITY;
  const spare = Math.max(0, Math.min(inputs.budgetLeft, window) - DETERMINISTIC_REQUESTS - inputs.exampleRequests);
  const runs = (kind: PropertyKind): number => {
    const rule = RULES[kind];
    const affordable = Math.floor((spare * rule.share) / rule.cost);
    return Math.max(rule.min, Math.min(rule.max, affordable));
  };
  return {
    validCreate: inputs.writes ? runs('validCreate') : 0,
    invalidCreate: inputs.writes ? runs('invalidCreate') : 0,
    limits: runs('limits'),
  };
}
