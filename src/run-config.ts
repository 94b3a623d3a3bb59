/**
 * What the CLI (main process) hands to the suites (vitest worker) through `provide`/`inject`.
 * It is serialisable by design. The key travels only here, never in test meta or annotations,
 * which the reporter persists.
 */
import type { Plan } from './plans.js';
import type { GatewayHeader } from './http/gateway-headers.js';
import type { ProxyChoice } from './http/proxy-route.js';
import type { ClientCertificate } from './http/transport.js';
import type { SequenceCommand } from './report/types.js';

/**
 * 'shared' (the default): other clients may use the key during the run, so consumption the run did
 * not cause is recorded, never held against the server. 'dedicated' (--dedicated-key): nobody
 * else uses it, so every unit the rate-limit headers count must be the run's own.
 */
export type KeyMode = 'shared' | 'dedicated';

export interface RunConfig {
  baseUrl: string;
  apiKey: string;
  seed: number;
  /** Short lower-case id of this run; created pets carry it in their names. */
  runId: string;
  readOnly: boolean;
  maxRequests: number;
  timeoutMs: number;
  maxBodyBytes: number;
  /** Longest single wait on the target's rate limit before the run stops instead. */
  maxWaitMs: number;
  /** Unix ms after which the client sends nothing more (--deadline). */
  deadlineAt?: number;
  plan?: Plan;
  /** Selected requirement ids; empty means all. */
  selected: string[];
  /**
   * Replay: per requirement, the seed and fast-check path of the counterexample to re-send, or the
   * model-based sequence to send again, command by command.
   */
  replay?: Record<string, { seed: number; path: string; sequence?: SequenceCommand[] }>;
  /** Extra PEM CA for TLS targets. */
  ca?: string;
  /** RATE-007 opt-in (--exhaust-daily-quota): use up the key's daily quota. */
  exhaustDailyQuota?: boolean;
  /** CREATE-005 opt-in (--risk-breaking-store): last in the run, names a store may not survive, and reads after them. */
  riskBreakingStore?: boolean;
  /** Send every exchange to the main side as it completes, for Report.exchanges (--reporter har). */
  exchangeLog?: boolean;
  /** Absent: 'shared'. */
  keyMode?: KeyMode;
  /**
   * The client's margin on every rate-limit wait, in ms; absent: its default (250 ms, for other
   * clocks and whole seconds). Set for the embedded reference server only (src/api/run.ts).
   */
  waitMarginMs?: number;

  // Reaching the target (docs/configuration.md): secrets, like apiKey, and like it never in test meta.
  /** Sent on every request. */
  gatewayHeaders?: GatewayHeader[];
  /** The route every request takes (src/http/proxy-route.ts). */
  proxy?: ProxyChoice;
  clientCertificate?: ClientCertificate;
  /**
   * Name of the BroadcastChannel on which the main thread stops the run (src/session/stop-channel.ts);
   * absent when nothing can stop it (the suites inside a user's own vitest run).
   */
  stopChannel?: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    runConfig: RunConfig;
  }
}
