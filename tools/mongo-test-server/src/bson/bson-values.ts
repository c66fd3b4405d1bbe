import { Decimal128, Double, Int32, Long } from 'bson';

/** A BSON document as the server keeps it: deserialized with `promoteValues: false`, so Int32, Double
 *  and Long stay wrapped and round-trip with their original type. */
export type BsonDocument = Record<string, unknown>;

/** The bson library tags every value class with `_bsontype`; reading the tag (not `instanceof`) also
 *  recognises values built by another copy of the library, such as the driver's. */
export function bsonTypeTag(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const tag = (value as { _bsontype?: unknown })._bsontype;
  return typeof tag === 'string' ? tag : undefined;
}

export function isPlainDocument(value: unknown): value is BsonDocument {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

export type NumericKind = 'int' | 'long' | 'double' | 'decimal';

export function numericKind(value: unknown): NumericKind | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value === (value | 0) ? 'int' : 'double';
  switch (bsonTypeTag(value)) {
    case 'Int32': return 'int';
    case 'Long': return 'long';
    case 'Double': return 'double';
    case 'Decimal128': return 'decimal';
    default: return undefined;
  }
}

/** The value as a JS number; Long and Decimal128 beyond double precision are rounded. */
export function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  switch (bsonTypeTag(value)) {
    case 'Int32':
    case 'Double': return (value as Int32 | Double).value;
    case 'Long': return (value as Long).toNumber();
    case 'Decimal128': return Number((value as Decimal128).toString());
    default: return Number.NaN;
  }
}

/** Reads an optional numeric command argument (any BSON number type or a boolean). */
export function optionalNumber(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value ? 1 : 0;
  const n = toNumber(value);
  return Number.isNaN(n) ? undefined : n;
}

export function isTruthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (numericKind(value) !== undefined) return toNumber(value) !== 0;
  return true;
}

/** Copies containers and shares leaves: BSON value objects are never mutated, so sharing is safe. */
export function cloneValue<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => cloneValue(item)) as T;
  if (isPlainDocument(value)) {
    const copy: BsonDocument = {};
    for (const [key, item] of Object.entries(value)) copy[key] = cloneValue(item);
    return copy as T;
  }
  return value;
}

/** Builds a number of the given kind, widening int to long on overflow as MongoDB does. */
export function makeNumber(kind: NumericKind, value: number): unknown {
  switch (kind) {
    case 'int':
      if (Number.isInteger(value) && value === (value | 0)) return new Int32(value);
      return Number.isSafeInteger(value) ? Long.fromNumber(value) : new Double(value);
    case 'long': return Long.fromNumber(value);
    case 'double': return new Double(value);
    case 'decimal': return Decimal128.fromString(String(value));
  }
}

const KIND_RANK: Record<NumericKind, number> = { int: 0, long: 1, double: 2, decimal: 3 };

export function widerKind(a: NumericKind, b: NumericKind): NumericKind {
  return KIND_RANK[a] >= KIND_RANK[b] ? a : b;
}

/** a + b with MongoDB's result type. Two Longs (or Long and int) add exactly. */
export function addNumbers(a: unknown, b: unknown): unknown {
  const kind = widerKind(numericKind(a) ?? 'double', numericKind(b) ?? 'double');
  if (kind === 'long') {
    const sum = Long.fromValue(toLong(a)).add(toLong(b));
    return sum;
  }
  return makeNumber(kind, toNumber(a) + toNumber(b));
}

export function multiplyNumbers(a: unknown, b: unknown): unknown {
  const kind = widerKind(numericKind(a) ?? 'double', numericKind(b) ?? 'double');
  if (kind === 'long') return Long.fromValue(toLong(a)).multiply(toLong(b));
  return makeNumber(kind, toNumber(a) * toNumber(b));
}

function toLong(value: unknown): Long {
  return bsonTypeTag(value) === 'Long' ? (value as Long) : Long.fromNumber(toNumber(value));
}
