/**
 * Where every exchange goes as it arrives: first to the observers (what the run learns from it:
 * the exchange log, the store model), then to the server's clock, then to each registered check
 * in the order registered, whose findings go to the ledger. The checks are the run's own list
 * (src/session/run-checks.ts); a check that compares an exchange with earlier ones keeps what it
 * compares with itself.
 */
import { ServerClockReading, type ServerClock } from '../checks/server-clock.js';
import type { Finding } from '../checks/finding.js';
import type { Exchange } from '../http/exchange.js';

/** What a check reads besides the exchange. */
export interface CheckContext {
  /** The run's record so far (client.exchanges), this exchange included. */
  readonly exchanges: readonly Exchange[];
  /** The server's clock as the Date headers up to this exchange show it; undefined before any Date. */
  readonly clock: ServerClock | undefined;
}

export type ExchangeCheck = (ex: Exchange, context: CheckContext) => readonly Finding[];

export class CheckPipeline {
  readonly #record: (findings: readonly Finding[]) => void;
  readonly #exchanges: () => readonly Exchange[];
  readonly #observers: Array<(ex: Exchange) => void> = [];
  readonly #checks: ExchangeCheck[] = [];
  /** The server's clock, read from every response's Date as it arrives (src/checks/server-clock.ts). */
  readonly #clock = new ServerClockReading();

  constructor(record: (findings: readonly Finding[]) => void, exchanges: () => readonly Exchange[]) {
    this.#record = record;
    this.#exchanges = exchanges;
  }

  /** Told of every exchange before the checks see it. */
  observe(observer: (ex: Exchange) => void): void {
    this.#observers.push(observer);
  }

  register(...checks: ExchangeCheck[]): void {
    this.#checks.push(...checks);
  }

  /** The server's clock as the run's Date headers have shown it so far; undefined before any Date. */
  get clock(): ServerClock | undefined {
    return this.#clock.clock;
  }

  inspect(ex: Exchange): void {
    for (const observer of this.#observers) observer(ex);
    this.#clock.observe(ex);
    const context: CheckContext = { exchanges: this.#exchanges(), clock: this.#clock.clock };
    for (const check of this.#checks) this.#record(check(ex, context));
  }
}
