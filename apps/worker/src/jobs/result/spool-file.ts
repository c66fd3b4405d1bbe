import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Text buffered in memory before one write to the file. */
const FLUSH_BYTES = 1 << 20;

/**
 * The on-disk copy of one result's base64 text (ciphertext only), so that an upload part can be
 * read again for a retry. Owner-only permissions; `remove()` is safe to call more than once.
 */
export class SpoolFile {
  readonly path: string;
  #handle: FileHandle | undefined;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Bytes on disk (flushed). */
  #flushed = 0;

  private constructor(path: string, handle: FileHandle) {
    this.path = path;
    this.#handle = handle;
  }

  static async create(path: string): Promise<SpoolFile> {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    // 'wx+' (read and write, exclusive): a file left behind under the same name is never appended to.
    return new SpoolFile(path, await open(path, 'wx+', 0o600));
  }

  /** Bytes written so far, flushed or not. */
  get size(): number {
    return this.#flushed + this.#pendingBytes;
  }

  /** Bytes that a read can already see. */
  get flushedSize(): number {
    return this.#flushed;
  }

  async append(bytes: Buffer): Promise<void> {
    if (bytes.length === 0) return;
    this.#pending.push(bytes);
    this.#pendingBytes += bytes.length;
    if (this.#pendingBytes >= FLUSH_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.#pendingBytes === 0) return;
    const data = this.#pending.length === 1 ? this.#pending[0] : Buffer.concat(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    const handle = this.#open();
    let written = 0;
    while (written < data.length) {
      const { bytesWritten } = await handle.write(data, written, data.length - written, this.#flushed + written);
      written += bytesWritten;
    }
    this.#flushed += data.length;
  }

  /** Reads `[start, start + length)` of the flushed bytes. */
  async read(start: number, length: number): Promise<Buffer> {
    const buffer = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await this.#open().read(buffer, done, length - done, start + done);
      if (bytesRead === 0) throw new Error('spool file is shorter than expected');
      done += bytesRead;
    }
    return buffer;
  }

  /** Closes and deletes the file; never throws. */
  async remove(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    this.#pending = [];
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
