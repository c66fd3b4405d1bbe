import type { Binary, BSONRegExp, Long, ObjectId, Timestamp } from 'bson';
import { bsonTypeTag, isPlainDocument, numericKind, toNumber } from './bson-values';

/** MongoDB's comparison order across types: MinKey < null < numbers < strings < objects < arrays
 *  < BinData < ObjectId < booleans < dates < timestamps < regexes < MaxKey. */
export function bsonTypeRank(value: unknown): number {
  if (value === undefined || value === null) return 2;
  switch (typeof value) {
    case 'number':
    case 'bigint': return 3;
    case 'string': return 4;
    case 'boolean': return 9;
    default: break;
  }
  if (Array.isArray(value)) return 6;
  if (value instanceof Date) return 10;
  if (value instanceof RegExp) return 12;
  if (isPlainDocument(value)) return 5;
  if (numericKind(value) !== undefined) return 3;
  switch (bsonTypeTag(value)) {
    case 'MinKey': return 1;
    case 'BSONSymbol': return 4;
    case 'Binary': return 7;
    case 'ObjectId': return 8;
    case 'Timestamp': return 11;
    case 'BSONRegExp': return 12;
    case 'MaxKey': return 13;
    default: return 5;
  }
}

const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);

/** Total order over BSON values, as MongoDB sorts them. */
export function compareBson(a: unknown, b: unknown): number {
  const rankA = bsonTypeRank(a);
  const rankB = bsonTypeRank(b);
  if (rankA !== rankB) return sign(rankA - rankB);
  switch (rankA) {
    case 3: return compareNumbers(a, b);
    case 4: return compareStrings(String(a), String(b));
    case 5: return compareDocuments(a as Record<string, unknown>, b as Record<string, unknown>);
    case 6: return compareArrays(a as unknown[], b as unknown[]);
    case 7: return compareBinary(a as Binary, b as Binary);
    case 8: return compareStrings((a as ObjectId).toHexString(), (b as ObjectId).toHexString());
    case 9: return sign(Number(a) - Number(b));
    case 10: return sign((a as Date).getTime() - (b as Date).getTime());
    case 11: return (a as Timestamp).compare(b as Timestamp);
    case 12: return compareRegex(a, b);
    default: return 0;
  }
}

function compareNumbers(a: unknown, b: unknown): number {
  if (bsonTypeTag(a) === 'Long' && bsonTypeTag(b) === 'Long') return (a as Long).compare(b as Long);
  const x = toNumber(a);
  const y = toNumber(b);
  // MongoDB sorts NaN below every other number.
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) ? (Number.isNaN(y) ? 0 : -1) : 1;
  return sign(x - y);
}

/** MongoDB compares strings by their UTF-8 bytes (no collation). */
function compareStrings(a: string, b: string): number {
  return a === b ? 0 : sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
}

function compareDocuments(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const left = Object.entries(a);
  const right = Object.entries(b);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const [keyA, valueA] = left[i];
    const [keyB, valueB] = right[i];
    const byType = sign(bsonTypeRank(valueA) - bsonTypeRank(valueB));
    if (byType !== 0) return byType;
    const byKey = compareStrings(keyA, keyB);
    if (byKey !== 0) return byKey;
    const byValue = compareBson(valueA, valueB);
    if (byValue !== 0) return byValue;
  }
  return sign(left.length - right.length);
}

function compareArrays(a: unknown[], b: unknown[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = compareBson(a[i], b[i]);
    if (order !== 0) return order;
  }
  return sign(a.length - b.length);
}

function compareBinary(a: Binary, b: Binary): number {
  if (a.position !== b.position) return sign(a.position - b.position);
  if (a.sub_type !== b.sub_type) return sign(a.sub_type - b.sub_type);
  return sign(Buffer.compare(a.buffer.subarray(0, a.position), b.buffer.subarray(0, b.position)));
}

function compareRegex(a: unknown, b: unknown): number {
  const parts = (r: unknown): [string, string] => (r instanceof RegExp
    ? [r.source, r.flags]
    : [(r as BSONRegExp).pattern, (r as BSONRegExp).options]);
  const [patternA, flagsA] = parts(a);
  const [patternB, flagsB] = parts(b);
  return compareStrings(patternA, patternB) || compareStrings(flagsA, flagsB);
}
