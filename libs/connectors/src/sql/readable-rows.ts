import type { Readable } from 'node:stream';
import type { Row } from '@fetcher/engine';
import { abortError } from '../common/abort';
import type { TableRows } from '../common/table-cursor';

export interface ReadableRowsOptions<Raw> {
  /** An object-mode stream of driver rows that pauses its source when its buffer is full. */
  readonly readable: Readable;
  readonly mapRow: (raw: Raw) => Row;
  readonly signal: AbortSignal;
  /** Stops the driver's side at once (abort or early close): KILL, cancel, break. Must not throw. */
  readonly cancel: () => void;
  /** Runs once, after the end or a failure: returns the connection, or drops it when `completed` is false. */
  readonly release: (completed: boolean) => Promise<void> | void;
  /** Turns a driver failure into what the connector reports (say, its statement timeout as `timeout`). */
  readonly mapError?: (error: unknown) => unknown;
}

/**
 * TableRows over a driver's row stream. Back-pressure comes from the stream: rows are pulled one
 * at a time through its async iterator, so the driver pauses once the stream's buffer is full and
 * a table never sits in memory whole.
 */
export class ReadableTableRows<Raw> implements TableRows {
  readonly #options: ReadableRowsOptions<Raw>;
  readonly #iterator: AsyncIterator<unknown>;
  readonly #onAbort: () => void;
  #finished = false;

  constructor(options: ReadableRowsOptions<Raw>) {
    this.#options = options;
    this.#iterator = options.readable[Symbol.asyncIterator]();
    // Failures reach next() through the iterator; this listener only keeps a late error (say, a
    // cursor that fails to close after an early close) from becoming an uncaught exception.
    options.readable.on('error', () => undefined);
    this.#onAbort = () => {
      options.cancel();
      options.readable.destroy(abortError(options.signal));
    };
    if (options.signal.aborted) this.#onAbort();
    else options.signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  async next(): Promise<Row | null> {
    if (this.#finished) return null;
    let step: IteratorResult<unknown>;
    try {
      step = await this.#iterator.next();
    } catch (error) {
      await this.#finish(false);
      const { signal, mapError } = this.#options;
      if (signal.aborted) throw abortError(signal);
      throw mapError ? mapError(error) : error;
    }
    if (step.done) {
      await this.#finish(true);
      return null;
    }
    return this.#options.mapRow(step.value as Raw);
  }

  async close(): Promise<void> {
    if (this.#finished) return;
    // Closed before the end: the driver is still producing rows, so stop it first.
    this.#options.cancel();
    this.#options.readable.destroy();
    await this.#finish(false);
  }

  async #finish(completed: boolean): Promise<void> {
    if (this.#finished) return;
    this.#finished = true;
    this.#options.signal.removeEventListener('abort', this.#onAbort);
    const { readable } = this.#options;
    if (!completed) readable.destroy();
    // The driver closes its cursor while the stream is destroyed; the connection goes back only after that.
    if (!readable.closed) await new Promise((resolve) => readable.once('close', resolve));
    await this.#options.release(completed);
  }
}
