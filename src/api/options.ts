/**
 * The options of a conformance run as a plain object, for the library and the CLI alike. Every
 * field is optional and defaults as the CLI does; anything invalid throws ConformanceUsageError
 * (exitCode 2) before a single request is sent.
 */
import { randomInt } from 'node:crypto';
import type { ProgressListener } from '../../reporters/compliance.js';
import { selectRequirements } from '../catalog.js';
import type { KeyMode, RunConfig } from '../run-config.js';
import { parsePlan, PlanError, planLimits, PLAN_FORM, type Plan, type PlanLimits } from '../plans.js';
import { chooseProxy, ProxyConfigError, type Environment, type ProxyChoice } from '../http/proxy-route.js';
import { GatewayHeaderError, mergeGatewayHeaders, type GatewayHeader } from '../http/gateway-headers.js';
import { clientIdentity, ClientIdentityError, type ClientIdentity } from './client-identity.js';
import { libraryDefault, libraryRange, type FlagName } from '../options/table.js';

export class ConformanceUsageError extends Error {
  readonly exitCode = 2;
  override name = 'ConformanceUsageError';
}

export const DEFAULTS = { readOnly: false, maxRequests: libraryDefault('max-requests'), timeoutMs: libraryDefault('timeout'), maxWaitMs: libraryDefault('max-wait') } as const;

export interface ConformanceOptions {
  /** Base URL ending in /v1. Absent: the embedded reference server. */
  baseUrl?: string;
  /** Required with baseUrl; sent as a bearer token, never recorded (the report keeps a fingerprint). */
  apiKey?: string;
  /**
   * The key's plan: 'free', 'pro', 'business', or an Enterprise key's limits as 'custom:500/50000'
   * or { perMinute: 500, perDay: 50000 }. X-RateLimit-Limit is checked against it (RATE-004), the
   * burst tests its per-minute limit and RATE-007 its daily quota; the report shows it as a string.
   */
  plan?: Plan | PlanLimits;
  /** Requirement ids, sections ("4.1") or areas ("LIST"); empty: all. */
  only?: readonly string[];
  /** Send no POST. */
  readOnly?: boolean;
  /** Run-wide request budget (default 400; with exhaustDailyQuota, the day's quota plus 400). */
  maxRequests?: number;
  /** Seed of the property tests (default random): the same seed replays a run. */
  seed?: number;
  /** Whole-run deadline in ms from the start. */
  deadlineMs?: number;
  /** Per-request timeout in ms (default 10 000). */
  timeoutMs?: number;
  /** Longest single wait on the target's rate limit in ms before the run stops (default 65 000). */
  maxWaitMs?: number;
  /** Extra CA certificate, PEM text, for a private TLS target. */
  ca?: string;
  /** RATE-007: use up the key's whole daily quota to see it enforced (a key made for the test only). */
  exhaustDailyQuota?: boolean;
  /**
   * Keep every exchange of the run in the report (`exchanges`: send order, key redacted, bodies cut
   * at 2,000 characters), what `renderHar` needs. Default false: the report holds evidence only.
   */
  exchangeLog?: boolean;
  /**
   * The key is the run's alone: nobody else uses it while the run lasts, so every unit the
   * rate-limit headers count must be the run's own (a server that counts twice fails RATE-002).
   * Default false: the key may be shared, and what others spend is only recorded.
   * exhaustDailyQuota implies it (it already needs a key made for the test).
   */
  dedicatedKey?: boolean;
  /**
   * CREATE-005: last in the run, send createPets whose names a store may not survive (bytes that are
   * not UTF-8, lone surrogates, NUL) and read the store after them. Stacks have stored such a name
   * and then answered 500 to every listing and getPet including it, for every client, from then on:
   * only for a store nobody else uses during the run. It implies dedicatedKey (whoever else used the
   * key would use that store), and is refused with dedicatedKey: false, readOnly or exhaustDailyQuota.
   * Default false: CREATE-005 is not exercised.
   */
  riskBreakingStore?: boolean;
  /**
   * Aborting stops the run and keeps what it found (src/api/stop.ts): nothing new is sent, requests
   * in flight get 2 s, every verdict reached stands. Aborted with a signal's name as the reason
   * (`controller.abort('SIGINT')`, 'SIGTERM', 'SIGHUP') the report says `halted: interrupted` with the
   * signal (exitCodeOf: 128 + its number); with any other reason, `halted: aborted`.
   */
  signal?: AbortSignal;
  /** Live progress: test starts and ends, requests sent, waits on the rate limit. */
  progress?: ProgressListener;
  /** Per requirement, the seed and fast-check path of a counterexample to re-send (replay). */
  replay?: RunConfig['replay'];

  // Reaching a target behind a proxy, a gateway or mutual TLS (docs/configuration.md).
  /**
   * A proxy for every request (http:// or https://, credentials in the URL), tunnelled with
   * CONNECT; '' for none, whatever the environment says. Absent: the environment's, read from
   * `env` as Node's ecosystem reads it (https_proxy/HTTPS_PROXY, http_proxy/HTTP_PROXY but not
   * HTTP_PROXY while REQUEST_METHOD is set, all_proxy/ALL_PROXY, no_proxy/NO_PROXY, the lower case
   * first; src/http/proxy-route.ts). The embedded server ignores the environment's.
   */
  proxy?: string;
  /** How messages and the report name where `proxy` came from (default "the proxy option"; the CLI's "--proxy"). */
  proxySource?: string;
  /** Where the proxy variables are read (default process.env). */
  env?: Environment;
  /**
   * Headers a gateway in front of the target needs, sent on every request (the unauthenticated
   * probes too). Values are secrets: never recorded; the report lists the names. Authorization,
   * Content-Type, Accept, Content-Length, Host, Transfer-Encoding and hop-by-hop headers are refused.
   */
  headers?: Readonly<Record<string, string>> | ReadonlyArray<readonly [string, string]>;
  /** PEM client certificate for mutual TLS (the key may be in the same text). */
  clientCert?: string;
  /** PEM private key of clientCert. */
  clientKey?: string;
  /** Passphrase of an encrypted clientKey. */
  clientKeyPassphrase?: string;
}

export type ResolvedOptions = Required<Pick<ConformanceOptions, 'readOnly' | 'maxRequests' | 'seed' | 'timeoutMs' | 'maxWaitMs'>> &
  Pick<ConformanceOptions, 'baseUrl' | 'apiKey' | 'deadlineMs' | 'ca' | 'signal' | 'progress' | 'replay' | 'exhaustDailyQuota' | 'exchangeLog' | 'riskBreakingStore'> & {
    /** Canonical: custom plans as 'custom:PER_MINUTE/PER_DAY'. */
    plan?: Plan;
    only: string[];
    keyMode: KeyMode;
    /** The requirement ids --only selects, with what they need; empty: all. */
    selected: string[];
    /** The route to the target (for the embedded server, the explicit proxy only). */
    proxy: ProxyChoice;
    gatewayHeaders: GatewayHeader[];
    clientIdentity?: ClientIdentity;
  };

/** `name`: where the URL came from, as messages name it (the CLI's flag, variable or config key). */
export function validateBaseUrl(raw: string, name = '--base-url'): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConformanceUsageError(`${name} is not a valid URL: "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConformanceUsageError(`${name} must use http or https, got "${url.protocol}"`);
  if (url.username !== '' || url.password !== '') {
    throw new ConformanceUsageError(`${name} must not carry credentials; pass the key with --api-key or PETSTORE_API_KEY`);
  }
  if (url.search !== '' || url.hash !== '') throw new ConformanceUsageError(`${name} must not have a query or fragment`);
  return url.toString().replace(/\/+$/, '');
}

/** An integer option in the option table's range (src/options/table.ts), in the library's unit. */
function integer(flag: FlagName, value: number | undefined, fallback: number): number {
  const { name, min, max } = libraryRange(flag);
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConformanceUsageError(`${name} must be an integer between ${min} and ${max}, got ${String(value)}`);
  }
  return value;
}

/** The plan option as its canonical string; a malformed one is a usage error showing the expected form. */
export function resolvePlan(plan: unknown): Plan | undefined {
  if (plan === undefined || plan === '') return undefined;
  try {
    return parsePlan(plan);
  } catch (error) {
    if (error instanceof PlanError) throw new ConformanceUsageError(error.message);
    throw error;
  }
}

/** The plan whose daily quota RATE-007 uses up, when known before the run: the embedded server's key is a Free key. */
export function dailyQuotaPlan(plan: Plan | undefined, baseUrl: string | undefined): Plan | undefined {
  return plan ?? (baseUrl === undefined ? 'free' : undefined);
}

/**
 * The request budget of a run. With the daily-quota opt-in it is what the day needs, the plan's
 * daily quota plus a run's default budget, unless the user chose one: a smaller choice is a usage
 * error naming the number needed, since the run would stop short of the 429 it is meant to see.
 */
export function requestBudget(options: { plan?: Plan | undefined; baseUrl?: string | undefined; exhaustDailyQuota?: boolean | undefined; maxRequests?: number | undefined }): number {
  const { maxRequests } = options;
  if (options.exhaustDailyQuota !== true) return maxRequests ?? DEFAULTS.maxRequests;
  const plan = dailyQuotaPlan(options.plan, options.baseUrl);
  if (plan === undefined) {
    // A target's advertised Limit may still name a published plan, but only a budget chosen for it can afford that day.
    if (maxRequests !== undefined) return maxRequests;
    throw new ConformanceUsageError(`--exhaust-daily-quota on a remote target needs --plan to size the run's budget to the day's quota, or --max-requests of at least that quota plus ${DEFAULTS.maxRequests}; --plan takes ${PLAN_FORM}`);
  }
  const perDay = planLimits(plan).perDay;
  const needed = perDay + DEFAULTS.maxRequests;
  if (maxRequests === undefined) return needed;
  if (maxRequests < needed) {
    throw new ConformanceUsageError(
      `--exhaust-daily-quota on the ${plan} plan needs --max-requests of at least ${needed} (the day's ${perDay} requests plus ${DEFAULTS.maxRequests} for the run), got ${maxRequests}; leave --max-requests out to get exactly that`,
    );
  }
  return maxRequests;
}

/** Defaults filled in and every value checked; throws ConformanceUsageError on the first mistake. */
export function resolveOptions(options: ConformanceOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw new ConformanceUsageError('the options must be an object');
  const baseUrl = options.baseUrl === undefined || options.baseUrl === '' ? undefined : validateBaseUrl(options.baseUrl);
  const apiKey = options.apiKey === '' ? undefined : options.apiKey;
  if (apiKey !== undefined && /[\r\n]/.test(apiKey)) throw new ConformanceUsageError('the API key must not contain line breaks');
  if (baseUrl !== undefined && apiKey === undefined) {
    throw new ConformanceUsageError('an API key is required for a remote target: set PETSTORE_API_KEY or pass --api-key');
  }
  const plan = resolvePlan(options.plan);
  const only = [...(options.only ?? [])];
  let selected: string[];
  try {
    selected = only.length === 0 ? [] : [...selectRequirements(only)];
  } catch (error) {
    throw new ConformanceUsageError(`--only: ${(error as Error).message}`);
  }
  checkRiskBreakingStore(options, LIBRARY_NAMES);
  const chosen = options.maxRequests === undefined ? undefined : integer('max-requests', options.maxRequests, DEFAULTS.maxRequests);
  const maxRequests = requestBudget({ plan, baseUrl, exhaustDailyQuota: options.exhaustDailyQuota, maxRequests: chosen });
  return {
    ...(baseUrl === undefined ? {} : { baseUrl }),
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(plan === undefined ? {} : { plan }),
    only,
    selected,
    readOnly: options.readOnly ?? DEFAULTS.readOnly,
    maxRequests,
    seed: integer('seed', options.seed, randomInt(0, 2 ** 31 - 1)),
    timeoutMs: integer('timeout', options.timeoutMs, DEFAULTS.timeoutMs),
    maxWaitMs: integer('max-wait', options.maxWaitMs, DEFAULTS.maxWaitMs),
    ...(options.deadlineMs === undefined ? {} : { deadlineMs: integer('deadline', options.deadlineMs, 0) }),
    ...(options.ca === undefined ? {} : { ca: options.ca }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.progress === undefined ? {} : { progress: options.progress }),
    ...(options.replay === undefined ? {} : { replay: options.replay }),
    ...(options.exhaustDailyQuota === true ? { exhaustDailyQuota: true } : {}),
    ...(options.exchangeLog === true ? { exchangeLog: true } : {}),
    ...(options.riskBreakingStore === true ? { riskBreakingStore: true } : {}),
    keyMode: keyModeOf(options),
    ...reachOf(options, baseUrl),
  };
}

/** Where an embedded run is served: the route to it depends on the explicit proxy only. */
const EMBEDDED_ORIGIN = 'http://127.0.0.1';

/** The proxy, gateway headers and client certificate, checked; every mistake a usage error. */
function reachOf(options: ConformanceOptions, baseUrl: string | undefined): Pick<ResolvedOptions, 'proxy' | 'gatewayHeaders' | 'clientIdentity'> {
  try {
    const headers = options.headers === undefined ? [] : Array.isArray(options.headers) ? options.headers : Object.entries(options.headers);
    const identity = clientIdentity({ cert: options.clientCert, key: options.clientKey, passphrase: options.clientKeyPassphrase });
    return {
      // The embedded server is this process's: a corporate proxy from the environment could not reach it.
      proxy: chooseProxy(baseUrl ?? EMBEDDED_ORIGIN, { explicit: options.proxy, env: baseUrl === undefined ? {} : (options.env ?? process.env), labels: { explicit: options.proxySource ?? 'the proxy option' } }),
      gatewayHeaders: mergeGatewayHeaders([{ where: 'headers', headers: headers.map(([name, value]) => ({ name, value })) }]),
      ...(identity === undefined ? {} : { clientIdentity: identity }),
    };
  } catch (error) {
    if (error instanceof ProxyConfigError || error instanceof GatewayHeaderError || error instanceof ClientIdentityError) throw new ConformanceUsageError(error.message);
    throw error;
  }
}

/**
 * Dedicated when asked for, or when the run uses up the day's quota (only done on a key made for
 * the test), or risks breaking the store (a store nobody else uses has no other client of its key).
 */
export function keyModeOf(options: Pick<ConformanceOptions, 'dedicatedKey' | 'exhaustDailyQuota' | 'riskBreakingStore'>): KeyMode {
  if (options.dedicatedKey !== undefined && typeof options.dedicatedKey !== 'boolean') {
    throw new ConformanceUsageError(`dedicatedKey must be true or false, got ${JSON.stringify(options.dedicatedKey)}`);
  }
  return options.dedicatedKey === true || options.exhaustDailyQuota === true || options.riskBreakingStore === true ? 'dedicated' : 'shared';
}

/** How the options the risk depends on are named to the user: the library's names, or the CLI's flags and config file. */
export interface RiskOptionNames {
  risk: string;
  readOnly: string;
  exhaustDailyQuota: string;
  /** The declaration that the key (so the store) is shared. */
  shared: string;
}

const LIBRARY_NAMES: RiskOptionNames = { risk: 'riskBreakingStore', readOnly: 'readOnly', exhaustDailyQuota: 'exhaustDailyQuota', shared: 'dedicatedKey: false' };

/**
 * --risk-breaking-store asks for what only a store nobody else uses can give: refused, one line,
 * with a key declared shared (whoever else uses the key uses that store, and would meet it broken),
 * with --read-only (its probes are createPets), and with --exhaust-daily-quota (its probes go last,
 * and the day's quota used up leaves none for them: run it on its own).
 */
export function checkRiskBreakingStore(options: Pick<ConformanceOptions, 'riskBreakingStore' | 'readOnly' | 'exhaustDailyQuota' | 'dedicatedKey'>, names: RiskOptionNames): void {
  const risk = options.riskBreakingStore;
  if (risk !== undefined && typeof risk !== 'boolean') throw new ConformanceUsageError(`${names.risk} must be true or false, got ${JSON.stringify(risk)}`);
  if (risk !== true) return;
  const why = 'it sends names a store may not survive (bytes that are not UTF-8, lone surrogates, NUL), which can leave it answering 500 to every client';
  if (options.dedicatedKey === false) {
    throw new ConformanceUsageError(`${names.risk} cannot be used with ${names.shared}: ${why}, and a key others use reaches the store they use; it implies a dedicated key`);
  }
  if (options.readOnly === true) throw new ConformanceUsageError(`${names.risk} cannot be used with ${names.readOnly}: its probes are createPets`);
  if (options.exhaustDailyQuota === true) {
    throw new ConformanceUsageError(`${names.risk} cannot be used with ${names.exhaustDailyQuota}: its probes go last, and the day's quota used up leaves none for them; run each on its own`);
  }
}
