/**
 * What `npm run mutate` runs against each mutant of the reference server, in one place: the
 * conformance run's command line and the tests Stryker knows (docs/architecture.md, "Mutation
 * testing"). Everything here is part of each test's identity (runner.ts hashes the built file), so
 * changing it makes an incremental run test every mutant again.
 */

/**
 * The seed of every mutant's run. Fixed, so that an incremental run reuses results measured with
 * the same random cases; the seed only adds cases on top of the fixed ones every run sends
 * (docs/test-cases.md, "Reproducible verdicts"), so no verdict of a conforming server depends on it.
 */
export const MUTATION_SEED = 31;

/**
 * `--deadline` of every mutant's run, in seconds. The unmutated run takes 3 s on a quiet machine
 * and about 15 s beside two other runs and a busy machine; a mutant whose server hangs or answers
 * with waits is judged by the suite itself within this (NOT VERIFIED, a halt: killed).
 */
export const DEADLINE_SECONDS = 120;

/**
 * How long after its deadline a run may take to end before the runner stops it and calls the
 * mutant a timeout: requests in flight get 2 s and the reports are written, so a minute is a hang
 * of our own, never the suite's answer. Stryker's own timeout (mutation/stryker.config.mjs) lies
 * above this, so a timeout is always this runner's, with its reason.
 */
export const HANG_GRACE_SECONDS = 60;

/**
 * Extra flags for every mutant's run, one line each. A flag that lets the run send more (an
 * opt-in for inputs that can break a store, say) belongs here once the server it is sent to is
 * the run's own, as every mutant's server is.
 */
export const EXTRA_FLAGS: readonly string[] = [
  // Nobody else uses the mutant's server: consumption the run did not cause fails RATE-002 (a
  // limiter that counts other requests against the key), where on a key that may be shared it is
  // only an observation.
  '--dedicated-key',
  // The mutant's store is the run's own, so the inputs that can leave a store broken are sent
  // (CREATE-005): a body decoded without `fatal: true`, say, stores invalid UTF-8 and is caught.
  '--risk-breaking-store',
];

/**
 * EXTRA_FLAGS beside a test's own flags: the CLI refuses --risk-breaking-store beside
 * --exhaust-daily-quota (a run that spends the day shares the key with whoever else spends it),
 * so the daily quota's test runs without it; its store-breaking inputs are the embedded run's.
 */
export function extraFlagsBeside(args: readonly string[]): string[] {
  return args.includes('--exhaust-daily-quota') ? EXTRA_FLAGS.filter((flag) => flag !== '--risk-breaking-store') : [...EXTRA_FLAGS];
}

/**
 * How many of a mutant's tests run at once (first-decisive.ts), beside Stryker's own concurrency
 * of mutants: a run mostly waits on its windows (load average 1.3 with two runs going), and a
 * survivor of the limiters' code, reached by every test below, cost the sum of them (about 160 s
 * on a quiet machine) where three lanes bring it to the token bucket's 64 s. More lanes would only
 * add load where the runs of the embedded test already keep both cores busy.
 */
export const TESTS_AT_ONCE = 3;

/**
 * Mutants Stryker runs at once (mutation/stryker.config.mjs reads it). Most runs of the variant
 * tests wait on their windows (the token bucket's 64 s take 3 s of CPU), so more mutants at once
 * than cores shortens the limiters' part of a run, which the token bucket's and the daily tests'
 * lengths dominate; the runs that keep a core busy are held to CPU_HEAVY_RUNS_AT_ONCE.
 */
export const MUTANTS_AT_ONCE = 4;

/**
 * Runs of CPU_HEAVY_TESTS at once across Stryker's workers (cpu-slots.ts): the embedded run keeps
 * most of a core busy for its 3 s, so two at once fill the machine's two cores, as before the
 * slots; more would only slow every run down and stretch the windows the verdicts are timed by.
 */
export const CPU_HEAVY_RUNS_AT_ONCE = 2;

/**
 * How long a run of CPU_HEAVY_TESTS holds its slot at most, in seconds: the embedded run computes
 * for its 3 s (about 5 s with two at once), so one still going after this is waiting (on windows
 * its mutant announced, or on a mutant's slow answers, up to its deadline), and its slot goes to
 * the next run rather than staying idle for up to two minutes.
 */
export const CPU_SLOT_SECONDS = 10;

/** The test every mutant the embedded-like run reaches is judged by. */
export const EMBEDDED_TEST = 'embedded';

/** Tests whose runs keep a core busy throughout (measured: CPU time near wall time), not waiting on windows. */
export const CPU_HEAVY_TESTS: readonly string[] = [EMBEDDED_TEST];

/**
 * Conforming variants of the table (fixtures/variants/) whose runs judge the code only they
 * reach: the rate limiters the embedded server does not use (limiters.ts, windows from the
 * server's start among them; the window part of rate-limit.ts) and a target slow enough to need
 * delayMs. A mutant the embedded run reaches is judged by the embedded run only; these judge the rest (runner.ts, coverage). Each is run as the
 * table runs it: the token bucket's minute-long refill makes its runs last about 65 s, and a
 * shorter bucket is not the same test (at 6 s and 20 s a busy machine's burst could not empty it:
 * RATE-005 inconclusive on the reference).
 *
 * Three more judge what only they reach: `daily-quota-short-day` runs --exhaust-daily-quota against
 * a day shortened to 120 s, so the daily quota's code (rate-limit.ts) is judged rather than left to
 * an opt-in no run makes, and `daily-quota-short-day-per-key-windows` the same on a limiter of
 * another design (limiters.ts: the day binding a policy limiter's headers);
 * `slow-responses-stretched-windows` answers every request 30 to 80 ms late on windows paced from
 * 1 s, so every window it fills is stretched to the key's pace (limiters.ts pacedWindow), a path a
 * quiet machine's embedded run never takes (the 4 s windows of `slow-responses` stretch only now
 * and then, so the dry run's coverage of that path depended on the machine), and its 429s come
 * with seconds of the window left, where Retry-After must say more than 1 s.
 *
 * `daily-quota-utc-day` spends the reference's own UTC day, so the branch of #dayStart every
 * server without a shortened day takes is judged too: a day start that moves with each request
 * (the quota never enforced) or lies in 1970 (the day's Reset). A Stryker run across a UTC
 * midnight leaves those mutants alive, unexplained, rather than killed by a guess.
 *
 * `limiter-aligned-5s-windows` runs the reference's own clock-aligned windows long enough that the
 * run's requests use one up with seconds left, so the 429's Retry-After (rate-limit.ts) must count
 * them: the embedded run's paced windows and the 3 s ones end within a second of their 429s.
 *
 * In the order of what a run costs (seconds on a quiet machine, the dry run's: 4, 4, about 6, 12,
 * 13, 15, about 18, 21, about 21, 64): a mutant starts its tests in this order, TESTS_AT_ONCE at a time,
 * until one kills it, so a kill comes as soon as it can; the order changes no verdict, since a
 * survivor passes every test that reaches it.
 */
export const VARIANT_TESTS: readonly string[] = [
  'limiter-per-key-windows',
  'limiter-server-start-windows',
  'limiter-aligned-5s-windows',
  'slow-responses-stretched-windows',
  'limiter-sliding-log',
  'slow-target-3s-window',
  'daily-quota-utc-day',
  'daily-quota-short-day',
  'daily-quota-short-day-per-key-windows',
  'limiter-token-bucket',
];

/**
 * Variant tests on a policy limiter (limiters.ts): their servers reach rate-limit.ts only through
 * the day count each policy limiter keeps (a RateLimiter with no window limit), exactly as the
 * embedded run's paced windows do, so they judge the mutants of limiters.ts only, and
 * rate-limit.ts's are left to the tests that run its windows or its day directly (the embedded
 * run, the aligned windows of 3 s and 5 s, `daily-quota-short-day`). In the full run before this
 * rule the only mutants of rate-limit.ts the variants with the UTC day were first to kill (two:
 * every request refused, a day with nothing left) break the day count the embedded run goes
 * through too, while each survivor there waited on the token bucket's minute.
 * `daily-quota-short-day-per-key-windows` spends the same shortened day as `daily-quota-short-day`
 * on a per-key limiter: it was first to kill no mutant of rate-limit.ts in the 61-minute full run,
 * and judging its ten survivors there took its 49 s (1,000 requests) each.
 */
export const LIMITERS_ONLY_TESTS: readonly string[] = [
  'limiter-per-key-windows',
  'limiter-server-start-windows',
  'slow-responses-stretched-windows',
  'limiter-sliding-log',
  'daily-quota-short-day-per-key-windows',
  'limiter-token-bucket',
];
