/**
 * The canonical JSON encoding of result values.
 *
 * - compact, UTF-8, object keys sorted by UTF-8 byte order (= code point order) at every level;
 * - strings escaped as JSON.stringify does (`"`, `\`, `\b \f \n \r \t`, other controls as `\u00xx`;
 *   `<`, `>`, `&` and non-ASCII left as they are), a lone surrogate as its `\udxxx` escape: the
 *   text has no UTF-8 form, and replacing it (say by U+FFFD) could make two distinct keys equal;
 *   a lone surrogate sorts as its own code point (between U+D7FF and U+E000);
 * - integers exact (bigint, JsonNumber literal text), never through a double;
 * - floats in shortest round-trip form, NaN/Infinity/-Infinity as strings;
 * - binary as padded standard base64; Dates as ISO-8601 UTC with trailing fraction zeros trimmed.
 *
 * Connectors that pre-encode rows (CursorEncodedRows) MUST produce exactly these bytes.
 */
import { EngineError, ErrorText } from '../errors';
import { JsonNumber, type JsonValue } from '../models';

const JSON_NUMBER_LITERAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** Encodes one value. Throws EngineError('internal', 'failed to serialize extraction result') on a value JSON cannot hold. */
export function encodeCanonicalJson(value: JsonValue): string {
  return encodeValue(value, 0);
}

/** Encodes one row (a flat or nested object); the same as encodeCanonicalJson on an object. */
export function encodeCanonicalRow(row: Readonly<Record<string, JsonValue>>): string {
  return encodeObject(row, 0);
}

/** JSON string literal for `text`, as the canonical form writes it. */
export function encodeCanonicalString(text: string): string {
  // Nothing to escape and no surrogate (lone or paired): the literal is the text in quotes. Most keys
  // and values take this path; a charCode scan is cheaper than a regex on short strings.
  // JSON.stringify keeps pairs and writes each lone surrogate as a lower-case `\udxxx` escape.
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x20 || unit === 0x22 || unit === 0x5c || (unit >= 0xd800 && unit <= 0xdfff)) return JSON.stringify(text);
  }
  return `"${text}"`;
}

/** A Date as ISO-8601 UTC with the fraction's trailing zeros trimmed (`.000` disappears). */
export function canonicalTimestamp(date: Date): string {
  return date.toISOString().replace(/\.(\d+)Z$/, (_m, fraction: string) => {
    const trimmed = fraction.replace(/0+$/, '');
    return trimmed === '' ? 'Z' : `.${trimmed}Z`;
  });
}

/**
 * Code point order, which equals UTF-8 byte order; plain `<` on JS strings is UTF-16 order. A lone
 * surrogate compares as its own code point (its place in the generalised UTF-8 byte order), so keys
 * that differ only in lone surrogates still have one fixed order.
 */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Two non-surrogates at the first difference: the equal prefix decodes alike in both strings.
    if (!isSurrogate(x) && !isSurrogate(y)) return x - y;
    return compareCodePoints(a, b);
  }
  return a.length - b.length;
}

function isSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdfff;
}

function compareCodePoints(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(j)!;
    if (x !== y) return x - y;
    i += x > 0xffff ? 2 : 1;
    j += y > 0xffff ? 2 : 1;
  }
  return a.length - i - (b.length - j);
}

export function sortedKeys(object: object): string[] {
  return sortKeys(Object.keys(object));
}

// Without surrogates, UTF-16 order (the native sort) is code point order, so only keys with
// astral characters need the slower comparator.
function sortKeys(keys: string[]): string[] {
  if (keys.length < 2) return keys;
  for (const key of keys) if (hasSurrogate(key)) return keys.sort(compareUtf8);
  if (keys.length > 16) return keys.sort();
  // Rows have few keys: an insertion sort with `<` beats the generic sort's overhead there.
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i];
    let j = i - 1;
    while (j >= 0 && keys[j] > key) {
      keys[j + 1] = keys[j];
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

function hasSurrogate(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (isSurrogate(text.charCodeAt(i))) return true;
  return false;
}

/**
 * An object "shape": its own keys in insertion order, with the sorted order and each key's encoded
 * `"key":` prefix worked out once. Rows of one table share a shape, so sorting and key escaping are
 * skipped for every row after the first.
 */
interface Shape {
  readonly keys: readonly string[];
  readonly sorted: readonly string[];
  readonly prefixes: readonly string[];
}

// Bounded: cleared once it holds this many first-keys, so memory stays flat whatever the data.
const SHAPE_CACHE_LIMIT = 256;
const SHAPES_PER_FIRST_KEY = 8;
const shapes = new Map<string, Shape[]>();

function shapeOf(keys: string[]): Shape {
  const first = keys[0];
  let bucket = shapes.get(first);
  if (bucket !== undefined) {
    for (let b = 0; b < bucket.length; b++) {
      const shape = bucket[b];
      if (sameKeys(shape.keys, keys)) return shape;
    }
  } else {
    if (shapes.size >= SHAPE_CACHE_LIMIT) shapes.clear();
    bucket = [];
    shapes.set(first, bucket);
  }
  const sorted = sortKeys(keys.slice());
  const shape: Shape = { keys, sorted, prefixes: sorted.map((key) => encodeCanonicalString(key) + ':') };
  if (bucket.length >= SHAPES_PER_FIRST_KEY) bucket.length = 0;
  bucket.push(shape);
  return shape;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const MAX_DEPTH = 512;

function encodeValue(value: unknown, depth: number): string {
  switch (typeof value) {
    case 'string':
      return encodeCanonicalString(value);
    case 'number':
      return encodeNumber(value);
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      if (depth >= MAX_DEPTH) throw serializeError();
      if (Array.isArray(value)) return encodeArray(value, depth + 1);
      if (value instanceof JsonNumber) return encodeJsonNumber(value);
      if (value instanceof Uint8Array) return `"${base64(value)}"`;
      if (value instanceof Date) {
        if (Number.isNaN(value.getTime())) throw serializeError();
        return `"${canonicalTimestamp(value)}"`;
      }
      if (isPlainObject(value)) return encodeObject(value as Record<string, unknown>, depth + 1);
      throw serializeError();
    default:
      throw serializeError();
  }
}

function encodeNumber(value: number): string {
  if (Number.isFinite(value)) return Object.is(value, -0) ? '0' : String(value);
  if (Number.isNaN(value)) return '"NaN"';
  return value > 0 ? '"Infinity"' : '"-Infinity"';
}

function encodeJsonNumber(value: JsonNumber): string {
  if (!JSON_NUMBER_LITERAL.test(value.text)) throw serializeError();
  return value.text;
}

function encodeArray(values: readonly unknown[], depth: number): string {
  let out = '[';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    const item = values[i];
    out += item === undefined ? 'null' : encodeValue(item, depth);
  }
  return out + ']';
}

function encodeObject(object: Readonly<Record<string, unknown>>, depth: number): string {
  const keys = Object.keys(object);
  if (keys.length === 0) return '{}';
  const { sorted, prefixes } = shapeOf(keys);
  let out = '{';
  for (let i = 0; i < sorted.length; i++) {
    const item = object[sorted[i]];
    if (item === undefined) continue; // as JSON.stringify: an absent value is an absent key
    if (out.length > 1) out += ',';
    out += prefixes[i];
    out += typeof item === 'string' ? encodeCanonicalString(item) : encodeValue(item, depth);
  }
  return out + '}';
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function serializeError(): EngineError {
  return new EngineError('internal', ErrorText.serializeFailed);
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard padded base64; the engine may not rely on Node's Buffer. */
export function base64(bytes: Uint8Array): string {
  let out = '';
  const full = bytes.length - (bytes.length % 3);
  for (let i = 0; i < full; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += B64[(n >>> 18) & 63] + B64[(n >>> 12) & 63] + B64[(n >>> 6) & 63] + B64[n & 63];
  }
  const rest = bytes.length - full;
  if (rest === 1) {
    const n = bytes[full] << 16;
    out += B64[(n >>> 18) & 63] + B64[(n >>> 12) & 63] + '==';
  } else if (rest === 2) {
    const n = (bytes[full] << 16) | (bytes[full + 1] << 8);
    out += B64[(n >>> 18) & 63] + B64[(n >>> 12) & 63] + B64[(n >>> 6) & 63] + '=';
  }
  return out;
}
