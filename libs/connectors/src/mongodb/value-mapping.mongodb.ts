/**
 * BSON values -> engine values.
 *
 * Documents are deserialised here rather than by the driver (the query cursor runs in `raw` mode),
 * so that one undecodable document is skipped instead of failing the whole cursor, and so that
 * 64-bit integers come out as exact bigints whatever the client's defaults.
 */
import { BSON, type Binary, type DBRef, type Decimal128, type Document, type Long, type ObjectId } from 'mongodb';
import { canonicalTimestamp, type JsonValue, type Row } from '@fetcher/engine';

/**
 * `useBigInt64`: every Long is a bigint (never a rounded number). `promoteBuffers: false`: Binary
 * keeps its subtype and length (16 bytes -> UUID). `bsonRegExp`: regular expressions stay BSON
 * values (a JS RegExp would reject some server flags and lose the original options).
 */
export const BSON_DESERIALIZE_OPTIONS = Object.freeze({
  useBigInt64: true,
  promoteValues: true,
  promoteBuffers: false,
  bsonRegExp: true,
  validation: { utf8: true },
} as const);

/** One document from its BSON bytes; `undefined` when the bytes cannot be decoded (the caller skips it). */
export function decodeDocument(bytes: Uint8Array): Row | undefined {
  const document = deserializeDocument(bytes);
  return document === undefined ? undefined : mapDocument(document);
}

/** The driver-level document (BSON classes intact), or `undefined` when the bytes cannot be decoded. */
export function deserializeDocument(bytes: Uint8Array): Document | undefined {
  try {
    return BSON.deserialize(bytes, BSON_DESERIALIZE_OPTIONS);
  } catch {
    return undefined;
  }
}

/** A deserialised document as an engine row; nested documents and arrays recursively. */
export function mapDocument(document: Readonly<Document>): Row {
  const row: Record<string, JsonValue> = {};
  for (const key of Object.keys(document)) assign(row, key, mapBsonValue(document[key]));
  return row;
}

/** One BSON value as the engine's JsonValue. */
export function mapBsonValue(value: unknown): JsonValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'number':
    case 'bigint':
      return value;
    case 'undefined':
      return null; // the deprecated BSON undefined type
    case 'object':
      return value === null ? null : mapObject(value);
    default:
      return null;
  }
}

function mapObject(value: object): JsonValue {
  if (Array.isArray(value)) return value.map(mapBsonValue);
  if (value instanceof Date) return mapDate(value);
  const bsonType = (value as { _bsontype?: unknown })._bsontype;
  switch (bsonType) {
    case 'ObjectId':
      return (value as ObjectId).toHexString();
    case 'Binary':
      return mapBinary(value as Binary);
    case 'Decimal128':
      return (value as Decimal128).toString();
    case 'Long':
      return BigInt((value as Long).toString());
    case 'Int32':
    case 'Double':
      return (value as { value: number }).value;
    case 'DBRef':
      return mapDbRef(value as DBRef);
    case undefined:
      break;
    default:
      // Timestamp, BSONRegExp, MinKey, MaxKey, Code: their relaxed Extended JSON form.
      return extendedJson(value);
  }
  if (value instanceof Uint8Array) return new Uint8Array(value);
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto === Object.prototype || proto === null) return mapDocument(value);
  return extendedJson(value);
}

/**
 * Milliseconds, as BSON stores them. A BSON date beyond JS Date's range (+-275760 years) arrives
 * as an invalid Date whose value the decoder already lost; it becomes null rather than failing the row.
 */
function mapDate(value: Date): JsonValue {
  return Number.isNaN(value.getTime()) ? null : canonicalTimestamp(value);
}

/** 16 bytes of any subtype read as a UUID; anything else stays bytes (the engine writes base64). */
function mapBinary(value: Binary): JsonValue {
  const bytes = value.value();
  return bytes.length === 16 ? uuidText(bytes) : new Uint8Array(bytes);
}

/** DBRef is a document convention, not a BSON type: its fields map like any document's. */
function mapDbRef(value: DBRef): JsonValue {
  const out: Record<string, JsonValue> = {};
  assign(out, '$ref', value.collection);
  assign(out, '$id', mapBsonValue(value.oid));
  if (value.db !== undefined) assign(out, '$db', value.db);
  for (const key of Object.keys(value.fields)) assign(out, key, mapBsonValue(value.fields[key]));
  return out;
}

function extendedJson(value: object): JsonValue {
  return BSON.EJSON.serialize(value, { relaxed: true });
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Lower-case 8-4-4-4-12 form of 16 bytes. */
export function uuidText(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) out += '-';
    out += HEX[bytes[i]];
  }
  return out;
}

/** A key named `__proto__` must become an own property, not the object's prototype. */
function assign(target: Record<string, JsonValue>, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[key] = value;
  }
}
