/**
 * One table through the row path: a server-side portal (pg-cursor) read in batches of 256 rows,
 * every value as the server's text and converted by the column's converter. Used for filtered
 * reads (COPY cannot bind parameters) and when the fast path is off.
 */
import type { CursorItem, JsonValue, Row } from '@fetcher/engine';
import Cursor from 'pg-cursor';
import { abortError, statementTimeout } from '../common/abort';
import type { TableSource } from '../common/table-cursor';
import { settlesWithin, type ClientLease } from './client-lease.postgres';
import { isQueryCanceled } from './sql-state.postgres';
import { RAW_TEXT_TYPES, type TextConverter } from './value-mapping.postgres';

export const BATCH_ROWS = 256;

export interface PortalColumn {
  readonly name: string;
  readonly convert: TextConverter;
}

export interface PortalTableSourceOptions {
  readonly lease: ClientLease;
  readonly table: string;
  readonly sql: string;
  readonly params: readonly unknown[];
  /** In the statement's select-list order. */
  readonly columns: readonly PortalColumn[];
  readonly signal: AbortSignal;
}

export class PortalTableSource implements TableSource {
  readonly #options: PortalTableSourceOptions;
  readonly #cursor: Cursor<unknown[]>;
  #batch: unknown[][] = [];
  #index = 0;
  #done = false;
  #failed = false;
  #reading: Promise<unknown> | undefined;
  #cancelled = false;
  #closing: Promise<void> | undefined;

  constructor(options: PortalTableSourceOptions) {
    this.#options = options;
    this.#cursor = options.lease.client.query(
      new Cursor<unknown[]>(options.sql, [...options.params], { rowMode: 'array', types: RAW_TEXT_TYPES }),
    );
  }

  async next(): Promise<CursorItem | null> {
    const { signal, table } = this.#options;
    if (signal.aborted) throw abortError(signal);
    if (this.#index >= this.#batch.length) {
      if (this.#done) return null;
      await this.#read(signal);
      if (this.#batch.length === 0) {
        this.#done = true;
        return null;
      }
    }
    return { table, row: this.#row(this.#batch[this.#index++]) };
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #read(signal: AbortSignal): Promise<void> {
    const reading = this.#cursor.read(BATCH_ROWS);
    this.#reading = reading;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(abortError(signal));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      this.#batch = await Promise.race([reading, aborted]);
      this.#index = 0;
      this.#reading = undefined;
    } catch (error) {
      this.#failed = true;
      if (signal.aborted) throw abortError(signal);
      this.#reading = undefined; // the fetch itself failed: nothing left to stop
      throw isQueryCanceled(error) && !this.#cancelled ? statementTimeout(error) : error;
    } finally {
      signal.removeEventListener('abort', onAbort!);
      reading.catch(() => undefined);
    }
  }

  async #close(): Promise<void> {
    const { lease } = this.#options;
    const reading = this.#reading;
    if (reading) {
      // A fetch is still running (the signal aborted during it): stop it, and drop the session
      // unless the server confirms in time.
      this.#cancelled = true;
      await lease.cancel();
      lease.release(await settlesWithin(reading, lease.settleMs));
      return;
    }
    if (this.#failed) {
      lease.release(false);
      return;
    }
    // Closing the portal (Close + Sync) releases the server-side cursor and ends its transaction.
    const closed = await settlesWithin(this.#cursor.close(), lease.settleMs);
    lease.release(closed);
  }

  #row(values: unknown[]): Row {
    const { columns } = this.#options;
    // No prototype: a column named __proto__ is then just a key.
    const row = Object.create(null) as Record<string, JsonValue>;
    for (let i = 0; i < columns.length; i++) {
      const value = values[i];
      row[columns[i].name] = value === null || value === undefined ? null : columns[i].convert(value as string);
    }
    return row;
  }
}
