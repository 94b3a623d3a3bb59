/**
 * How the embedded reference server is configured, apart from run.ts so that `npm run mutate`
 * (mutation/serve.ts) starts its mutated servers exactly as the embedded run does without loading
 * vitest's Node API into every server process.
 */
/**
 * Rate-limit window of the embedded server: a real minute would make `npm start` wait. It is the
 * shortest window: the embedded key's windows are stretched while the run sends slowly
 * (pacedWindowLimiter: to hold its `limit` requests at its pace 1.5 times over), so that on a
 * busy machine, where every request takes longer, RATE-005's burst still fills a window before it
 * ends and gets its 429, where a fixed 1-second window would end first.
 */
export const EMBEDDED_WINDOW_SECONDS = 1;
/**
 * Without --plan, the embedded key has a quota of its own, as the spec's Enterprise plan does
 * ("custom"): a window of 100 holds every request the run sends before its burst (the property
 * runs are planned to fit it, src/session/budget-plan.ts), so the run's only wait is the
 * Retry-After of the burst's 429 (RATE-005/006), instead of also waiting out a window the run's
 * own requests used up (a Free key's 60). With --plan, the key is that plan's, with its limit.
 */
export const EMBEDDED_CUSTOM_QUOTA = { perWindow: 100, perDay: 10_000 } as const;
