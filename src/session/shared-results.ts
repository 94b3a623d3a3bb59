/**
 * Results one test makes and later tests reuse (requests are the scarce resource), and what one
 * test hands to a later one. Each is named by a key the owning suite declares, typed with its
 * value, instead of a string: a reader can only get the type the key was made with, and the
 * values live with the session, not in a suite module.
 */

/** A result made once per run: `made()` for one value, `made<Part>()` for one per part (a status, an id). */
export class SharedKey<T, Part extends string | bigint | number = never> {
  /** Never set: carries the value's type, so a key reads back only what it was made with. */
  declare readonly value?: T;
  declare readonly part?: Part;
  constructor(readonly name: string) {}
}

/** A value one test hands to later ones: undefined until it is put. */
export class HandoffKey<T> {
  declare readonly value?: T;
  constructor(readonly name: string) {}
}

export class SharedResults {
  readonly #made = new Map<object, Map<unknown, Promise<unknown>>>();
  readonly #handed = new Map<object, unknown>();

  /** The key's result, made by the first caller; every later caller gets the same promise. */
  once<T>(key: SharedKey<T>, make: () => Promise<T>): Promise<T> {
    return this.#once(key, undefined, make);
  }

  /** The key's result for `part`, made by the first caller asking for that part. */
  onceFor<T, Part extends string | bigint | number>(key: SharedKey<T, Part>, part: Part, make: () => Promise<T>): Promise<T> {
    return this.#once(key, part, make);
  }

  put<T>(key: HandoffKey<T>, value: T): void {
    this.#handed.set(key, value);
  }

  get<T>(key: HandoffKey<T>): T | undefined {
    // Only put<T> with this key sets it, so the value is a T.
    return this.#handed.get(key) as T | undefined;
  }

  #once<T>(key: object, part: unknown, make: () => Promise<T>): Promise<T> {
    let parts = this.#made.get(key);
    if (parts === undefined) {
      parts = new Map();
      this.#made.set(key, parts);
    }
    // Only a SharedKey<T> reaches its map, so the promise is a T's.
    let value = parts.get(part) as Promise<T> | undefined;
    if (value === undefined) {
      value = make();
      parts.set(part, value);
    }
    return value;
  }
}
