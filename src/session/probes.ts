/**
 * One probe, one marker: every request that may create a pet names it with a marker of its own
 * (`pc-<runId>-<n>-`), and this ledger remembers what the service did with each. A stored pet
 * whose name carries a marker is then tied to exactly one request, so "a refused createPet was
 * stored" is said only of a marker that was never sent in an accepted request.
 */
import { isJsonObject, parseJson, type JsonObject, type JsonValue } from '../interface/json.js';
import { validate } from '../interface/validators.js';
import type { Exchange } from '../http/exchange.js';
import { operationOf } from '../checks/body.js';
import { petsOf } from '../checks/pet-shape.js';
import { idOf, sendOrderIndex } from './ids.js';

/** A creation the service accepted, in the order the run sent them. */
export interface Creation {
  id: bigint;
  seq: number;
}

/** The requirement that checks a refused createPet stored nothing: AUTH-004 for requests without a valid key. */
export type RefusalRequirement = 'CREATE-004' | 'AUTH-004';

export class ProbeLedger {
  readonly #prefix: string;
  readonly #pattern: RegExp;
  #next = 0;
  readonly #accepted = new Set<string>();
  /** Markers of 201s whose request was not a valid NewPet: their pets are CREATE-003's finding. */
  readonly #acceptedInvalid = new Set<string>();
  readonly #refused = new Map<RefusalRequirement, Map<string, Exchange>>();
  readonly #creations: Creation[] = [];
  #lastAccepted = false;
  /** A creation was accepted and every createPet answered since was refused with a 4xx (not a 429). */
  #acceptedThenRefused = false;

  constructor(runId: string) {
    this.#prefix = `pc-${runId}-`;
    this.#pattern = new RegExp(`pc-${runId.replace(/[^0-9A-Za-z]/g, '\\$&')}-([0-9]+)-`);
  }

  /** A marker used by no other request of the run. */
  next(): string {
    this.#next += 1;
    return `${this.#prefix}${this.#next}-`;
  }

  /** The marker a name or body text carries, if it is one of this run's. */
  markerIn(text: string): string | undefined {
    const match = this.#pattern.exec(text);
    return match === null ? undefined : `${this.#prefix}${match[1]}-`;
  }

  /** The marker of a pet's name, when the pet is one of this run's probes. */
  markerOf(pet: JsonValue): string | undefined {
    return isJsonObject(pet) && typeof pet['name'] === 'string' ? this.markerIn(pet['name']) : undefined;
  }

  /** Every exchange of the run passes here; createPet answers are filed by their marker. */
  note(ex: Exchange): void {
    if (operationOf(ex) !== 'createPet' || ex.response === undefined) return;
    const status = ex.response.status;
    this.#lastAccepted = status >= 200 && status < 300;
    this.#acceptedThenRefused = this.#lastAccepted || (this.#acceptedThenRefused && status >= 400 && status < 500 && status !== 429);
    if (this.#lastAccepted) this.#noteCreations(ex);
    const marker = this.markerIn(ex.request.body ?? '');
    if (marker === undefined) return;
    if (status >= 200 && status < 300) {
      this.#accepted.add(marker);
      if (!isValidNewPet(ex.request.body ?? '')) this.#acceptedInvalid.add(marker);
      return;
    }
    // A 429 was not processed at all: whatever it left behind is not a refusal's doing.
    if (status < 400 || status >= 500 || status === 429) return;
    const requirement: RefusalRequirement = ex.request.auth === 'key' ? 'CREATE-004' : 'AUTH-004';
    const refused = this.#refused.get(requirement) ?? new Map<string, Exchange>();
    refused.set(marker, ex);
    this.#refused.set(requirement, refused);
  }

  #noteCreations(ex: Exchange): void {
    for (const pet of petsOf(ex)) {
      const id = idOf(pet);
      // In send order: creations sent together may be answered in any order.
      if (id !== undefined) this.#creations.splice(sendOrderIndex(this.#creations, ex.seq, (c) => c.seq), 0, { id, seq: ex.seq });
    }
  }

  /** Refused requests a stored pet could be traced to: markers only ever sent in refused requests. */
  refused(requirement: RefusalRequirement): ReadonlyMap<string, Exchange> {
    const all = this.#refused.get(requirement) ?? new Map<string, Exchange>();
    return new Map([...all].filter(([marker]) => !this.#accepted.has(marker)));
  }

  /** The refused request a pet came from, when its name carries the marker of one (for this requirement). */
  refusedSource(pet: JsonObject, requirement: RefusalRequirement): Exchange | undefined {
    const marker = this.markerOf(pet);
    return marker === undefined ? undefined : this.refused(requirement).get(marker);
  }

  /** True for a pet the service created from a body it should have refused (judged by CREATE-003 alone). */
  isAcceptedInvalid(pet: JsonValue): boolean {
    const marker = this.markerOf(pet);
    return marker !== undefined && this.#acceptedInvalid.has(marker);
  }

  /** Whether the latest createPet of the run was accepted: its id then opens a bracket at no cost. */
  get lastCreateAccepted(): boolean {
    return this.#lastAccepted;
  }

  /**
   * Whether the latest accepted creation can open a bracket for requests refused from now on at no
   * cost: only refused createPets (4xx, not 429) followed it. A pet such a request stored anyway
   * carries that request's marker, so it is accounted for in any bracket it falls in.
   */
  get bracketOpen(): boolean {
    return this.#acceptedThenRefused;
  }

  /** Every creation the service accepted in this run, in send order (ids exact). */
  get creations(): readonly Creation[] {
    return this.#creations;
  }

  /** Whether the name was made by this tool in another run (so it is not this run's, nor unknown). */
  isOtherRunName(name: string): boolean {
    return /^pc-[0-9a-f]+-[0-9]+-/.test(name) && !name.startsWith(this.#prefix);
  }
}

function isValidNewPet(text: string): boolean {
  const parsed = parseJson(text);
  return parsed.ok && validate('NewPet', parsed.value).length === 0;
}
