/**
 * The checks every exchange of a run goes to (src/session/check-pipeline.ts), in this order: the
 * cross-cutting checks, RATE-006's judgement of a retry after a 429, and the rate-limit
 * comparisons of each keyed response with the ones before it.
 */
import { crossCuttingChecks } from '../checks/cross-cutting.js';
import { checkRateLimitPair, openDistantResets } from '../checks/rate-limit-sequence.js';
import { checkRetryHonoured } from '../checks/retry-after-reset.js';
import { othersSpentInAWindow } from '../checks/key-use.js';
import { operationOf } from '../checks/body.js';
import type { Exchange } from '../http/exchange.js';
import type { JsonValue } from '../interface/json.js';
import type { RunConfig } from '../run-config.js';
import type { ProbeLedger } from './probes.js';
import type { CheckPipeline, ExchangeCheck } from './check-pipeline.js';

export function registerRunChecks(pipeline: CheckPipeline, config: RunConfig, probes: ProbeLedger): void {
  pipeline.register(crossCutting(config, probes), retryHonoured(config), rateLimitPairs());
}

function crossCutting(config: RunConfig, probes: ProbeLedger): ExchangeCheck {
  const excused = (pet: JsonValue): boolean => probes.isAcceptedInvalid(pet);
  return (ex, { clock }) => crossCuttingChecks(ex, { excused, ...(config.plan === undefined ? {} : { plan: config.plan }), ...(clock === undefined ? {} : { clock }) });
}

function retryHonoured(config: RunConfig): ExchangeCheck {
  return (ex, { exchanges, clock }) => {
    if (ex.retryOf === undefined) return [];
    const throttled = exchanges.find((e) => e.seq === ex.retryOf);
    return throttled === undefined ? [] : checkRetryHonoured(throttled, ex, config.keyMode ?? 'shared', othersSpentInAWindow(exchanges), clock);
  };
}

/** Each keyed response against the keyed one before it, and against the latest of its own operation (checkRateLimitPair). */
function rateLimitPairs(): ExchangeCheck {
  let previousKeyed: Exchange | undefined;
  /** The latest keyed response of each operation: RATE-003's early refill compares within one. */
  const previousKeyedOf = new Map<string, Exchange>();
  /** Each operation's responses that announced a Reset more than a minute ahead, still open: RATE-003's give-back rule (openDistantResets). */
  const distantResetsOf = new Map<string, Exchange[]>();
  return (ex, { clock }) => {
    if (ex.request.auth !== 'key' || ex.response === undefined) return [];
    const operation = operationOf(ex) ?? 'no operation';
    const sameOperation = previousKeyedOf.get(operation);
    const distant = distantResetsOf.get(operation) ?? [];
    const findings = previousKeyed === undefined ? [] : checkRateLimitPair(previousKeyed, ex, clock, sameOperation ?? ex, distant);
    previousKeyed = ex;
    previousKeyedOf.set(operation, ex);
    distantResetsOf.set(operation, openDistantResets(distant, ex, clock));
    return findings;
  };
}
