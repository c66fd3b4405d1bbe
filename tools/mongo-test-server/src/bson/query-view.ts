import type { Binary, BSONRegExp, Long, ObjectId } from 'bson';
import { canonicalKey } from './canonical-key';
import { bsonTypeTag, isPlainDocument, numericKind, toNumber } from './bson-values';
import { ViewValue } from './view-value';

/**
 * The query view of a stored value: what mingo evaluates. Numbers become JS numbers (so `$gt`, `$sum`
 * and friends work across Int32/Long/Double), regexes become RegExp, and every other BSON class
 * becomes a ViewValue whose string sorts like the value within its own type.
 */
export function toView(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(toView);
  if (value instanceof Date || value instanceof RegExp) return value;
  if (isPlainDocument(value)) {
    const view: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) view[key] = toView(item);
    return view;
  }
  return taggedView(value);
}

function taggedView(value: unknown): unknown {
  const kind = numericKind(value);
  if (kind === 'long' && !Number.isSafeInteger(toNumber(value))) {
    // Offset into the unsigned range and pad, so string order is numeric order among big Longs.
    const offset = BigInt((value as Long).toString()) + 2n ** 63n;
    return new ViewValue(`long:${offset.toString().padStart(20, '0')}`, value);
  }
  if (kind !== undefined) return toNumber(value);
  switch (bsonTypeTag(value)) {
    case 'BSONRegExp': return regexView(value as BSONRegExp);
    case 'Binary': {
      const bin = value as Binary;
      // Length first, then subtype, then bytes: MongoDB's BinData order.
      const hex = Buffer.from(bin.buffer.subarray(0, bin.position)).toString('hex');
      return new ViewValue(`bin:${String(bin.position).padStart(10, '0')}:${String(bin.sub_type).padStart(3, '0')}:${hex}`, value);
    }
    case 'ObjectId': return new ViewValue(`oid:${(value as ObjectId).toHexString()}`, value);
    default: return new ViewValue(canonicalKey(value), value);
  }
}

const JS_REGEX_FLAGS = new Set(['i', 'm', 's', 'u']);

function regexView(value: BSONRegExp): unknown {
  const flags = [...value.options].filter((f) => JS_REGEX_FLAGS.has(f)).join('');
  try {
    return new RegExp(value.pattern, flags);
  } catch {
    // A PCRE-only pattern JS cannot compile: keep it comparable as a value at least.
    return new ViewValue(canonicalKey(value), value);
  }
}

/** Turns an aggregation result back into storable BSON: ViewValues give back their original value. */
export function fromView(value: unknown): unknown {
  if (value instanceof ViewValue) return value.raw;
  if (Array.isArray(value)) return value.map(fromView);
  if (isPlainDocument(value)) {
    const raw: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) raw[key] = fromView(item);
    return raw;
  }
  return value;
}

/**
 * After a round trip through the view (pipeline updates), keeps the original numeric type of every
 * number whose value did not change, so an untouched Long stays a Long.
 */
export function restoreNumericTypes(updated: unknown, original: unknown): unknown {
  if (typeof updated === 'number') {
    return numericKind(original) !== undefined && toNumber(original) === updated ? original : updated;
  }
  if (Array.isArray(updated)) {
    return updated.map((item: unknown, i) => restoreNumericTypes(item, Array.isArray(original) ? original[i] : undefined));
  }
  if (isPlainDocument(updated)) {
    const source = isPlainDocument(original) ? original : {};
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(updated)) result[key] = restoreNumericTypes(item, source[key]);
    return result;
  }
  return updated;
}
