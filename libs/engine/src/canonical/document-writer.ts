/**
 * A streaming writer for the canonical result document `{"<config>":{"<table>":[row,...],...},...}`.
 * Bytes leave in chunks of at most one batch of rows; nothing grows with the row count.
 * The runner uses the same fragment encoder, with one encoder per datasource running in parallel.
 */
import { EngineError, ErrorText } from '../errors';
import type { CursorItem } from '../ports';
import { compareUtf8 } from './encode';
import { ConfigFragmentEncoder, type EncodedChunk } from './fragment-encoder';

/** Receives each chunk once; a returned promise is awaited before the next chunk (back-pressure). */
export type ChunkOutput = (chunk: Uint8Array) => void | Promise<void>;

// Fresh arrays per use: a consumer may keep or mutate what it is handed.
const open = (): Uint8Array => new Uint8Array([0x7b]); // {
const close = (): Uint8Array => new Uint8Array([0x7d]); // }

export class CanonicalDocumentWriter {
  readonly #output: ChunkOutput;
  readonly #batchRows: number | undefined;
  #fragment: ConfigFragmentEncoder | undefined;
  #lastConfig: string | undefined;
  #opened = false;
  #finished = false;
  #bytes = 0;
  #rows = 0;

  constructor(output: ChunkOutput, options: { readonly batchRows?: number } = {}) {
    this.#output = output;
    this.#batchRows = options.batchRows;
  }

  get bytesWritten(): number {
    return this.#bytes;
  }

  get rowsWritten(): number {
    return this.#rows;
  }

  /** Configs must arrive in ascending UTF-8 order; the table list is sorted here. */
  async beginConfig(configName: string, tables: readonly string[]): Promise<void> {
    if (this.#finished || this.#fragment) throw misuse();
    if (this.#lastConfig !== undefined && compareUtf8(this.#lastConfig, configName) >= 0) throw misuse();
    const sorted = [...new Set(tables)].sort(compareUtf8);
    const leadingComma = this.#lastConfig !== undefined;
    this.#fragment = new ConfigFragmentEncoder(configName, sorted, { leadingComma, batchRows: this.#batchRows });
    this.#lastConfig = configName;
    if (!this.#opened) {
      this.#opened = true;
      await this.#emit(open());
    }
  }

  /** Rows of one table come together, tables in ascending order (the connector order contract). */
  async write(item: CursorItem): Promise<void> {
    if (!this.#fragment) throw misuse();
    const chunk = this.#fragment.push(item);
    if (chunk) await this.#emitChunk(chunk);
  }

  async endConfig(): Promise<void> {
    if (!this.#fragment) throw misuse();
    const chunk = this.#fragment.finish();
    this.#fragment = undefined;
    await this.#emitChunk(chunk);
  }

  /** Closes the document (`{}` when no config was written). */
  async finish(): Promise<{ readonly bytes: number; readonly rows: number }> {
    if (this.#finished || this.#fragment) throw misuse();
    this.#finished = true;
    if (!this.#opened) await this.#emit(open());
    await this.#emit(close());
    return { bytes: this.#bytes, rows: this.#rows };
  }

  async #emitChunk(chunk: EncodedChunk): Promise<void> {
    this.#rows += chunk.rows;
    await this.#emit(chunk.bytes);
  }

  async #emit(bytes: Uint8Array): Promise<void> {
    this.#bytes += bytes.length;
    await this.#output(bytes);
  }
}

function misuse(): EngineError {
  return new EngineError('internal', ErrorText.serializeFailed);
}
