import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import type { ReplayableBody } from '../../ports/result-store.port';
import { spoolError } from './result-sink-error';

/** Text buffered in memory before one write to the file. */
const FLUSH_BYTES = 1 << 20;
/**
 * Read size when a range is streamed to object storage. Small on purpose: each read is a fresh
 * buffer that lives until the socket has sent it, and at 64 KiB a 215 MB PutObject left 15-25 MiB
 * of them waiting for the collector (peak RSS 142 MiB at 1M rows against 118 MiB with 16 KiB).
 */
const RANGE_READ_BYTES = 16 * 1024;

/**
 * The on-disk copy of one result's base64 text (ciphertext only), so that an upload part can be
 * read again for a retry. Owner-only permissions; `remove()` is safe to call more than once.
 */
export class SpoolFile {
  readonly path: string;
  #handle: FileHandle | undefined;
  /** Text not yet on disk, already in `#scratch[0, #pendingBytes)`. */
  #pendingBytes = 0;
  /** Bytes on disk (flushed). */
  #flushed = 0;
  /**
   * The write buffer, reused for every flush (flushes never overlap: each is awaited). Text is copied
   * into it as it arrives, so no large joined string is ever built: those live in V8's large-object
   * space and made the process grow with the result size.
   */
  #scratch = Buffer.allocUnsafe(2 * FLUSH_BYTES);

  private constructor(path: string, handle: FileHandle) {
    this.path = path;
    this.#handle = handle;
  }

  /** Failures of this file's disk operations are `ResultSinkError`s (spool full, not writable, I/O). */
  static async create(path: string): Promise<SpoolFile> {
    try {
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      // 'wx+' (read and write, exclusive): a file left behind under the same name is never appended to.
      return new SpoolFile(path, await open(path, 'wx+', 0o600));
    } catch (error) {
      throw spoolError(error);
    }
  }

  /** Bytes written so far, flushed or not. */
  get size(): number {
    return this.#flushed + this.#pendingBytes;
  }

  /** Bytes that a read can already see. */
  get flushedSize(): number {
    return this.#flushed;
  }

  /** Appends ASCII text (one byte per character). */
  async append(text: string): Promise<void> {
    if (text.length === 0) return;
    if (this.#pendingBytes + text.length > this.#scratch.length) {
      const grown = Buffer.allocUnsafe(this.#pendingBytes + text.length);
      this.#scratch.copy(grown, 0, 0, this.#pendingBytes);
      this.#scratch = grown;
    }
    this.#pendingBytes += this.#scratch.write(text, this.#pendingBytes, 'latin1');
    if (this.#pendingBytes >= FLUSH_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.#pendingBytes === 0) return;
    const data = this.#scratch.subarray(0, this.#pendingBytes);
    this.#pendingBytes = 0;
    const handle = this.#open();
    let written = 0;
    try {
      while (written < data.length) {
        const { bytesWritten } = await handle.write(data, written, data.length - written, this.#flushed + written);
        written += bytesWritten;
      }
    } catch (error) {
      throw spoolError(error);
    }
    this.#flushed += data.length;
  }

  /** Reads `[start, start + length)` of the flushed bytes. */
  async read(start: number, length: number): Promise<Buffer> {
    return this.readInto(Buffer.allocUnsafe(length), start, length);
  }

  /** Like `read`, into the front of `target` (which must hold `length` bytes); returns that slice. */
  async readInto(target: Buffer, start: number, length: number): Promise<Buffer> {
    if (target.length < length) throw new Error('read buffer is too small');
    const buffer = target.subarray(0, length);
    let done = 0;
    while (done < length) {
      let bytesRead: number;
      try {
        ({ bytesRead } = await this.#open().read(buffer, done, length - done, start + done));
      } catch (error) {
        throw spoolError(error);
      }
      if (bytesRead === 0) throw spoolError(new Error('spool file is shorter than expected'));
      done += bytesRead;
    }
    return buffer;
  }

  /**
   * `[start, start + length)` of the flushed bytes as a body that each attempt reads afresh from the
   * file, in positional reads on the open handle. (A `createReadStream` on the handle would add a
   * close listener to it that stays until the job ends: one per part and per retry.)
   */
  range(start: number, length: number): ReplayableBody {
    return { length, open: () => Readable.from(this.#chunks(start, length), { objectMode: false }) };
  }

  async *#chunks(start: number, length: number): AsyncGenerator<Buffer> {
    for (let offset = start, end = start + length; offset < end; ) {
      const size = Math.min(RANGE_READ_BYTES, end - offset);
      yield await this.readInto(Buffer.allocUnsafe(size), offset, size);
      offset += size;
    }
  }

  /** Closes and deletes the file; never throws. */
  async remove(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    this.#pendingBytes = 0;
    try {
      await handle?.close();
    } catch {
      // Removing the file below is what matters.
    }
    await rm(this.path, { force: true }).catch(() => undefined);
  }

  #open(): FileHandle {
    if (!this.#handle) throw new Error('spool file is closed');
    return this.#handle;
  }
}
