/**
 * One call per key at a time in this process: a caller whose key is already in flight does not
 * start its own, it waits for the running one and shares its outcome (value or rejection).
 */
export class SingleFlight<T> {
  readonly #inFlight = new Map<string, Promise<T>>();

  run(key: string, work: () => Promise<T>): { readonly outcome: Promise<T>; readonly shared: boolean } {
    const running = this.#inFlight.get(key);
    if (running) return { outcome: running, shared: true };
    // The async wrapper turns a synchronous throw into a rejection, and the entry goes once settled.
    const outcome = (async () => work())().finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, outcome);
    return { outcome, shared: false };
  }
}
