/**
 * The run's shared state on the worker side: one client (so one rate-limit account and one
 * request budget for every suite), the ledger of findings, the census of the store, the
 * property-run plan, and the pets this run created. Suites get it through getSession().
 */
import { inject } from 'vitest';
import { crossCuttingChecks } from '../checks/cross-cutting.js';
import { checkRemainingFalls } from '../checks/rate-limit-sequence.js';
import { petsOf } from '../checks/pet-shape.js';
import { violation } from '../checks/finding.js';
import { isJsonObject, parseJson, type JsonObject } from '../interface/json.js';
import { jsonBody, operationOf } from '../checks/body.js';
import { createClient, type ConformanceClient } from '../http/client.js';
import type { Exchange } from '../http/exchange.js';
import type { RunConfig } from '../run-config.js';
import { Ledger } from './ledger.js';
import { encodeProgress } from '../conformance/progress.js';
import { planPropertyRuns, type RunPlan } from './budget-plan.js';
import { invalidNewPetExamples } from '../arbitraries/invalidNewPet.js';
import { statusValues } from '../interface/openapi.js';

/** CREATE-001 sends one pet of each status and CREATE-003 one body of each invalid class first. */
const PROPERTY_EXAMPLE_REQUESTS = statusValues().length + invalidNewPetExamples({ marker: '' }).length;

export interface Census {
  exchange: Exchange;
  /** Pets of a limit=100 listing; empty when the listing failed. */
  pets: JsonObject[];
  /** True when the listing returned fewer than 100 pets: it then shows the whole store. */
  wholeStore: boolean;
  ok: boolean;
}

export class Session {
  readonly config: RunConfig;
  readonly client: ConformanceClient;
  readonly ledger = new Ledger();
  /** Ids (as decimal strings, exact) of pets this run created. */
  readonly createdIds: string[] = [];
  /** Pets this run created, as the service returned them, for later fetches. */
  readonly createdPets: JsonObject[] = [];
  /** The seq of the exchange that created each pet of createdPets, by exact id. */
  readonly #createdAtSeq = new Map<string, number>();
  /**
   * Every pet any response of the run showed, by exact id. The spec has no delete, so this is a
   * lower bound on the store's size that does not depend on the listing being judged.
   */
  readonly knownPets = new Map<string, JsonObject>();
  /**
   * Names sent in createPet requests the service refused (4xx), by the requirement that later
   * checks they were not stored (CREATE-004 for invalid bodies, AUTH-004 for missing credentials).
   */
  readonly refusedNames = new Map<string, Set<string>>();
  #census: Promise<Census> | undefined;
  readonly #memo = new Map<string, Promise<unknown>>();
  #plan: RunPlan | undefined;
  #previousKeyed: Exchange | undefined;

  constructor(config: RunConfig) {
    this.config = config;
    this.client = createClient({
      baseUrl: config.baseUrl,
      apiKey: config.apiKey,
      timeoutMs: config.timeoutMs,
      maxBodyBytes: config.maxBodyBytes,
      maxRequests: config.maxRequests,
      maxWaitMs: config.maxWaitMs,
      ...(config.deadlineAt === undefined ? {} : { deadlineAt: config.deadlineAt }),
      ...(config.ca === undefined ? {} : { ca: config.ca }),
      onExchange: (ex) => this.#inspect(ex),
      onWait: (ms, reason) => console.info(encodeProgress({ kind: 'wait', ms, reason, requests: this.client.stats.requests })),
    });
  }

  /** Marker carried in the names of everything this run creates or tries to create. */
  get namePrefix(): string {
    return `pc-${this.config.runId}-`;
  }

  isSelected(requirement: string): boolean {
    return this.config.selected.length === 0 || this.config.selected.includes(requirement);
  }

  /** A limit=100 listing, made once and shared by every test that needs to know the store. */
  census(): Promise<Census> {
    this.#census ??= this.#takeCensus();
    return this.#census;
  }

  /** One request's answer shared by every test that can use it (requests are the scarce resource). */
  memo<T>(key: string, make: () => Promise<T>): Promise<T> {
    let value = this.#memo.get(key) as Promise<T> | undefined;
    if (value === undefined) {
      value = make();
      this.#memo.set(key, value);
    }
    return value;
  }

  /** Forget the census after writes, so the next reader sees the store as it now is. */
  invalidateCensus(): void {
    this.#census = undefined;
  }

  /** The property-run plan, fixed once from the first census and the budget left then. */
  async plan(): Promise<RunPlan> {
    if (this.#plan === undefined) {
      await this.census();
      const remaining = this.client.rateLimit.remaining;
      this.#plan = planPropertyRuns({
        budgetLeft: this.client.remainingBudget(),
        ...(remaining === undefined ? {} : { windowRemaining: remaining }),
        writes: !this.config.readOnly,
        exampleRequests: this.config.readOnly ? 0 : PROPERTY_EXAMPLE_REQUESTS,
      });
    }
    return this.#plan;
  }

  /** Remember the name a refused createPet carried, for the requirement that checks it was not stored. */
  recordRefused(requirement: string, ex: Exchange): void {
    const status = ex.response?.status ?? 0;
    if (status < 400 || status >= 500 || ex.request.body === undefined) return;
    const body = parseJson(ex.request.body);
    const name = body.ok && isJsonObject(body.value) ? body.value['name'] : undefined;
    if (typeof name !== 'string' || !name.startsWith(this.namePrefix)) return;
    const names = this.refusedNames.get(requirement) ?? new Set<string>();
    names.add(name);
    this.refusedNames.set(requirement, names);
  }

  /** Remember a created pet; a second creation answered with an id already handed out breaks PET-002. */
  recordCreated(pet: JsonObject, ex: Exchange): void {
    const id = pet['id'];
    if ((typeof id === 'number' && Number.isInteger(id)) || typeof id === 'bigint') {
      const key = BigInt(id).toString();
      if (this.createdIds.includes(key)) {
        this.ledger.add([violation('PET-002', `Received id ${key} for a new pet / Expected a new unique id (already returned by an earlier creation in this run)`, ex.seq)]);
      }
      this.createdIds.push(key);
      this.createdPets.push(pet);
      this.#createdAtSeq.set(key, ex.seq);
    }
  }

  async #takeCensus(): Promise<Census> {
    const exchange = await this.client.send({
      method: 'GET',
      path: '/pets',
      query: [['limit', '100']],
      purpose: 'census',
    });
    const ok = exchange.response?.status === 200;
    const pets = ok ? petsOf(exchange) : [];
    return { exchange, pets, ok, wholeStore: ok && pets.length < 100 };
  }

  /** Pets this run created with that status (as the 201 echoed it) by an exchange before `seq`: a listing sent at `seq` must know them. */
  createdBefore(seq: number, status: string): JsonObject[] {
    return this.createdPets.filter((pet) => {
      const id = pet['id'];
      const at = typeof id === 'bigint' || typeof id === 'number' ? this.#createdAtSeq.get(BigInt(id).toString()) : undefined;
      return pet['status'] === status && at !== undefined && at < seq;
    });
  }

  /** At least this many pets exist: what the census shows, or more if other responses showed more. */
  async availableAtLeast(): Promise<number> {
    const census = await this.census();
    return Math.max(census.pets.length, this.knownPets.size);
  }

  #remember(ex: Exchange): void {
    const status = ex.response?.status;
    const op = operationOf(ex);
    if (!((op === 'listPets' && status === 200) || (op === 'createPet' && status === 201) || (op === 'getPet' && status === 200))) return;
    const body = jsonBody(ex);
    if (body === undefined || !body.ok) return;
    const pets = Array.isArray(body.value) ? body.value : [body.value];
    for (const pet of pets) {
      if (!isJsonObject(pet)) continue;
      const id = pet['id'];
      if ((typeof id === 'number' && Number.isInteger(id)) || typeof id === 'bigint') this.knownPets.set(BigInt(id).toString(), pet);
    }
  }

  #inspect(ex: Exchange): void {
    this.#remember(ex);
    this.ledger.add(crossCuttingChecks(ex, this.config.plan === undefined ? {} : { plan: this.config.plan }));
    if (ex.request.auth === 'key' && ex.response !== undefined) {
      if (this.#previousKeyed !== undefined) this.ledger.add(checkRemainingFalls(this.#previousKeyed, ex));
      this.#previousKeyed = ex;
    }
  }
}

let current: Session | undefined;

export function getSession(): Session {
  current ??= new Session(inject('runConfig'));
  return current;
}
