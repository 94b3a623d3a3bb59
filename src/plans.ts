/**
 * The key's plan (spec § 8, "Rate limits by plan"): the one source of the plan table and of the
 * custom form an Enterprise key is described with, `custom:PER_MINUTE/PER_DAY`. A plan travels as
 * its string everywhere (options, RunConfig, report.json); `planLimits` turns it into numbers.
 */

export type PlanName = 'free' | 'pro' | 'business';
/** Enterprise quotas are arranged individually: the user states them. */
export type CustomPlan = `custom:${number}/${number}`;
export type Plan = PlanName | CustomPlan;

export interface PlanLimits {
  perMinute: number;
  perDay: number;
}

export const PLAN_LIMITS: Readonly<Record<PlanName, PlanLimits>> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
};

export const PLAN_NAMES = Object.keys(PLAN_LIMITS) as PlanName[];

/** A thousand times the largest published per-minute limit (Business, 1,000): RATE-008 calls more implausible. */
export const MAX_PER_MINUTE = 1_000_000;

/** What --plan accepts, as every usage error says it. */
export const PLAN_FORM = `${PLAN_NAMES.join(', ')} or custom:PER_MINUTE/PER_DAY (for example custom:500/50000)`;

export class PlanError extends Error {
  override name = 'PlanError';
}

export function isPlanName(raw: string): raw is PlanName {
  return (PLAN_NAMES as readonly string[]).includes(raw);
}

function customPlan(raw: string, perMinute: number, perDay: number): CustomPlan {
  const wrong = (why: string): PlanError => new PlanError(`--plan "${raw}": ${why}; expected ${PLAN_FORM}`);
  if (perMinute < 1 || perDay < 1) throw wrong('both limits must be at least 1');
  if (perMinute > MAX_PER_MINUTE) throw wrong(`a per-minute limit above ${MAX_PER_MINUTE.toLocaleString('en-US')} is not plausible`);
  if (!Number.isSafeInteger(perDay)) throw wrong('the daily quota is too large');
  // A day that allows fewer requests than a minute makes the per-minute limit unreachable: a typo, most likely swapped.
  if (perDay < perMinute) throw wrong(`the daily quota (${perDay}) is below the per-minute limit (${perMinute})`);
  return `custom:${perMinute}/${perDay}`;
}

/** The canonical plan of a user's value (any case, surrounding spaces ignored); throws PlanError with one line. */
export function parsePlan(raw: unknown): Plan {
  if (typeof raw === 'object' && raw !== null && 'perMinute' in raw && 'perDay' in raw) {
    const { perMinute, perDay } = raw as Record<string, unknown>;
    if (Number.isSafeInteger(perMinute) && Number.isSafeInteger(perDay)) return customPlan(JSON.stringify(raw), perMinute as number, perDay as number);
  }
  if (typeof raw !== 'string') throw new PlanError(`--plan must be ${PLAN_FORM} (or { perMinute, perDay } in the library), got ${JSON.stringify(raw) ?? String(raw)}`);
  const text = raw.trim().toLowerCase();
  if (isPlanName(text)) return text;
  const custom = /^custom:([0-9]+)\/([0-9]+)$/.exec(text);
  if (custom === null) throw new PlanError(`--plan must be ${PLAN_FORM}, got "${raw}"`);
  return customPlan(raw, Number(custom[1]), Number(custom[2]));
}

export function planLimits(plan: Plan): PlanLimits {
  if (isPlanName(plan)) return PLAN_LIMITS[plan];
  const [perMinute, perDay] = plan.slice('custom:'.length).split('/').map(Number);
  return { perMinute: perMinute ?? 0, perDay: perDay ?? 0 };
}

/** For reports: "free (60 requests a minute, 1,000 a day)"; a value that is no plan is shown as it is. */
export function describePlan(value: string): string {
  let plan: Plan;
  try {
    plan = parsePlan(value);
  } catch {
    return value;
  }
  const { perMinute, perDay } = planLimits(plan);
  return `${plan} (${perMinute.toLocaleString('en-US')} requests a minute, ${perDay.toLocaleString('en-US')} a day)`;
}
