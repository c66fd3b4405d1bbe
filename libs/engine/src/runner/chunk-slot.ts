/**
 * The hand-over between one step and the ordered writer: a queue of exactly one chunk. A producer
 * that is ahead waits here, so a step holds at most the chunk it is building plus this one.
 */
import { EngineError, ErrorText } from '../errors';
import type { EncodedChunk } from '../canonical/fragment-encoder';

export class ChunkSlot {
  #chunk: EncodedChunk | undefined;
  #ended = false;
  #wake: (() => void) | undefined;

  /** Resolves once the chunk is in the slot; rejects with the signal's reason when it aborts. */
  async put(chunk: EncodedChunk, signal: AbortSignal): Promise<void> {
    while (this.#chunk !== undefined) await this.#wait(signal);
    this.#chunk = chunk;
    this.#notify();
  }

  /** No more chunks will come. */
  end(): void {
    this.#ended = true;
    this.#notify();
  }

  /** The next chunk, or null after end(). */
  async take(signal: AbortSignal): Promise<EncodedChunk | null> {
    while (this.#chunk === undefined && !this.#ended) await this.#wait(signal);
    const chunk = this.#chunk;
    if (chunk === undefined) return null;
    this.#chunk = undefined;
    this.#notify();
    return chunk;
  }

  // One producer and one consumer, and never both waiting at once (a full slot wakes the
  // consumer, an empty one the producer), so a single waiter is enough.
  #wait(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) {
        reject(stopped());
        return;
      }
      const onAbort = (): void => {
        this.#wake = undefined;
        reject(stopped());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#wake = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
    });
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/** The run is ending; the runner reports the real cause (the first failure, the deadline or the host). */
function stopped(): EngineError {
  return new EngineError('canceled', ErrorText.canceled);
}
