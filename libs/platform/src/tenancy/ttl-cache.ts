/**
 * A process-local map whose entries expire `ttlMs` after they were set. Expired entries are dropped
 * when read, and all of them at once on a write when the last such sweep is older than the TTL, so
 * keys nobody reads again do not pile up.
 */
export class TtlCache<T> {
  readonly #entries = new Map<string, { value: T; expiresAt: number }>();
  #lastSweep: number;

  constructor(private readonly ttlMs: number, private readonly now: () => number = Date.now) {
    this.#lastSweep = now();
  }

  get(key: string): T | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (this.now() >= entry.expiresAt) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: T): void {
    const now = this.now();
    if (now - this.#lastSweep >= this.ttlMs) {
      for (const [k, entry] of this.#entries) if (now >= entry.expiresAt) this.#entries.delete(k);
      this.#lastSweep = now;
    }
    this.#entries.set(key, { value, expiresAt: now + this.ttlMs });
  }

  delete(key: string): boolean {
    return this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}
