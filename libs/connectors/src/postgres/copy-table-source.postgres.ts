/**
 * One table through the COPY fast path: the server streams binary tuples, the encoder turns them
 * into canonical row bytes, and the items wait in a queue of at most `maxQueued` chunks; a full
 * queue pauses the socket (back-pressure), an emptied one resumes it.
 */
import type { CursorEncodedRows, CursorItem } from '@fetcher/engine';
import { EngineError, ErrorText } from '@fetcher/engine';
import { abortError, statementTimeout } from '../common/abort';
import type { TableSource } from '../common/table-cursor';
import { settlesWithin, type ClientLease } from './client-lease.postgres';
import type { CopyPlan } from './copy-columns.postgres';
import { CopyOutQuery } from './copy-out-query.postgres';
import { CopyRowEncoder, type ChunkPosition, type TrackedFields } from './copy-row-encoder.postgres';
import { isQueryCanceled } from './sql-state.postgres';

export interface CopyTableSourceOptions {
  readonly lease: ClientLease;
  /** The snapshot key the items carry. */
  readonly table: string;
  readonly plan: CopyPlan;
  readonly signal: AbortSignal;
  /** Bytes per emitted chunk at most (whole rows; a chunk may exceed it by one row); 256 rows at most in any case. */
  readonly chunkBytes?: number;
  /** Chunks buffered before the socket is paused. */
  readonly maxQueued?: number;
  /** An incremental read: the output names of the cursor and tie-breaker, whose last values each chunk reports. */
  readonly position?: { readonly cursor: string; readonly key: string };
}

export class CopyTableSource implements TableSource {
  readonly #options: CopyTableSourceOptions;
  readonly #query: CopyOutQuery;
  readonly #encoder: CopyRowEncoder;
  readonly #queue: CursorEncodedRows[] = [];
  readonly #maxQueued: number;
  readonly #onAbort = (): void => this.#notify();
  #wake: (() => void) | undefined;
  #encoderFinished = false;
  #cancelled = false;
  #closing: Promise<void> | undefined;

  constructor(options: CopyTableSourceOptions) {
    this.#options = options;
    this.#maxQueued = options.maxQueued ?? 2;
    this.#encoder = new CopyRowEncoder(
      options.plan.fields,
      (encoded, rowCount, position) => this.#enqueue(encoded, rowCount, position),
      options.chunkBytes,
      undefined,
      trackedFields(options),
    );
    this.#query = new CopyOutQuery(options.plan.sql, (chunk, start, end) => this.#encoder.push(chunk, start, end), () => this.#notify());
    options.signal.addEventListener('abort', this.#onAbort, { once: true });
    void options.lease.client.query(this.#query);
  }

  async next(): Promise<CursorItem | null> {
    const { signal } = this.#options;
    for (;;) {
      if (signal.aborted) throw abortError(signal);
      if (this.#query.failure !== undefined) throw this.#query.failure;
      const item = this.#queue.shift();
      if (item) {
        if (this.#queue.length === 0) this.#query.resume();
        return item;
      }
      if (this.#query.settled) {
        try {
          await this.#query.finished;
        } catch (error) {
          throw isQueryCanceled(error) && !this.#cancelled ? statementTimeout(error) : error;
        }
        if (this.#encoderFinished) return null;
        this.#encoderFinished = true;
        this.#encoder.finish(); // the last rows land in the queue
        continue;
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const { lease, signal } = this.#options;
    signal.removeEventListener('abort', this.#onAbort);
    this.#queue.length = 0;
    if (this.#query.settled) {
      lease.release(this.#query.succeeded);
      return;
    }
    // Stopped early (abort, failure or the caller left): cancel the statement, read what is still
    // in flight without keeping it, and wait for the server to end the statement.
    this.#cancelled = true;
    this.#query.discard();
    await lease.cancel();
    const settled = await settlesWithin(this.#query.finished, lease.settleMs);
    lease.release(settled);
  }

  #enqueue(encoded: Uint8Array, rowCount: number, position: ChunkPosition | undefined): void {
    this.#queue.push({ table: this.#options.table, encoded, rowCount, ...(position ? { position } : {}) });
    if (this.#queue.length >= this.#maxQueued) this.#query.pause();
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

function trackedFields(options: CopyTableSourceOptions): TrackedFields | undefined {
  if (options.position === undefined) return undefined;
  const names = options.plan.fields.map((f) => f.name);
  const cursor = names.indexOf(options.position.cursor);
  const key = names.indexOf(options.position.key);
  // The planner always selects both; a plan without them cannot report where it stopped.
  if (cursor < 0 || key < 0) throw new EngineError('internal', ErrorText.stepUnexpected);
  return { cursor, key };
}
