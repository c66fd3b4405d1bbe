interface Slots {
  running: number;
  readonly waiting: (() => void)[];
}

/** Releases a slot; calling it again does nothing. */
export type Release = () => void;

/**
 * At most `limit` holders per key at once; the others queue in arrival order, each for at most the
 * time it is willing to wait. Keys with nobody holding or waiting take no memory.
 */
export class KeyedSemaphore {
  readonly #slots = new Map<string, Slots>();

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
  }

  /** A release once a slot is free, or `undefined` if none came free within `waitMs`. */
  acquire(key: string, waitMs: number): Promise<Release | undefined> {
    let slots = this.#slots.get(key);
    if (!slots) this.#slots.set(key, (slots = { running: 0, waiting: [] }));
    const held = slots;
    if (held.running < this.limit) {
      held.running += 1;
      return Promise.resolve(this.#release(key, held));
    }
    return new Promise((resolve) => {
      const grant = () => {
        clearTimeout(timer);
        held.running += 1;
        resolve(this.#release(key, held));
      };
      const timer = setTimeout(() => {
        held.waiting.splice(held.waiting.indexOf(grant), 1);
        this.#forgetIfIdle(key, held);
        resolve(undefined);
      }, Math.max(0, waitMs));
      timer.unref(); // a queued caller never keeps a stopping process alive
      held.waiting.push(grant);
    });
  }

  #release(key: string, slots: Slots): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      slots.running -= 1;
      const next = slots.waiting.shift();
      if (next) next();
      else this.#forgetIfIdle(key, slots);
    };
  }

  #forgetIfIdle(key: string, slots: Slots): void {
    if (slots.running === 0 && slots.waiting.length === 0 && this.#slots.get(key) === slots) this.#slots.delete(key);
  }
}
