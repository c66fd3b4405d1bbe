import type { CursorItem, Row, RowCursor } from '@fetcher/engine';
import { abortError, throwIfAborted } from './abort';

/** One table's rows, read from a server-side cursor or result stream. */
export interface TableRows {
  /** The next row, `null` at the end. Rejects once the signal given at open time aborts. */
  next(): Promise<Row | null>;
  /** Releases the server-side cursor (early or at the end). Idempotent. */
  close(): Promise<void>;
}

export type OpenTableRows = (table: string, signal: AbortSignal) => Promise<TableRows>;

/**
 * The RowCursor of the SQL connectors: the tables one after another, in the order given (callers
 * pass them sorted), each read to its end before the next one opens, so at most one server-side
 * cursor is open at a time. Any failure closes the open table before it propagates; after an
 * abort every rejection is the abort's, whatever the driver said.
 */
export class SequentialTableCursor implements RowCursor {
  readonly #tables: readonly string[];
  readonly #open: OpenTableRows;
  readonly #signal: AbortSignal;
  #index = 0;
  #current: TableRows | undefined;
  #closed = false;

  constructor(tables: readonly string[], open: OpenTableRows, signal: AbortSignal) {
    this.#tables = tables;
    this.#open = open;
    this.#signal = signal;
  }

  async next(): Promise<CursorItem | null> {
    throwIfAborted(this.#signal);
    try {
      while (!this.#closed && this.#index < this.#tables.length) {
        const table = this.#tables[this.#index];
        this.#current ??= await this.#open(table, this.#signal);
        if (this.#closed) break; // close() ran while the table was opening
        const row = await this.#current.next();
        if (row !== null) return { table, row };
        await this.#closeCurrent();
        this.#index += 1;
      }
      await this.#closeCurrent();
      return null;
    } catch (error) {
      await this.#closeCurrent().catch(() => undefined);
      throw this.#signal.aborted ? abortError(this.#signal) : error;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#closeCurrent();
  }

  async #closeCurrent(): Promise<void> {
    const current = this.#current;
    this.#current = undefined;
    await current?.close();
  }
}
