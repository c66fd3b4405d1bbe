import { concat } from '../canonical/fragment-encoder';
import type { ResultTarget } from './result-target';

/** Direct mode: the document in memory, as the chunks were written. */
export class DirectTarget implements ResultTarget {
  readonly #parts: Uint8Array[] = [];

  write(bytes: Uint8Array): Promise<void> {
    this.#parts.push(bytes);
    return Promise.resolve();
  }

  bytes(): Uint8Array {
    return concat(this.#parts);
  }
}
