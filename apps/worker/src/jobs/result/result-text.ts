import { Readable } from 'node:stream';
import type { ReplayableBody } from '../../ports/result-store.port';
import { SpoolFile } from './spool-file';

/**
 * The base64 text of one result (ciphertext only), as the uploader reads it: kept in memory while
 * it stays within `inMemoryBytes`, and moved to a spool file at `spoolPath` the moment it would
 * pass that. A small result then costs no file at all (no create, write, flush, read back, remove);
 * a larger one takes today's spool path from its first megabyte on, with every disk failure a
 * `ResultSinkError` as before. With `inMemoryBytes` 0 the file is created by `open`, as it always was.
 */
export class ResultText {
  /** Text held in memory, in `#memory[0, #memoryBytes)`; dropped once it moves to the spool. */
  #memory: Buffer | undefined;
  #memoryBytes = 0;
  #spool: SpoolFile | undefined;
  #removed = false;

  private constructor(
    private readonly spoolPath: string,
    private readonly inMemoryBytes: number,
  ) {}

  static async open(spoolPath: string, inMemoryBytes: number): Promise<ResultText> {
    const text = new ResultText(spoolPath, Math.max(0, inMemoryBytes));
    if (text.inMemoryBytes === 0) text.#spool = await SpoolFile.create(spoolPath);
    return text;
  }

  /** Whether the whole text is still in memory (no spool file was ever created). */
  get inMemory(): boolean {
    return this.#spool === undefined;
  }

  /** Bytes written so far. */
  get size(): number {
    return this.#spool ? this.#spool.size : this.#memoryBytes;
  }

  /** Bytes that a read can already see (all of them while in memory). */
  get flushedSize(): number {
    return this.#spool ? this.#spool.flushedSize : this.#memoryBytes;
  }

  /** Appends ASCII text (one byte per character). */
  async append(text: string): Promise<void> {
    if (text.length === 0) return;
    if (this.#removed) throw new Error('result text is removed');
    if (!this.#spool && this.#memoryBytes + text.length > this.inMemoryBytes) await this.#moveToSpool();
    if (this.#spool) return this.#spool.append(text);
    const memory = this.#grow(this.#memoryBytes + text.length);
    this.#memoryBytes += memory.write(text, this.#memoryBytes, 'latin1');
  }

  async flush(): Promise<void> {
    await this.#spool?.flush();
  }

  /** The whole text, while it is in memory (a view, not a copy). */
  contents(): Buffer {
    if (this.#spool) throw new Error('the result text is in the spool file');
    return (this.#memory ?? Buffer.alloc(0)).subarray(0, this.#memoryBytes);
  }

  /** Like `SpoolFile.readInto`: `[start, start + length)` into the front of `target`; returns that slice. */
  async readInto(target: Buffer, start: number, length: number): Promise<Buffer> {
    if (this.#spool) return this.#spool.readInto(target, start, length);
    if (target.length < length) throw new Error('read buffer is too small');
    if (start + length > this.#memoryBytes) throw new Error('read past the end of the result text');
    this.contents().copy(target, 0, start, start + length);
    return target.subarray(0, length);
  }

  async read(start: number, length: number): Promise<Buffer> {
    return this.readInto(Buffer.allocUnsafe(length), start, length);
  }

  /** `[start, start + length)` as a body each attempt reads afresh (from memory, or from the spool file). */
  range(start: number, length: number): ReplayableBody {
    if (this.#spool) return this.#spool.range(start, length);
    const slice = this.contents().subarray(start, start + length);
    return { length, open: () => Readable.from([slice], { objectMode: false }) };
  }

  /** Drops the text and deletes the spool file if there is one; never throws, safe to call again. */
  async remove(): Promise<void> {
    this.#removed = true;
    this.#memory = undefined;
    this.#memoryBytes = 0;
    await this.#spool?.remove();
  }

  async #moveToSpool(): Promise<void> {
    const spool = await SpoolFile.create(this.spoolPath);
    if (this.#removed) {
      // Removed (the run was aborted) while the file was being created: it must not outlive the run.
      await spool.remove();
      throw new Error('result text is removed');
    }
    const held = this.contents();
    this.#spool = spool;
    this.#memory = undefined;
    this.#memoryBytes = 0;
    // latin1 maps each byte to one character: the text goes to the file exactly as it was.
    if (held.length > 0) await spool.append(held.toString('latin1'));
  }

  /** The memory buffer, with room for `bytes`; doubles, up to the limit, so appends copy little. */
  #grow(bytes: number): Buffer {
    if (this.#memory && this.#memory.length >= bytes) return this.#memory;
    const grown = Buffer.allocUnsafe(Math.min(this.inMemoryBytes, Math.max(bytes, 2 * (this.#memory?.length ?? 0), 16 * 1024)));
    this.#memory?.copy(grown, 0, 0, this.#memoryBytes);
    this.#memory = grown;
    return grown;
  }
}
