/**
 * Re-sends the exchanges behind each failure of a saved report, through the shared client (so
 * pacing, the budget and redaction hold), in the run's original order, and judges each response
 * for every requirement it once failed.
 *
 * Only exchanges cited by a violation are re-sent, and only for requirements a single exchange
 * can judge (judge.ts); identical requests are sent once and at most MAX_PER_REQUIREMENT per
 * requirement, since a failing listing often backs ten violations and the target's quota is
 * the user's. One the target answered 429 is re-sent only when the requirement failed on nothing
 * else: a replay cannot make the target throttle that request again, so its answer could only say
 * "could not tell", and whether the run's own requests met a 429 at all depends on its speed.
 */
import type { ConformanceClient } from '../http/client.js';
import { BudgetExhaustedError, RunHaltedError, TransportError } from '../http/errors.js';
import type { Exchange } from '../http/exchange.js';
import type { ExchangeEvidence, RequirementResult } from '../report/types.js';
import type { Plan } from '../plans.js';
import { hasJudge, judgeReplayed, sendsInPairs, type Judgement } from './judge.js';
import { rebuildRequest } from './request.js';

export const MAX_PER_REQUIREMENT = 5;
const SAFE_METHODS: readonly string[] = ['GET', 'HEAD', 'OPTIONS'];

interface PlannedSend {
  original: ExchangeEvidence;
  requirements: string[];
  times: 1 | 2;
}

export interface ResendResult {
  /** Per requirement with a judge and evidence to re-send: one judgement per re-sent exchange. */
  judgements: Map<string, Judgement[]>;
  /** Per requirement: how many distinct failing exchanges were left unsent by the cap. */
  leftOut: Map<string, number>;
  /** Every exchange the replay sent, in order (redacted, like any record of the client). */
  exchanges: Exchange[];
}

function signature(ev: ExchangeEvidence): string {
  const r = ev.request;
  return JSON.stringify([r.method, r.target ?? r.url, r.auth ?? r.headers['authorization'] ?? '', r.body ?? null]);
}

export function planResends(failing: readonly RequirementResult[]): { sends: PlannedSend[]; leftOut: Map<string, number> } {
  const bySeq = new Map<number, PlannedSend>();
  const leftOut = new Map<string, number>();
  for (const r of failing) {
    if (!hasJudge(r.id)) continue;
    const distinct = new Map<string, ExchangeEvidence>();
    for (const e of r.evidence) {
      if (e.kind !== 'violation' || e.exchange === undefined) continue;
      if (!distinct.has(signature(e.exchange))) distinct.set(signature(e.exchange), e.exchange);
    }
    const all = [...distinct.values()];
    const answered = all.filter((ev) => ev.response?.status !== 429);
    const chosen = (answered.length > 0 ? answered : all).sort((a, b) => a.seq - b.seq);
    if (chosen.length > MAX_PER_REQUIREMENT) leftOut.set(r.id, chosen.length - MAX_PER_REQUIREMENT);
    for (const ev of chosen.slice(0, MAX_PER_REQUIREMENT)) {
      const planned = bySeq.get(ev.seq) ?? { original: ev, requirements: [], times: 1 };
      planned.requirements.push(r.id);
      if (sendsInPairs(r.id)) planned.times = 2;
      bySeq.set(ev.seq, planned);
    }
  }
  return { sends: [...bySeq.values()].sort((a, b) => a.original.seq - b.original.seq), leftOut };
}

export interface ResendContext {
  client: Pick<ConformanceClient, 'send'>;
  /** --read-only: nothing but GET, HEAD and OPTIONS is re-sent. */
  readOnly: boolean;
  /** The target's base URL in the saved report: older reports give only absolute URLs. */
  reportBaseUrl: string;
  apiKey: string;
  plan?: Plan;
}

export async function resendFailures(failing: readonly RequirementResult[], ctx: ResendContext): Promise<ResendResult> {
  const { sends, leftOut } = planResends(failing);
  const judgements = new Map<string, Judgement[]>();
  const add = (ids: readonly string[], judge: (id: string) => Judgement): void => {
    for (const id of ids) judgements.set(id, [...(judgements.get(id) ?? []), judge(id)]);
  };
  const exchanges: Exchange[] = [];
  let stopped: string | undefined;
  let previousKeyed: Exchange | undefined;
  for (const planned of sends) {
    const { original, requirements } = planned;
    if (stopped !== undefined) {
      add(requirements, () => ({ outcome: 'unknown', message: `exchange #${original.seq} was not re-sent: ${stopped}` }));
      continue;
    }
    if (ctx.readOnly && !SAFE_METHODS.includes(original.request.method)) {
      add(requirements, () => ({ outcome: 'unknown', message: `exchange #${original.seq} (${original.request.method}) was not re-sent: writes are disabled (--read-only)` }));
      continue;
    }
    const rebuilt = rebuildRequest(original, { baseUrl: ctx.reportBaseUrl, apiKey: ctx.apiKey, purpose: `replay of #${original.seq} (${requirements.join(', ')})` });
    if (!rebuilt.ok) {
      add(requirements, () => ({ outcome: 'unknown', message: rebuilt.reason }));
      continue;
    }
    for (let i = 0; i < planned.times && stopped === undefined; i++) {
      let ex: Exchange;
      try {
        ex = await ctx.client.send(rebuilt.request);
      } catch (error) {
        if (error instanceof TransportError) {
          ex = error.exchange;
        } else if (error instanceof BudgetExhaustedError || error instanceof RunHaltedError) {
          stopped = error.message;
          add(requirements, () => ({ outcome: 'unknown', message: `exchange #${original.seq} was not re-sent: ${error.message}` }));
          break;
        } else {
          throw error;
        }
      }
      exchanges.push(ex);
      const previous = previousKeyed;
      if (ex.request.auth === 'key' && ex.response !== undefined) previousKeyed = ex;
      // The first of a pair only sets up the second: judging it alone would count it twice.
      if (i + 1 < planned.times) continue;
      add(requirements, (id) => judgeReplayed(id, original, ex, { ...(ctx.plan === undefined ? {} : { plan: ctx.plan }), ...(previous === undefined ? {} : { previousKeyed: previous }) }) ?? { outcome: 'unknown', message: 'no judge' });
    }
  }
  return { judgements, leftOut, exchanges };
}

/**
 * The requirements to re-run: the failing ones, and the tests that sent the exchanges behind
 * their violations (an exchange's purpose names its sender). A cross-cutting requirement's test
 * sends nothing of its own; without its senders, its re-run would judge no response at all.
 */
export function rerunSelection(failing: readonly RequirementResult[], known: ReadonlySet<string>): string[] {
  const ids = new Set(failing.map((r) => r.id));
  for (const r of failing) {
    for (const e of r.evidence) {
      if (e.kind !== 'violation' || e.exchange === undefined) continue;
      for (const sender of e.exchange.purpose.match(/\b[A-Z]+-[0-9]{3}\b/g) ?? []) if (known.has(sender)) ids.add(sender);
    }
  }
  return [...ids];
}
