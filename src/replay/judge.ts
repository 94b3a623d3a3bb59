/**
 * Judges one re-sent exchange for the requirement whose failure it once showed. Pure.
 *
 * Cross-cutting requirements use the very checks the run used (src/checks/). The others have a
 * single-exchange rule only where one response can decide (CREATE-003 wants 400, GET-002 404...);
 * requirements that need a whole sequence (a default page, a burst, a leak into the store) have
 * none and are judged by re-running their test.
 *
 * A response that did not reach the case that failed (another status than before on a
 * cross-cutting check, a 429, no response) is 'unknown', never 'conforms': a replay must not say
 * fixed because the server answered something else.
 */
import { CROSS_CUTTING_REQUIREMENTS, crossCuttingChecks } from '../checks/cross-cutting.js';
import { checkRejectedOrBounded } from '../checks/list-page.js';
import { idKey, petsOf } from '../checks/pet-shape.js';
import { findUnexplainedRises } from '../checks/remaining-rise.js';
import type { ServerClock } from '../checks/server-clock.js';
import type { Exchange } from '../http/exchange.js';
import { listLimits } from '../interface/openapi.js';
import type { ExchangeEvidence } from '../report/types.js';
import type { Plan } from '../plans.js';

export type ReplayOutcome = 'conforms' | 'violates' | 'unknown';

export interface Judgement {
  outcome: ReplayOutcome;
  /** What the re-sent exchange showed, naming it (method, target, original and new seq). */
  message: string;
}

export interface JudgeContext {
  plan?: Plan;
  /** The keyed re-send just before this one: RATE-002 judges the pair by the run's rise rule (remaining-rise.ts). */
  previousKeyed?: Exchange;
  /** What the replay has seen so far, which places the server's clock and sizes its windows for that rule. */
  seen?: { clock: ServerClock | undefined; exchanges: readonly Exchange[] };
}

/** accepts: true, false, or why the status cannot decide. */
interface StatusRule {
  expected: string;
  accepts(status: number, ex: Exchange): boolean | string;
}

const is401: StatusRule = { expected: '401', accepts: (s) => s === 401 };

const STATUS_RULES: Readonly<Record<string, StatusRule>> = {
  'CREATE-003': { expected: '400', accepts: (s) => s === 400 },
  'GET-002': {
    expected: '404',
    accepts: (s, ex) => {
      if (s === 404) return true;
      const asked = /^\/pets\/([^/?]+)/.exec(ex.request.target)?.[1];
      const pet = petsOf(ex)[0];
      // The run's unknown id may have been given to a pet since; the run itself then tries another id.
      return s === 200 && pet !== undefined && idKey(pet['id']) === asked ? `pet ${asked} exists now, so the id is no longer unknown` : false;
    },
  },
  'GET-003': { expected: 'a 4xx client error', accepts: (s) => s >= 400 && s < 500 },
  'AUTH-001': is401,
  'AUTH-002': is401,
  'AUTH-003': is401,
  'ORDERS-001': {
    expected: 'the endpoint to exist and answer (not 404, 401/403, 3xx or 5xx)',
    accepts: (s) => (s >= 200 && s < 300) || (s >= 400 && s < 500 && ![401, 403, 404].includes(s)),
  },
};

/** Listing requirements judged by checkRejectedOrBounded, with the page bound their test uses. */
const PAGE_BOUNDS: Readonly<Record<string, () => number>> = {
  'LIST-004': () => listLimits().max,
  'LIST-006': () => listLimits().default,
};

const CROSS_CUTTING: ReadonlySet<string> = new Set(CROSS_CUTTING_REQUIREMENTS);

/** Whether one re-sent exchange can say anything about this requirement. */
export function hasJudge(requirement: string): boolean {
  return CROSS_CUTTING.has(requirement) || requirement in STATUS_RULES || requirement in PAGE_BOUNDS;
}

/** RATE-002 breaks between two consecutive keyed requests: its exchanges are re-sent twice in a row. */
export function sendsInPairs(requirement: string): boolean {
  return requirement === 'RATE-002';
}

function statusOf(ex: { response?: { status: number } }): string {
  return ex.response === undefined ? 'no response' : String(ex.response.status);
}

function violationsFor(requirement: string, ex: Exchange, ctx: JudgeContext): string[] {
  if (CROSS_CUTTING.has(requirement)) {
    const pair = requirement === 'RATE-002' && ctx.previousKeyed !== undefined ? findUnexplainedRises([ctx.previousKeyed, ex], ctx.seen?.clock, ctx.seen?.exchanges) : [];
    return [...crossCuttingChecks(ex, ctx.plan === undefined ? {} : { plan: ctx.plan }), ...pair]
      .filter((f) => f.requirement === requirement && f.kind === 'violation')
      .map((f) => f.message);
  }
  const bound = PAGE_BOUNDS[requirement];
  if (bound !== undefined) return checkRejectedOrBounded(ex, { requirement, maxItems: bound() }).filter((f) => f.kind === 'violation').map((f) => f.message);
  return [];
}

/** undefined when the requirement has no single-exchange judge (see hasJudge). */
export function judgeReplayed(requirement: string, original: ExchangeEvidence, replayed: Exchange, ctx: JudgeContext = {}): Judgement | undefined {
  if (!hasJudge(requirement)) return undefined;
  const name = `${replayed.request.method} ${replayed.request.target} (re-send of #${original.seq} as #${replayed.seq})`;
  const unknown = (why: string): Judgement => ({ outcome: 'unknown', message: `${name}: ${why}` });
  const rule = STATUS_RULES[requirement];
  const status = replayed.response?.status;
  if (status === undefined) {
    const code = replayed.error?.code ?? 'error';
    // A status-judged failure that was "no response" is shown again by no response of the same kind.
    if (rule !== undefined && original.response === undefined && original.error?.code === code) {
      return { outcome: 'violates', message: `${name}: no response again (${code}) / expected ${rule.expected}` };
    }
    return unknown(`no response (${code}), so it could not be judged`);
  }
  if (status === 429 && original.response?.status !== 429) return unknown('throttled (429), so it reached no case to judge');
  if (rule !== undefined) {
    const verdict = rule.accepts(status, replayed);
    if (typeof verdict === 'string') return unknown(verdict);
    return verdict
      ? { outcome: 'conforms', message: `${name}: ${status}, as expected` }
      : { outcome: 'violates', message: `${name}: received ${status} / expected ${rule.expected}` };
  }
  const found = violationsFor(requirement, replayed, ctx);
  if (found.length > 0) return { outcome: 'violates', message: `${name}: ${found.join('; ')}` };
  if (CROSS_CUTTING.has(requirement) && statusOf(original) !== String(status)) {
    return unknown(`answered ${status} where the run saw ${statusOf(original)}, so it did not reach the case that failed`);
  }
  return { outcome: 'conforms', message: `${name}: ${status}, no violation of ${requirement}` };
}
