/**
 * Binary COPY tuples -> canonical JSON rows, written straight into
 * byte buffers: no row objects, no per-value strings for the common types. The output MUST equal
 * what the engine's encodeCanonicalRow writes for the row path's values; an integration test
 * compares the two on every fixture row.
 *
 * Binary COPY layout: an 11-byte signature, int32 flags, int32 extension length + extension; then
 * per tuple an int16 field count and per field an int32 length (-1 = NULL) and the bytes; an int16
 * -1 ends the data. Tuples may arrive split across calls; a partial tuple is carried over.
 */
import { EngineError, ErrorText, STREAM_BATCH_ROWS, encodeCanonicalJson, encodeCanonicalString } from '@fetcher/engine';
import { copyBytes, isDateShape, readInt32, writeEscaped, writeInt, writeTimestamp } from './byte-writers.postgres';
import { FieldRender, type CopyField } from './copy-columns.postgres';

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const HEADER_BYTES = 19;
const MIDNIGHT_SUFFIX = Buffer.from('T00:00:00Z"', 'latin1');
const Q = 0x22; // "
const TWO_POW_32 = 4294967296;
/** |hi| below this keeps hi * 2^32 + lo under 2^53, so the double is exact. */
const SAFE_HI = 0x200000;

/** The JSON text of the cursor and tie-breaker of a chunk's last row, as the incremental position. */
export interface ChunkPosition {
  readonly value: string | number | null;
  readonly key: string | number | null;
}

export type EncodedChunkHandler = (encoded: Uint8Array, rowCount: number, position?: ChunkPosition) => void;

/** Field indexes whose values make a chunk's position (an incremental read). */
export interface TrackedFields {
  readonly cursor: number;
  readonly key: number;
}

export class CopyRowEncoder {
  readonly #fields: readonly CopyField[];
  readonly #renders: Uint8Array;
  readonly #prefixes: readonly Buffer[];
  readonly #prefixBytes: number;
  readonly #onChunk: EncodedChunkHandler;
  readonly #targetBytes: number;
  readonly #maxRows: number;
  #out: Buffer;
  #o = 0;
  #rows = 0;
  #headerDone = false;
  #trailerSeen = false;
  #carry: Buffer[] = [];
  #carryBytes = 0;
  /** The output bound of the row being rendered. */
  #rowBound = 0;
  /** Bytes (from the carried tuple's start) needed before parsing is worth retrying. */
  #need = 0;
  readonly #track: TrackedFields | undefined;
  /** Output offsets [cursor start, cursor end, key start, key end] of the last rendered row. */
  readonly #tracked = [0, 0, 0, 0];

  /**
   * Emits chunks of whole rows, joined by `,`, once `maxRows` rows (the engine's batch of 256) or at
   * least `targetBytes` bytes are buffered, whichever comes first.
   */
  constructor(fields: readonly CopyField[], onChunk: EncodedChunkHandler, targetBytes = 65_536, maxRows = STREAM_BATCH_ROWS, track?: TrackedFields) {
    if (fields.length === 0) throw protocolError();
    this.#track = track;
    this.#fields = fields;
    this.#renders = Uint8Array.from(fields.map((f) => f.render));
    this.#prefixes = fields.map((f, i) => Buffer.from(`${i === 0 ? '{' : ','}${encodeCanonicalString(f.name)}:`, 'utf8'));
    this.#prefixBytes = this.#prefixes.reduce((sum, prefix) => sum + prefix.length, 0);
    this.#onChunk = onChunk;
    this.#targetBytes = targetBytes;
    this.#maxRows = maxRows;
    this.#out = Buffer.allocUnsafe(targetBytes + 16_384);
  }

  get rowsBuffered(): number {
    return this.#rows;
  }

  /** Consumes COPY data bytes `[start, end)` of `chunk`. The chunk must not be modified afterwards. */
  push(chunk: Buffer, start = 0, end = chunk.length): void {
    if (start >= end) return;
    if (this.#trailerSeen) throw protocolError();
    if (this.#carryBytes > 0) {
      this.#carry.push(chunk.subarray(start, end));
      this.#carryBytes += end - start;
      if (this.#carryBytes < this.#need) return;
      const joined = Buffer.concat(this.#carry, this.#carryBytes);
      this.#carry = [];
      this.#carryBytes = 0;
      this.#parse(joined, 0, joined.length);
    } else {
      this.#parse(chunk, start, end);
    }
  }

  /** The end of the data: emits the last rows; throws when the data stopped before its trailer. */
  finish(): void {
    if (!this.#trailerSeen || this.#carryBytes > 0) throw protocolError();
    this.flush();
  }

  /** Emits the rows buffered so far, if any. */
  flush(): void {
    if (this.#rows === 0) return;
    const encoded = this.#out.subarray(0, this.#o);
    const rows = this.#rows;
    const position = this.#track === undefined ? undefined : this.#lastPosition(encoded);
    this.#out = Buffer.allocUnsafe(this.#targetBytes + 16_384);
    this.#o = 0;
    this.#rows = 0;
    this.#onChunk(encoded, rows, position);
  }

  /**
   * The last row's cursor and key, read back from the JSON just written: strings parsed, numbers
   * kept as their text (an int8 beyond 2^53 stays exact), null as null.
   */
  #lastPosition(encoded: Buffer): ChunkPosition {
    const read = (start: number, end: number): string | null => {
      const text = encoded.toString('utf8', start, end);
      if (text === 'null') return null;
      return text.startsWith('"') ? (JSON.parse(text) as string) : text;
    };
    const [cs, ce, ks, ke] = this.#tracked;
    return { value: read(cs, ce), key: read(ks, ke) };
  }

  #keep(buf: Buffer, p: number, end: number, need: number): void {
    this.#carry = [buf.subarray(p, end)];
    this.#carryBytes = end - p;
    this.#need = need;
  }

  #parse(buf: Buffer, start: number, end: number): void {
    let p = start;
    if (!this.#headerDone) {
      if (end - p < HEADER_BYTES) return this.#keep(buf, p, end, HEADER_BYTES);
      if (buf.compare(SIGNATURE, 0, SIGNATURE.length, p, p + SIGNATURE.length) !== 0) throw protocolError();
      const headerBytes = HEADER_BYTES + buf.readUInt32BE(p + 15);
      if (end - p < headerBytes) return this.#keep(buf, p, end, headerBytes);
      p += headerBytes;
      this.#headerDone = true;
    }
    const fieldCount = this.#fields.length;
    while (p < end) {
      if (end - p < 2) return this.#keep(buf, p, end, 2);
      const count = (buf[p] << 8) | buf[p + 1];
      if (count === 0xffff) {
        this.#trailerSeen = true;
        if (p + 2 !== end) throw protocolError();
        return;
      }
      if (count !== fieldCount) throw protocolError();
      // First pass: is the whole tuple here? (Its end also bounds the output it can produce.)
      let q = p + 2;
      for (let i = 0; i < fieldCount; i++) {
        if (end - q < 4) return this.#keep(buf, p, end, q + 4 - p);
        const len = readInt32(buf, q);
        q += 4;
        if (len > 0) {
          if (len > end - q) return this.#keep(buf, p, end, q + len - p);
          q += len;
        }
      }
      // Worst case: every value byte escaped as \u00XX, plus keys, quotes and separators.
      this.#rowBound = (q - p) * 6 + this.#prefixBytes + 64;
      this.#ensure(this.#rowBound);
      this.#renderRow(buf, p + 2);
      this.#rows += 1;
      p = q;
      if (this.#o >= this.#targetBytes || this.#rows >= this.#maxRows) this.flush();
    }
  }

  /** Writes one complete tuple starting at its first field header; capacity is already ensured. */
  #renderRow(buf: Buffer, start: number): void {
    let out = this.#out;
    let o = this.#o;
    if (this.#rows > 0) out[o++] = 0x2c;
    const renders = this.#renders;
    const prefixes = this.#prefixes;
    let q = start;
    const track = this.#track;
    const cursorField = track === undefined ? -1 : track.cursor;
    const keyField = track === undefined ? -1 : track.key;
    for (let i = 0; i < renders.length; i++) {
      const prefix = prefixes[i];
      for (let k = 0; k < prefix.length; k++) out[o + k] = prefix[k];
      o += prefix.length;
      if (i === cursorField) this.#tracked[0] = o;
      else if (i === keyField) this.#tracked[2] = o;
      const len = readInt32(buf, q);
      q += 4;
      if (len < 0) {
        out[o] = 0x6e; // null
        out[o + 1] = 0x75;
        out[o + 2] = 0x6c;
        out[o + 3] = 0x6c;
        o += 4;
        if (i === cursorField) this.#tracked[1] = o;
        else if (i === keyField) this.#tracked[3] = o;
        continue;
      }
      switch (renders[i]) {
        case FieldRender.bool:
          if (buf[q] !== 0) {
            out[o] = 0x74; // true
            out[o + 1] = 0x72;
            out[o + 2] = 0x75;
            out[o + 3] = 0x65;
            o += 4;
          } else {
            out[o] = 0x66; // false
            out[o + 1] = 0x61;
            out[o + 2] = 0x6c;
            out[o + 3] = 0x73;
            out[o + 4] = 0x65;
            o += 5;
          }
          break;
        case FieldRender.int2:
          o = writeInt(out, o, ((buf[q] << 24) | (buf[q + 1] << 16)) >> 16);
          break;
        case FieldRender.int4:
          o = writeInt(out, o, readInt32(buf, q));
          break;
        case FieldRender.oid:
          o = writeInt(out, o, readInt32(buf, q) >>> 0);
          break;
        case FieldRender.int8: {
          const hi = readInt32(buf, q);
          if (hi >= -SAFE_HI && hi < SAFE_HI) o = writeInt(out, o, hi * TWO_POW_32 + (readInt32(buf, q + 4) >>> 0));
          else o += out.write(buf.readBigInt64BE(q).toString(), o, 'latin1');
          break;
        }
        case FieldRender.float8:
          o += out.write(encodeCanonicalJson(buf.readDoubleBE(q)), o, 'latin1');
          break;
        case FieldRender.quoted:
          out[o++] = Q;
          copyBytes(buf, q, len, out, o);
          o += len;
          out[o++] = Q;
          break;
        case FieldRender.string:
          o = writeEscaped(buf, q, q + len, out, o);
          break;
        case FieldRender.timestamptz:
          // The usual `YYYY-MM-DD HH:MM:SS[.f]+00`; anything else (BC, 5-digit years, infinity) goes the slow way.
          if (len >= 22 && isDateShape(buf, q) && buf[q + 10] === 0x20 && buf[q + len - 3] === 0x2b && buf[q + len - 2] === 0x30 && buf[q + len - 1] === 0x30) {
            o = writeTimestamp(buf, q, len - 3, out, o);
          } else {
            o = this.#writeConverted(i, buf, q, len, o);
            out = this.#out;
          }
          break;
        case FieldRender.timestamp:
          if (len >= 19 && isDateShape(buf, q) && buf[q + 10] === 0x20 && buf[q + len - 1] >= 0x30 && buf[q + len - 1] <= 0x39) {
            o = writeTimestamp(buf, q, len, out, o);
          } else {
            o = this.#writeConverted(i, buf, q, len, o);
            out = this.#out;
          }
          break;
        case FieldRender.date:
          if (len === 10 && isDateShape(buf, q)) {
            out[o++] = Q;
            copyBytes(buf, q, 10, out, o);
            o += 10;
            for (let k = 0; k < MIDNIGHT_SUFFIX.length; k++) out[o + k] = MIDNIGHT_SUFFIX[k];
            o += MIDNIGHT_SUFFIX.length;
          } else {
            o = this.#writeConverted(i, buf, q, len, o);
            out = this.#out;
          }
          break;
        case FieldRender.bytea:
          // base64 (4/3) fits the escaping bound; the quotes are in the slack.
          o += out.write(`"${buf.toString('base64', q, q + len)}"`, o, 'latin1');
          break;
        default:
          o = this.#writeConverted(i, buf, q, len, o);
          out = this.#out;
      }
      q += len;
      if (i === cursorField) this.#tracked[1] = o;
      else if (i === keyField) this.#tracked[3] = o;
    }
    out[o++] = 0x7d;
    this.#o = o;
  }

  /** The row path's conversion of the text, canonically encoded: json, arrays, float4, unusual dates and timestamps. */
  #writeConverted(i: number, buf: Buffer, q: number, len: number, o: number): number {
    const json = encodeCanonicalJson(this.#fields[i].convert(buf.toString('utf8', q, q + len)));
    this.#o = o;
    // The converted text may outgrow the row's bound; the rest of the row keeps its own.
    this.#ensure(Buffer.byteLength(json, 'utf8') + this.#rowBound);
    return o + this.#out.write(json, o, 'utf8');
  }

  #ensure(bytes: number): void {
    if (this.#o + bytes <= this.#out.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.#out.length * 2, this.#o + bytes + 1024));
    this.#out.copy(grown, 0, 0, this.#o);
    this.#out = grown;
  }
}

function protocolError(): EngineError {
  return new EngineError('unavailable', ErrorText.queryFailed);
}
