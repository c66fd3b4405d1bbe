/**
 * The PostgreSQL RowCursor: the request's tables one after another in the order given (callers
 * sort them), each read to its end before the next one opens, so at most one statement runs at a
 * time. A table yields either CursorRow items (row path) or CursorEncodedRows (COPY fast path).
 */
import type { CursorItem, RowCursor } from '@fetcher/engine';
import { abortError, throwIfAborted } from '../sql/abort';

/** One table's items. */
export interface TableSource {
  /** The next item, `null` at the end. Rejects once the signal given at open time aborts. */
  next(): Promise<CursorItem | null>;
  /** Stops the statement if it still runs and releases the server-side cursor and the connection. Idempotent. */
  close(): Promise<void>;
}

export type OpenTableSource = (table: string, signal: AbortSignal) => Promise<TableSource>;

export class PostgresRowCursor implements RowCursor {
  readonly #tables: readonly string[];
  readonly #open: OpenTableSource;
  readonly #signal: AbortSignal;
  #index = 0;
  #current: TableSource | undefined;
  #closing: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(tables: readonly string[], open: OpenTableSource, signal: AbortSignal) {
    this.#tables = tables;
    this.#open = open;
    this.#signal = signal;
  }

  async next(): Promise<CursorItem | null> {
    throwIfAborted(this.#signal);
    try {
      while (!this.#closed && this.#index < this.#tables.length) {
        this.#current ??= await this.#open(this.#tables[this.#index], this.#signal);
        if (this.#closed) break; // close() ran while the table was opening
        const item = await this.#current.next();
        if (item !== null) return item;
        await this.#closeCurrent();
        this.#index += 1;
      }
      await this.#closeCurrent();
      return null;
    } catch (error) {
      // Reject at once; stopping the statement runs meanwhile, and close() waits for it.
      this.#closeCurrent().catch(() => undefined);
      throw this.#signal.aborted ? abortError(this.#signal) : error;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return this.#closing;
    this.#closed = true;
    await this.#closeCurrent();
  }

  #closeCurrent(): Promise<void> {
    const current = this.#current;
    this.#current = undefined;
    if (current) {
      const previous = this.#closing;
      this.#closing = previous.catch(() => undefined).then(() => current.close());
    }
    return this.#closing;
  }
}
