import type { Binary, BSONRegExp, Long, ObjectId, Timestamp } from 'bson';
import { bsonTypeTag, isPlainDocument, numericKind, toNumber } from './bson-values';

/**
 * A string that is equal for two values exactly when MongoDB treats them as equal: numbers of any
 * type compare by value (Int32 1 = Double 1.0 = Long 1), Binary by subtype and bytes, ObjectId by
 * bytes. Used for unique-index keys, `$addToSet`, `distinct` and the query view.
 *
 * Why not mingo's equality: it compares custom classes through `toString()`, and `Binary.toString()`
 * decodes the bytes as UTF-8, so two different UUIDs can look equal.
 */
export function canonicalKey(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  switch (typeof value) {
    case 'string': return `s:${JSON.stringify(value)}`;
    case 'boolean': return `b:${value}`;
    case 'number': return `n:${numberKey(value)}`;
    case 'bigint': return `n:${value.toString()}`;
    default: break;
  }
  if (Array.isArray(value)) return `[${value.map(canonicalKey).join(',')}]`;
  if (value instanceof Date) return `d:${value.getTime()}`;
  if (value instanceof RegExp) return `r:${value.source}/${value.flags}`;
  if (isPlainDocument(value)) {
    // Field order matters to MongoDB: {a:1,b:2} and {b:2,a:1} are different values.
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${canonicalKey(v)}`).join(',')}}`;
  }
  return taggedKey(value);
}

function taggedKey(value: unknown): string {
  const tag = bsonTypeTag(value);
  if (numericKind(value) !== undefined) {
    return tag === 'Long' && !Number.isSafeInteger(toNumber(value))
      ? `n:${(value as Long).toString()}`
      : `n:${numberKey(toNumber(value))}`;
  }
  switch (tag) {
    case 'Binary': {
      const bin = value as Binary;
      return `x:${bin.sub_type}:${Buffer.from(bin.buffer.subarray(0, bin.position)).toString('hex')}`;
    }
    case 'ObjectId': return `o:${(value as ObjectId).toHexString()}`;
    case 'BSONRegExp': return `r:${(value as BSONRegExp).pattern}/${(value as BSONRegExp).options}`;
    case 'Timestamp': return `t:${(value as Timestamp).t}:${(value as Timestamp).i}`;
    case 'MinKey': return 'minkey';
    case 'MaxKey': return 'maxkey';
    case 'BSONSymbol': return `s:${JSON.stringify(String(value))}`;
    default: return `u:${tag ?? typeof value}:${String(value)}`;
  }
}

function numberKey(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  return Object.is(n, -0) ? '0' : String(n);
}
