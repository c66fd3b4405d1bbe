import type { CursorItem, Row, RowCursor } from '@fetcher/engine';
import { abortError, throwIfAborted } from './abort';

/** One table's items: rows, or (PostgreSQL's COPY fast path) batches of encoded rows. */
export interface TableSource {
  /** The next item, `null` at the end. Rejects once the signal given at open time aborts. */
  next(): Promise<CursorItem | null>;
  /** Stops the statement if it still runs and releases the server-side cursor and the connection. Idempotent. */
  close(): Promise<void>;
}

/** One table's rows, read from a server-side cursor or result stream. */
export interface TableRows {
  /** The next row, `null` at the end. Rejects once the signal given at open time aborts. */
  next(): Promise<Row | null>;
  /** Releases the server-side cursor (early or at the end). Idempotent. */
  close(): Promise<void>;
}

export type OpenTableSource = (table: string, signal: AbortSignal) => Promise<TableSource>;
export type OpenTableRows = (table: string, signal: AbortSignal) => Promise<TableRows>;

/**
 * What next() does with the open table when reading fails. `close-then-reject` closes it first, so
 * the connection is back when the caller sees the failure. `reject-then-close` (PostgreSQL, whose
 * close may wait on a cancel request) rejects at once; the close runs meanwhile and close() waits for it.
 */
export type TableFailurePolicy = 'close-then-reject' | 'reject-then-close';

/** A table of rows as a TableSource: each row becomes `{ table, row }`. */
export function tableItems(table: string, rows: TableRows): TableSource {
  return {
    next: async () => {
      const row = await rows.next();
      return row === null ? null : { table, row };
    },
    close: () => rows.close(),
  };
}

/** `open` for tables of rows, as SequentialTableCursor takes it. */
export function openAsItems(open: OpenTableRows): OpenTableSource {
  return async (table, signal) => tableItems(table, await open(table, signal));
}

/**
 * The RowCursor of every connector: the tables one after another, in the order given (callers
 * pass them sorted), each read to its end before the next one opens, so at most one server-side
 * cursor (one statement) is open at a time. Any failure closes the open table (see
 * TableFailurePolicy) and propagates; after an abort every rejection is the abort's, whatever the
 * driver said.
 */
export class SequentialTableCursor implements RowCursor {
  readonly #tables: readonly string[];
  readonly #open: OpenTableSource;
  readonly #signal: AbortSignal;
  readonly #onFailure: TableFailurePolicy;
  #index = 0;
  #current: TableSource | undefined;
  /** The closes still running in the background; only `reject-then-close` starts any. */
  #closing: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(tables: readonly string[], open: OpenTableSource, signal: AbortSignal, onFailure: TableFailurePolicy = 'close-then-reject') {
    this.#tables = tables;
    this.#open = open;
    this.#signal = signal;
    this.#onFailure = onFailure;
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
      const closing = this.#closeCurrent().catch(() => undefined);
      if (this.#onFailure === 'close-then-reject') await closing;
      throw this.#signal.aborted ? abortError(this.#signal) : error;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return this.#closing;
    this.#closed = true;
    await this.#closeCurrent();
  }

  async #closeCurrent(): Promise<void> {
    const current = this.#current;
    this.#current = undefined;
    if (current && this.#onFailure === 'close-then-reject') {
      await current.close();
      return;
    }
    // Chained, so a close that next() left running finishes before the next one starts.
    if (current) this.#closing = this.#closing.catch(() => undefined).then(() => current.close());
    await this.#closing;
  }
}
