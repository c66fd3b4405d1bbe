/**
 * A pg Submittable that runs one `COPY ... TO STDOUT` and reads its CopyData messages straight off
 * the socket, the way pg-copy-streams does: pg's own parser would build a message object and a
 * buffer slice per row, which for a million rows costs more than encoding them. Everything that is
 * not copy data (the final CopyDone, CommandComplete and ReadyForQuery, or an ErrorResponse) is
 * handed back to pg's parser, so the client's state machine ends the query as usual.
 *
 * Back-pressure: `pause()` stops reading the socket, so the server blocks on a full TCP buffer and
 * memory stays bounded whatever the table size.
 */
import { EngineError, ErrorText } from '@fetcher/engine';
import type { Connection } from 'pg';

type DataListener = (chunk: Buffer) => void;

/** The part of pg's Connection this query touches (pg-copy-streams relies on the same). */
interface PgConnection {
  readonly stream: NodeJS.ReadableStream & { listeners(event: 'data'): DataListener[] };
  query(text: string): void;
}

const CODE_COPY_DATA = 0x64; // d
/** Messages that may come before or between CopyData and carry nothing we need. */
const SKIPPED = new Set([0x48 /* H CopyOutResponse */, 0x4e /* N Notice */, 0x53 /* S ParameterStatus */, 0x41 /* A Notification */]);

export type CopyPayloadHandler = (chunk: Buffer, start: number, end: number) => void;

export class CopyOutQuery {
  readonly text: string;
  /** Settles once the server has ended the statement: resolves on success, rejects with its error. */
  readonly finished: Promise<void>;
  /** Set when the payload handler threw; later payload is dropped. */
  failure: Error | undefined = undefined;
  #onPayload: CopyPayloadHandler;
  #onChange: () => void;
  #connection: PgConnection | undefined;
  #pgListener: DataListener | undefined;
  readonly #header = Buffer.alloc(5);
  #headerBytes = 0;
  #code = 0;
  #remaining = 0;
  #attached = false;
  #paused = false;
  #discarding = false;
  #settled = false;
  #succeeded = false;
  #resolve!: () => void;
  #reject!: (error: unknown) => void;
  readonly #onData = (chunk: Buffer): void => this.#read(chunk);

  /** `onChange` runs after anything a waiting reader may care about: a failure, the end. */
  constructor(text: string, onPayload: CopyPayloadHandler, onChange: () => void) {
    this.text = text;
    this.#onPayload = onPayload;
    this.#onChange = onChange;
    this.finished = new Promise<void>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.finished.catch(() => undefined); // observed through `settled`/`error` by the owner too
  }

  get settled(): boolean {
    return this.#settled;
  }

  /** The server ended the statement without an error (the session is reusable). */
  get succeeded(): boolean {
    return this.#succeeded;
  }

  // ---- pg Submittable ----

  submit(connection: Connection): Error | undefined {
    const pg = connection as unknown as PgConnection;
    const listeners = pg.stream.listeners('data');
    // pg reads the socket through exactly one 'data' listener; anything else is a layout we do not know.
    if (listeners.length !== 1) return new Error('unexpected pg connection layout');
    this.#connection = pg;
    this.#pgListener = listeners[0];
    pg.stream.removeListener('data', this.#pgListener);
    pg.stream.on('data', this.#onData);
    this.#attached = true;
    pg.query(this.text);
    return undefined;
  }

  handleError(error: unknown): void {
    this.#detach(undefined);
    this.#settle(error);
  }

  handleReadyForQuery(): void {
    this.#settle(undefined);
  }

  handleCommandComplete(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(connection: Connection): void {
    (connection as unknown as { sendCopyFail(message: string): void }).sendCopyFail('unexpected copy in');
  }

  // ---- flow control ----

  pause(): void {
    if (this.#paused || !this.#attached) return;
    this.#paused = true;
    this.#connection?.stream.pause();
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#connection?.stream.resume();
  }

  /** Drops all further copy data and keeps reading, so the server can finish (or be cancelled) and the session ends cleanly. */
  discard(): void {
    this.#discarding = true;
    this.resume();
  }

  // ---- socket parsing ----

  #read(chunk: Buffer): void {
    let p = 0;
    const end = chunk.length;
    while (p < end) {
      if (this.#remaining > 0) {
        const n = Math.min(this.#remaining, end - p);
        if (this.#code === CODE_COPY_DATA) this.#deliver(chunk, p, p + n);
        this.#remaining -= n;
        p += n;
        continue;
      }
      // A message header: 1 code byte and a 4-byte length that counts itself, possibly split across chunks.
      let code: number;
      let length: number;
      if (this.#headerBytes === 0 && end - p >= 5) {
        code = chunk[p];
        length = chunk.readUInt32BE(p + 1);
        p += 5;
      } else {
        const take = Math.min(5 - this.#headerBytes, end - p);
        for (let k = 0; k < take; k++) this.#header[this.#headerBytes + k] = chunk[p + k];
        this.#headerBytes += take;
        p += take;
        if (this.#headerBytes < 5) return;
        this.#headerBytes = 0;
        code = this.#header[0];
        length = this.#header.readUInt32BE(1);
      }
      if (code !== CODE_COPY_DATA && !SKIPPED.has(code)) {
        // CopyDone, an error, or anything else: pg's parser takes over from this message on.
        const header = Buffer.alloc(5);
        header[0] = code;
        header.writeUInt32BE(length, 1);
        this.#detach(Buffer.concat([header, chunk.subarray(p)]));
        return;
      }
      this.#code = code;
      this.#remaining = length - 4;
    }
  }

  #deliver(chunk: Buffer, start: number, end: number): void {
    if (this.#discarding || this.failure !== undefined) return;
    try {
      this.#onPayload(chunk, start, end);
    } catch (error) {
      this.failure = error instanceof Error ? error : new EngineError('internal', ErrorText.stepUnexpected, error);
      this.#onChange();
    }
  }

  #detach(rest: Buffer | undefined): void {
    if (!this.#attached) return;
    this.#attached = false;
    const connection = this.#connection!;
    connection.stream.removeListener('data', this.#onData);
    connection.stream.on('data', this.#pgListener!);
    if (this.#paused) {
      this.#paused = false;
      connection.stream.resume();
    }
    if (rest && rest.length > 0) this.#pgListener!(rest);
  }

  #settle(error: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#succeeded = error === undefined;
    if (error === undefined) this.#resolve();
    else this.#reject(error);
    this.#onChange();
  }
}
