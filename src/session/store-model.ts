/**
 * What the run knows of the store: the census, every pet a response showed, the pets this run
 * created (and PET-002's finding when two creations got one id), the markers of the requests
 * that may create a pet, and the brackets around refused ones. No HTTP of its own: the requests
 * it needs (the census listing, a bracket's creation) go through the senders it is given.
 */
import { petsOf } from '../checks/pet-shape.js';
import { shownOnlyBy, violation, type Finding } from '../checks/finding.js';
import { jsonBody, operationOf } from '../checks/body.js';
import { isJsonObject, stringifyJson, type JsonObject } from '../interface/json.js';
import { validate } from '../interface/validators.js';
import type { Exchange } from '../http/exchange.js';
import { ProbeLedger, type RefusalRequirement } from './probes.js';
import { idOf, samePet, sendOrderIndex } from './ids.js';

export interface Census {
  exchange: Exchange;
  /** Pets of a limit=100 listing; empty when the listing failed. */
  pets: JsonObject[];
  /** True when the listing returned fewer than 100 pets: it then shows the whole store. */
  wholeStore: boolean;
  ok: boolean;
}

/** The requests and the record the store model works through (the session's client and ledger). */
export interface StoreModelPorts {
  runId: string;
  /** Sends the census: GET /pets?limit=100. */
  listStore: () => Promise<Exchange>;
  /** Sends one valid creation with this JSON body. */
  create: (body: string, purpose: string) => Promise<Exchange>;
  /** The run's record of the exchange with this seq. */
  exchangeOf: (seq: number) => Exchange | undefined;
  /** Where PET-002's findings go. */
  record: (findings: readonly Finding[]) => void;
}

export class StoreModel {
  readonly #ports: StoreModelPorts;
  /** Markers of the requests that may create a pet, and what the service did with each. */
  readonly probes: ProbeLedger;
  readonly #createdIds: string[] = [];
  readonly #createdPets: JsonObject[] = [];
  /** The seq of the exchange that created each pet of createdPets. */
  readonly #createdAtSeq = new Map<JsonObject, number>();
  /** Ids that two creations of this run received for different pets (PET-002's finding): a store can show only one pet under each. */
  readonly #sharedIds = new Set<string>();
  readonly #knownPets = new Map<string, JsonObject>();
  readonly #fetchedPets: Array<{ pet: JsonObject; exchange: Exchange }> = [];
  readonly #shownWithContent = new Map<JsonObject, number>();
  readonly #laggedReads = new Set<number>();
  #census: Promise<Census> | undefined;
  /** The first census that showed a full page: from then on the store is known to hold 100 pets or more. */
  #fullPage: Census | undefined;
  /** The creation that opened each requirement's bracket, once asked for. */
  readonly #bracketsOpened = new Map<RefusalRequirement, Promise<void>>();

  constructor(ports: StoreModelPorts) {
    this.#ports = ports;
    this.probes = new ProbeLedger(ports.runId);
  }

  /** Ids (as decimal strings, exact) of pets this run created, in send order. */
  get createdIds(): readonly string[] {
    return this.#createdIds;
  }

  /**
   * Pets this run created, as the service returned them, for later fetches: in send order, as
   * creations sent together may be answered in any order.
   */
  get createdPets(): readonly JsonObject[] {
    return this.#createdPets;
  }

  /**
   * Every pet any response of the run showed, by exact id. The spec has no delete, so this is a
   * lower bound on the store's size that does not depend on the listing being judged.
   */
  get knownPets(): ReadonlyMap<string, JsonObject> {
    return this.#knownPets;
  }

  /** Every getPet of a pet the run knew (a listed or a created one), in send order: GET-001 judges CREATE-002's too. */
  get fetchedPets(): ReadonlyArray<{ pet: JsonObject; exchange: Exchange }> {
    return this.#fetchedPets;
  }

  noteFetched(pet: JsonObject, exchange: Exchange): void {
    this.#fetchedPets.push({ pet, exchange });
  }

  /** The seq of the first fetch that showed this created pet with its content: from then on it must stay so. */
  shownWithContentAt(pet: JsonObject): number | undefined {
    return this.#shownWithContent.get(pet);
  }

  noteShownWithContent(pet: JsonObject, seq: number): void {
    this.#shownWithContent.set(pet, seq);
  }

  /** Reads of created pets that did not find them yet and were made again within the read-after-write grace (suites/fetch-pet.ts). */
  get laggedReads(): ReadonlySet<number> {
    return this.#laggedReads;
  }

  noteLaggedRead(seq: number): void {
    this.#laggedReads.add(seq);
  }

  /** A limit=100 listing, made once and shared by every test that needs to know the store. */
  census(): Promise<Census> {
    this.#census ??= this.#takeCensus();
    return this.#census;
  }

  /** Forget the census, so the next reader sees the store as it now is. */
  invalidateCensus(): void {
    this.#census = undefined;
  }

  /**
   * After writes: forget the census, unless it showed a full page. Pets are never deleted, so a
   * store that filled a limit=100 page still does, and that is all its readers take from such a
   * census (ids and categories that exist, "one listing cannot show the store"): a new listing
   * would cost a request of the key's window and tell them nothing more.
   */
  storeWritten(): void {
    if (this.#fullPage === undefined) this.invalidateCensus();
  }

  /** A census that showed a full limit=100 page, once one did: the store holds 100 pets or more, now and later. */
  get fullPageCensus(): Census | undefined {
    return this.#fullPage;
  }

  /**
   * Makes sure a valid creation precedes the first request of a requirement that may be refused,
   * with nothing but refused createPets between, so its refused requests can be bracketed by two
   * ids (suites/rejected-writes.ts). Free when the run's latest createPet was accepted, or was
   * refused like every one since the last accepted: AUTH-004's refused requests then share
   * CREATE-004's bracket (a pet stored from any refused request carries that request's marker).
   */
  openBracket(requirement: RefusalRequirement): Promise<void> {
    let opened = this.#bracketsOpened.get(requirement);
    if (opened === undefined) {
      opened = (async () => {
        if (this.probes.bracketOpen) return;
        await this.createMarked('bracket');
      })();
      this.#bracketsOpened.set(requirement, opened);
    }
    return opened;
  }

  /** One valid creation named with a fresh marker, of a category the server shows (for brackets). */
  async createMarked(purpose: string): Promise<Exchange> {
    const [categoryId] = await this.knownCategoryIds();
    const ex = await this.#ports.create(this.markedNewPet(purpose, categoryId ?? 1n), purpose);
    this.recordIfCreated(ex);
    return ex;
  }

  /** A valid NewPet body (available, of `categoryId`) named with a fresh marker and `purpose`. */
  markedNewPet(purpose: string, categoryId: bigint): string {
    return stringifyJson({ name: `${this.probes.next()}${purpose}`, categoryId, status: 'available' });
  }

  /** The pet a 201 created, remembered (recordCreated): listed with the run's other creations, so the report names every pet the run added. */
  recordIfCreated(ex: Exchange): void {
    const created = ex.response?.status === 201 ? jsonBody(ex) : undefined;
    if (created?.ok === true && isJsonObject(created.value)) this.recordCreated(created.value, ex);
  }

  /**
   * The pets whose values the run may reuse to build requests that must be valid: those that pass
   * the Pet schema (ids and categoryIds in the int64 range) and are not a body the server should
   * have refused. An invalid pet in the store is PET-001's finding and must not spoil other requirements.
   */
  usable(pets: Iterable<JsonObject>): JsonObject[] {
    return [...pets].filter((pet) => !this.probes.isAcceptedInvalid(pet) && isValidPet(pet));
  }

  /** categoryIds the server shows on some usable pet (the census and every pet seen since), in a stable order. */
  async knownCategoryIds(): Promise<bigint[]> {
    const census = await this.census();
    return [...new Set(this.shownCategoryIds([...census.pets, ...this.#knownPets.values()]))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** categoryIds of the usable pets among `pets`, in their order (repeats included): no request, unlike knownCategoryIds. */
  shownCategoryIds(pets: Iterable<JsonObject>): bigint[] {
    return this.usable(pets).flatMap((pet) => {
      const value = pet['categoryId'];
      return typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value)) ? [BigInt(value)] : [];
    });
  }

  /**
   * Remember a created pet. A creation answered with an id another creation of this run received
   * for a different pet breaks PET-002, shown by both exchanges. The same pet in both answers is
   * one pet shown to two requests, not two pets sharing an id: the answer that does not echo its
   * request is CREATE-001's finding.
   */
  recordCreated(pet: JsonObject, ex: Exchange): void {
    const id = idOf(pet);
    if (id === undefined) return;
    const key = id.toString();
    for (const other of this.#createdPets) {
      const otherSeq = this.#createdAtSeq.get(other);
      if (idOf(other) !== id || otherSeq === undefined || samePet(other, pet)) continue;
      this.#sharedIds.add(key);
      this.#ports.record(sharedIdFindings(key, ex.seq, otherSeq));
    }
    const at = sendOrderIndex(this.#createdPets, ex.seq, (p) => this.#createdAtSeq.get(p));
    this.#createdIds.splice(at, 0, key);
    this.#createdPets.splice(at, 0, pet);
    this.#createdAtSeq.set(pet, ex.seq);
  }

  /** The seq of the exchange whose 201 returned this pet (an object of createdPets). */
  creationSeqOf(pet: JsonObject): number | undefined {
    return this.#createdAtSeq.get(pet);
  }

  /** Whether two creations of this run received this id for different pets (PET-002's finding). */
  isSharedId(id: bigint): boolean {
    return this.#sharedIds.has(id.toString());
  }

  /** The exchange that created a pet of createdPets, as the run's record keeps it (a long body cut to the evidence's limit). */
  creationOf(pet: JsonObject): Exchange | undefined {
    const seq = this.#createdAtSeq.get(pet);
    return seq === undefined ? undefined : this.#ports.exchangeOf(seq);
  }

  async #takeCensus(): Promise<Census> {
    const exchange = await this.#ports.listStore();
    const ok = exchange.response?.status === 200;
    const pets = ok ? petsOf(exchange) : [];
    const census = { exchange, pets, ok, wholeStore: ok && pets.length < 100 };
    if (ok && !census.wholeStore) this.#fullPage ??= census;
    return census;
  }

  /**
   * Pets this run created with that status (as the 201 echoed it) by an exchange before `seq`: a
   * listing sent at `seq` must know them. Not those whose id two creations received (PET-002's
   * finding): the store can list only one of them.
   */
  createdBefore(seq: number, status: string): JsonObject[] {
    return this.#createdPets.filter((pet) => {
      const at = this.#createdAtSeq.get(pet);
      const id = idOf(pet);
      return pet['status'] === status && at !== undefined && at < seq && id !== undefined && !this.isSharedId(id);
    });
  }

  /** At least this many pets exist: what the census shows, or more if other responses showed more. */
  async availableAtLeast(): Promise<number> {
    const census = await this.census();
    return Math.max(census.pets.length, this.#knownPets.size);
  }

  /** Every exchange of the run, as it arrives: the pets it shows, and what the service did with a marked request. */
  observe(ex: Exchange): void {
    this.#remember(ex);
    this.probes.note(ex);
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
      const id = idOf(pet);
      if (id !== undefined) this.#knownPets.set(id.toString(), pet);
    }
  }
}

/** Pet objects already validated: the census and knownPets hand the same objects over and over. */
const validity = new WeakMap<JsonObject, boolean>();

function isValidPet(pet: JsonObject): boolean {
  let valid = validity.get(pet);
  if (valid === undefined) {
    valid = validate('Pet', pet).length === 0;
    validity.set(pet, valid);
  }
  return valid;
}

/**
 * PET-002's two findings for an id two creations received for different pets: one cites each
 * exchange, so both are evidence (a finding names one exchange).
 */
function sharedIdFindings(id: string, seq: number, otherSeq: number): Finding[] {
  const expected = 'Expected a new unique id for every creation';
  const sequence = 'two creations given one id';
  return [
    shownOnlyBy(violation('PET-002', `Received for a new pet an id that another creation of this run received for a different pet / ${expected}`, seq, `id ${id}; the other creation: exchange #${otherSeq}`), sequence),
    shownOnlyBy(violation('PET-002', `Received for a new pet an id that another creation of this run then received too, for a different pet / ${expected}`, otherSeq, `id ${id}; the other creation: exchange #${seq}`), sequence),
  ];
}
