/**
 * Stands in for a BSON value that mingo cannot compare correctly (Binary, ObjectId, a Long beyond
 * double precision, Timestamp, ...). mingo treats class instances with a custom `toString()` as
 * opaque values and compares them by that string, so the string is the canonical key. The original
 * value sits in a private field: no enumerable property, so mingo's hashing sees only the class.
 */
export class ViewValue {
  readonly #key: string;
  readonly #raw: unknown;

  constructor(key: string, raw: unknown) {
    this.#key = key;
    this.#raw = raw;
  }

  get raw(): unknown {
    return this.#raw;
  }

  toString(): string {
    return this.#key;
  }
}
