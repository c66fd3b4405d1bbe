/**
 * One table through the server-built JSON path (server-json-plan.mysql.ts): rows arrive as
 * `s0, v0, ..., sN` and are joined into canonical row bytes, batched into CursorEncodedRows of at
 * most 256 rows. The items wait in a queue of at most `maxQueued` chunks; a full queue pauses the
 * connection (back-pressure), an emptied one resumes it. No row objects are built.
 */
import { encodeCanonicalJson, type CursorEncodedRows, type CursorItem, type JsonValue } from '@fetcher/engine';
import type { PoolConnection, Query, QueryOptions, TypeCast } from 'mysql2';
import { abortError, statementTimeout } from '../common/abort';
import type { TableSource } from '../common/table-cursor';
import { driverErrorCode } from '../sql/driver-error-code';
import { SEGMENT_PREFIX, type ServerJsonStatement } from './server-json-plan.mysql';
import { mysqlTypeCast } from './value-mapping.mysql';

type TypeCastField = Parameters<Exclude<TypeCast, boolean>>[0];

const ROWS_PER_CHUNK = 256;
/** Room for the row that crosses `chunkBytes`, so most chunks fill one buffer without growing it. */
const CHUNK_SLACK = 16 * 1024;
const COMMA = 0x2c;
const BACKSLASH = 0x5c;
/** `\u00`: the start of every escape JSON_QUOTE writes in hexadecimal. */
const HEX_ESCAPE = Buffer.from('\\u00', 'latin1');

export interface ServerJsonSourceOptions {
  readonly connection: PoolConnection;
  /** The snapshot key the items carry. */
  readonly table: string;
  readonly statement: ServerJsonStatement;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  /** Returns the connection to the pool (`healthy`) or drops it. Called once. */
  readonly release: (healthy: boolean) => void;
  /** Bytes per chunk at most (whole rows; a chunk may exceed it by one row). */
  readonly chunkBytes?: number;
  /** Chunks buffered before the connection is paused. */
  readonly maxQueued?: number;
}

/**
 * The segments as raw bytes (no string decoding), the `vK` columns through the row path's own
 * type cast, so a FLOAT or JSON value is the very value the row path would encode.
 */
function serverJsonTypeCast(jsonColumns: ReadonlySet<string>): TypeCast {
  const rowPath = mysqlTypeCast(jsonColumns) as (field: TypeCastField, next: () => unknown) => unknown;
  return (field: TypeCastField, next: () => unknown): unknown =>
    field.name.startsWith(SEGMENT_PREFIX) ? field.buffer() : rowPath(field, next);
}

export class ServerJsonTableSource implements TableSource {
  readonly #options: ServerJsonSourceOptions;
  readonly #query: Query;
  readonly #chunkBytes: number;
  readonly #maxQueued: number;
  readonly #queue: CursorEncodedRows[] = [];
  readonly #onAbort = (): void => this.#fail(abortError(this.#options.signal));
  readonly #onConnectionError = (error: unknown): void => this.#fail(error instanceof Error ? error : new Error('connection failed'));
  #buffer: Buffer;
  #length = 0;
  #rows = 0;
  #paused = false;
  #ended = false;
  #failure: Error | undefined;
  #released = false;
  #wake: (() => void) | undefined;

  constructor(options: ServerJsonSourceOptions) {
    this.#options = options;
    this.#chunkBytes = options.chunkBytes ?? 64 * 1024;
    this.#maxQueued = options.maxQueued ?? 2;
    this.#buffer = Buffer.allocUnsafe(this.#chunkBytes + CHUNK_SLACK);
    const { connection, statement } = options;
    const queryOptions: QueryOptions = {
      sql: statement.sql,
      values: statement.values as unknown[],
      typeCast: serverJsonTypeCast(statement.jsonColumns),
      timeout: options.timeoutMs,
      rowsAsArray: true,
    };
    // A streaming query reports a broken connection on the connection, not on the query.
    connection.on('error', this.#onConnectionError);
    options.signal.addEventListener('abort', this.#onAbort, { once: true });
    this.#query = connection.query(queryOptions);
    this.#query.on('result', (row: unknown) => this.#row(row as unknown[]));
    this.#query.on('error', (error: unknown) => this.#fail(error));
    this.#query.on('end', () => {
      if (this.#failure !== undefined) return;
      this.#ended = true;
      this.#flush();
      this.#notify();
    });
  }

  async next(): Promise<CursorItem | null> {
    const { signal } = this.#options;
    for (;;) {
      if (signal.aborted) throw abortError(signal);
      if (this.#failure !== undefined) throw this.#failure;
      const item = this.#queue.shift();
      if (item) {
        if (this.#queue.length === 0 && this.#paused) {
          this.#paused = false;
          this.#options.connection.resume();
        }
        return item;
      }
      if (this.#ended) {
        this.#release(true);
        return null;
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  close(): Promise<void> {
    this.#queue.length = 0;
    // Read to its end: the connection goes back. Stopped early: it is dropped, which stops the transfer.
    this.#release(this.#ended && this.#failure === undefined);
    return Promise.resolve();
  }

  #row(values: unknown[]): void {
    if (this.#released || this.#failure !== undefined) return;
    if (this.#rows > 0) this.#reserve(1)[this.#length++] = COMMA;
    for (let i = 0; i < values.length; i++) {
      if (i % 2 === 0) {
        // A segment, copied at once: the driver may reuse the packet's memory.
        const segment = values[i] as Buffer;
        segment.copy(this.#reserve(segment.length), this.#length);
        this.#length += segment.length;
      } else {
        const text = encodeCanonicalJson(values[i] as JsonValue);
        this.#length += this.#reserve(Buffer.byteLength(text, 'utf8')).write(text, this.#length, 'utf8');
      }
    }
    this.#rows += 1;
    if (this.#rows >= ROWS_PER_CHUNK || this.#length >= this.#chunkBytes) this.#flush();
  }

  /** The chunk buffer, grown (copying what it holds) until `bytes` more fit. */
  #reserve(bytes: number): Buffer {
    const needed = this.#length + bytes;
    if (needed <= this.#buffer.length) return this.#buffer;
    const grown = Buffer.allocUnsafe(Math.max(needed, this.#buffer.length * 2));
    this.#buffer.copy(grown, 0, 0, this.#length);
    this.#buffer = grown;
    return grown;
  }

  #flush(): void {
    if (this.#rows === 0) return;
    // The filled part is handed over as it is; the next chunk starts in a fresh buffer.
    const encoded = lowerCaseHexEscapes(this.#buffer.subarray(0, this.#length));
    this.#queue.push({ table: this.#options.table, encoded, rowCount: this.#rows });
    this.#buffer = Buffer.allocUnsafe(this.#chunkBytes + CHUNK_SLACK);
    this.#length = 0;
    this.#rows = 0;
    if (this.#queue.length >= this.#maxQueued && !this.#paused) {
      this.#paused = true;
      this.#options.connection.pause();
    }
    this.#notify();
  }

  #fail(error: unknown): void {
    if (this.#failure !== undefined || this.#ended) return;
    const failure = driverErrorCode(error) === 'PROTOCOL_SEQUENCE_TIMEOUT' ? statementTimeout(error) : error;
    this.#failure = failure instanceof Error ? failure : new Error('datasource query failed');
    this.#release(false);
    this.#notify();
  }

  #release(healthy: boolean): void {
    if (this.#released) return;
    this.#released = true;
    const { connection, signal } = this.#options;
    signal.removeEventListener('abort', this.#onAbort);
    if (!healthy) {
      stopQueryTimer(this.#query);
      // Destroying the connection stops the transfer; the server ends the statement on its next write.
      connection.destroy();
    }
    connection.off('error', this.#onConnectionError);
    if (this.#paused && healthy) connection.resume();
    this.#options.release(healthy);
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/**
 * JSON_QUOTE writes control characters as `\u001F`; the canonical form (JSON.stringify's) writes
 * `\u001f`. A `\u00` is an escape only after an even run of backslashes (an odd run means the
 * backslash itself was escaped, as in the text `\u001F` quoted to `\\u001F`). Rows rarely hold
 * control characters, so one native search per chunk is usually all this costs.
 */
export function lowerCaseHexEscapes(bytes: Buffer): Buffer {
  let at = bytes.indexOf(HEX_ESCAPE);
  while (at !== -1) {
    let run = 0;
    while (at - run - 1 >= 0 && bytes[at - run - 1] === BACKSLASH) run++;
    if (run % 2 === 0) {
      for (const k of [at + 4, at + 5]) if (bytes[k] >= 0x41 && bytes[k] <= 0x46) bytes[k] += 0x20;
    }
    at = bytes.indexOf(HEX_ESCAPE, at + 1);
  }
  return bytes;
}

/** mysql2 clears a query's inactivity timer only when the query finishes (see connector.mysql.ts). */
function stopQueryTimer(query: object): void {
  const holder = query as { queryTimeout?: ReturnType<typeof setTimeout> | null };
  if (holder.queryTimeout) clearTimeout(holder.queryTimeout);
  holder.queryTimeout = null;
}
