/**
 * Encodes one datasource's part of the result document, `"<config>":{"<t1>":[...],"<t2>":[]}`,
 * in chunks of at most `batchRows` rows, so memory depends on the batch and never on the table.
 * The table list is known up front, which is what makes zero-row tables come out as `[]`.
 */
import { EngineError, ErrorText } from '../errors';
import { isEncodedRows, type CursorItem } from '../ports';
import { STREAM_BATCH_ROWS } from '../models';
import { isPlainObject } from '../support/guards';
import { compareUtf8, encodeCanonicalRow, encodeCanonicalString } from './encode';

export interface EncodedChunk {
  readonly bytes: Uint8Array;
  /** Rows completed in this chunk. */
  readonly rows: number;
}

export interface FragmentOptions {
  /** Prefix the fragment with `,` (every fragment but the document's first). */
  readonly leadingComma?: boolean;
  readonly batchRows?: number;
}

const utf8 = new TextEncoder();

// Encoded text collects in one reusable byte buffer (TextEncoder.encodeInto, row by row) rather than in a
// string that is flattened and encoded once per chunk. A buffer grown past RETAINED_BUFFER_BYTES by wide
// rows is dropped after its chunk, so what stays allocated is bounded.
const INITIAL_BUFFER_BYTES = 64 * 1024;
const RETAINED_BUFFER_BYTES = 1024 * 1024;
const LARGE_TEXT_UNITS = 64 * 1024;

export class ConfigFragmentEncoder {
  readonly #tables: readonly string[];
  readonly #indexOf: ReadonlyMap<string, number>;
  readonly #batchRows: number;
  #buffer = new Uint8Array(INITIAL_BUFFER_BYTES);
  #length = 0;
  #parts: Uint8Array[] = [];
  #rows = 0;
  #table = -1;
  #rowsInTable = 0;
  #finished = false;

  /** `tables` must be sorted by UTF-8 order and unique: it is the connector's order contract. */
  constructor(configName: string, tables: readonly string[], options: FragmentOptions = {}) {
    for (let i = 1; i < tables.length; i++) {
      if (compareUtf8(tables[i - 1], tables[i]) >= 0) throw new EngineError('internal', ErrorText.serializeFailed);
    }
    this.#tables = [...tables];
    this.#indexOf = new Map(tables.map((t, i) => [t, i] as const));
    this.#batchRows = Math.max(1, options.batchRows ?? STREAM_BATCH_ROWS);
    this.#write((options.leadingComma ? ',' : '') + encodeCanonicalString(configName) + ':{');
  }

  /**
   * Adds one cursor item; returns a chunk once the batch is full. Throws internal "extraction step
   * failed unexpectedly" when the item breaks the order contract or is malformed, and internal
   * "failed to serialize extraction result" for a value JSON cannot hold.
   */
  push(item: CursorItem): EncodedChunk | undefined {
    if (this.#finished || typeof item !== 'object' || item === null) throw stepFailed();
    this.#enter(item.table);
    if (isEncodedRows(item)) {
      const { encoded, rowCount } = item;
      if (!(encoded instanceof Uint8Array) || encoded.length === 0 || !Number.isSafeInteger(rowCount) || rowCount < 1) {
        throw stepFailed();
      }
      if (this.#rowsInTable > 0) this.#writeByte(COMMA);
      this.#flushText();
      this.#parts.push(encoded.slice()); // a copy: the connector may reuse its buffer after next()
      this.#count(rowCount);
    } else {
      if (!isPlainObject(item.row)) throw stepFailed();
      if (this.#rowsInTable > 0) this.#writeByte(COMMA);
      this.#write(encodeCanonicalRow(item.row));
      this.#count(1);
    }
    return this.#rows >= this.#batchRows ? this.#take() : undefined;
  }

  /** Closes the open table, writes the remaining tables as `[]` and closes the fragment. */
  finish(): EncodedChunk {
    if (this.#finished) throw stepFailed();
    if (this.#table >= 0) this.#writeByte(CLOSE_ARRAY);
    for (let k = this.#table + 1; k < this.#tables.length; k++) this.#openTable(k, ':[]');
    this.#writeByte(CLOSE_OBJECT);
    this.#finished = true;
    return this.#take();
  }

  #enter(table: unknown): void {
    if (typeof table !== 'string') throw stepFailed();
    if (this.#table >= 0 && this.#tables[this.#table] === table) return;
    const target = this.#indexOf.get(table);
    // An unknown table, or one that sorts before the open one: the connector broke the order contract.
    if (target === undefined || target < this.#table) throw stepFailed();
    if (this.#table >= 0) this.#writeByte(CLOSE_ARRAY);
    for (let k = this.#table + 1; k < target; k++) this.#openTable(k, ':[]');
    this.#openTable(target, ':[');
    this.#table = target;
    this.#rowsInTable = 0;
  }

  #openTable(index: number, suffix: string): void {
    this.#write((index > 0 ? ',' : '') + encodeCanonicalString(this.#tables[index]) + suffix);
  }

  #count(rows: number): void {
    this.#rows += rows;
    this.#rowsInTable += rows;
  }

  #write(text: string): void {
    if (text.length > LARGE_TEXT_UNITS) {
      // A huge value: encoded on its own rather than reserving 3 bytes per unit in the buffer.
      this.#flushText();
      this.#parts.push(utf8.encode(text));
      return;
    }
    // At most 3 bytes per UTF-16 unit (a surrogate pair is 4 bytes for 2 units).
    this.#reserve(text.length * 3);
    this.#length += utf8.encodeInto(text, this.#buffer.subarray(this.#length)).written;
  }

  #writeByte(byte: number): void {
    this.#reserve(1);
    this.#buffer[this.#length++] = byte;
  }

  #reserve(bytes: number): void {
    const needed = this.#length + bytes;
    if (needed <= this.#buffer.length) return;
    const grown = new Uint8Array(Math.max(needed, this.#buffer.length * 2));
    grown.set(this.#buffer.subarray(0, this.#length));
    this.#buffer = grown;
  }

  /** Moves the buffered text into the parts as a copy the consumer may keep. */
  #flushText(): void {
    if (this.#length > 0) this.#parts.push(this.#buffer.slice(0, this.#length));
    this.#length = 0;
    if (this.#buffer.length > RETAINED_BUFFER_BYTES) this.#buffer = new Uint8Array(INITIAL_BUFFER_BYTES);
  }

  #take(): EncodedChunk {
    this.#flushText();
    const parts = this.#parts;
    const rows = this.#rows;
    this.#parts = [];
    this.#rows = 0;
    return { bytes: parts.length === 1 ? parts[0] : concat(parts), rows };
  }
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const part of parts) size += part.length;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

const COMMA = 0x2c;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

function stepFailed(): EngineError {
  return new EngineError('internal', ErrorText.stepUnexpected);
}
