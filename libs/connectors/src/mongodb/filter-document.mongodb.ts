/**
 * Request filters -> a MongoDB query document. Values are coerced by the field's inferred kind, because BSON comparisons are
 * type-sensitive: an ISO string never matches a BSON date (the original's bug), a hex string never
 * matches an ObjectId.
 */
import { Binary, Decimal128, ObjectId, type Document } from 'mongodb';
import {
  EngineError,
  FILTER_OPERATORS,
  JsonNumber,
  compareUtf8,
  normaliseFilterValue,
  nextDayStart,
  parseInstant,
  type ColumnKind,
  type FilterCondition,
} from '@fetcher/engine';
import { valueMismatch } from '../common/filter-values';

type Comparison = 'gt' | 'gte' | 'lt' | 'lte';
const COMPARISON: ReadonlySet<string> = new Set<Comparison>(['gt', 'gte', 'lt', 'lte']);

const INTEGER = /^[+-]?\d+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * `conditions` maps field names (dotted paths allowed) to their condition; `kinds` gives each
 * field's inferred kind (absent: `other`, no coercion). `path` is `<config>.<table>`; errors name
 * `<path>.<field>`. Fields are visited in UTF-8 order and operators in their fixed order, so the
 * same filters always give the same document.
 */
export function buildFilterDocument(
  conditions: Readonly<Record<string, FilterCondition>> | undefined,
  kinds: ReadonlyMap<string, ColumnKind>,
  path: string,
): Document {
  const filter: Document = {};
  if (!conditions) return filter;
  for (const field of Object.keys(conditions).sort(compareUtf8)) {
    const condition = conditions[field];
    if (condition === null || typeof condition !== 'object') continue;
    // A key starting with `$` in a filter is an operator (`$where` runs JavaScript, `$expr`...), so a
    // field named like one is never put there: filtering on it is refused instead.
    if (field.split('.').some((segment) => segment.startsWith('$'))) {
      throw new EngineError('validation', `filter field cannot be filtered in MongoDB: ${path}.${field}`);
    }
    const clause = fieldClause(condition, kinds.get(field) ?? 'other', `${path}.${field}`);
    if (clause !== undefined) defineKey(filter, field, clause);
  }
  return filter;
}

/** The value for one field: an equality value, an operator document, or nothing. */
function fieldClause(condition: FilterCondition, kind: ColumnKind, path: string): unknown {
  const operators: Document = {};
  let equality: { value: unknown } | undefined;
  const coerce = (value: unknown): unknown => coerceValue(kind, value, path);
  for (const op of FILTER_OPERATORS) {
    const raw = (condition as Readonly<Record<string, unknown>>)[op];
    if (raw === undefined) continue;
    if (!Array.isArray(raw)) throw valueMismatch(path);
    const values = raw as readonly unknown[];
    if (values.length === 0) continue; // empty conditions are skipped
    if (op === 'eq') {
      if (values.length === 1) equality = { value: coerce(values[0]) };
      else operators.$in = values.map(coerce);
    } else if (COMPARISON.has(op)) {
      if (values.length !== 1) throw new EngineError('validation', `filter operator requires exactly one value: ${path}`);
      operators[`$${op}`] = coerce(values[0]);
    } else if (op === 'between') {
      // Quirk (kept): any count other than two is ignored. It replaces gte/lte.
      if (values.length !== 2) continue;
      operators.$gte = coerce(values[0]);
      // A date-only upper bound on a date-time field covers that whole day, as in SQL.
      const dayEnd = kind === 'datetime' && typeof values[1] === 'string' ? wholeDayEnd(values[1]) : undefined;
      if (dayEnd) operators.$lt = dayEnd;
      else operators.$lte = coerce(values[1]);
    } else if (op === 'in') {
      operators.$in = values.map(coerce); // replaces eq with several values
    } else if (op === 'nin') {
      operators.$nin = values.map(coerce);
    } else if (op === 'ne') {
      if (values.length === 1) operators.$ne = coerce(values[0]);
      else operators.$nin = values.map(coerce); // replaces nin
    } else if (op === 'like') {
      if (typeof values[0] !== 'string') continue;
      // Case-insensitive: a quirk kept from the original, unlike SQL LIKE, where the collation decides.
      operators.$regex = likePattern(values[0]);
      operators.$options = 'i';
    }
  }
  // Quirk (kept): an equality combined with any operator is replaced by the operator document.
  if (Object.keys(operators).length > 0) return operators;
  return equality?.value;
}

/**
 * SQL LIKE -> regular expression: `%` -> `.*`, `_` -> `.`, every other metacharacter escaped (the
 * original did not escape them), anchored at each end that is not a `%`.
 */
export function likePattern(like: string): string {
  let body = '';
  for (const char of like) {
    if (char === '%') body += '.*';
    else if (char === '_') body += '.';
    else body += char.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
  }
  const start = like.startsWith('%') ? '' : '^';
  const end = like.endsWith('%') ? '' : '$';
  return `${start}${body}${end}`;
}

/**
 * Coerces one filter value by kind; what is accepted is the engine's own check
 * (`normaliseFilterValue`, the planner's), so a planned value never fails here. `null` passes (the
 * planner allows it only in single eq/ne). Kinds without a rule (string, other, ...) keep the value
 * as given: BSON comparisons are typed, and turning a number into text would change what matches.
 */
export function coerceValue(kind: ColumnKind, value: unknown, path: string): unknown {
  if (value === null) return null;
  switch (kind) {
    case 'objectId':
      return ObjectId.createFromHexString(checked(kind, value, path) as string);
    case 'uuid':
      return uuidBinary(checked(kind, value, path) as string);
    case 'datetime':
    case 'date': {
      const instant = typeof value === 'string' ? parseInstant(value) : undefined;
      if (!instant) throw valueMismatch(path);
      return new Date(instant.dateTime);
    }
    case 'decimal':
      return decimalValue(value, path);
    case 'float':
    case 'integer':
      return numberValue(value, path);
    case 'boolean':
      return checked(kind, value, path);
    case 'binary':
      return binaryValue(value, path);
    default:
      // An exact-number literal is compared as the number it spells; one no BSON number can hold stays its text.
      if (!(value instanceof JsonNumber)) return value;
      try {
        return numberValue(value, path);
      } catch {
        return value.text;
      }
  }
}

/** The exclusive end of the day a date-only text names, or undefined when the text is not date-only. */
function wholeDayEnd(text: string): Date | undefined {
  if (!parseInstant(text)?.dateOnly) return undefined;
  const next = nextDayStart(text);
  return next === undefined ? undefined : new Date(next);
}

function checked(kind: ColumnKind, value: unknown, path: string): string | number | boolean | bigint {
  const normal = normaliseFilterValue(kind, value);
  if (normal === undefined) throw valueMismatch(path);
  return normal;
}

function uuidBinary(text: string): Binary {
  return Binary.createFromHexString(text.replace(/-/g, ''), Binary.SUBTYPE_UUID);
}

/** Decimal128 fields compare exactly against a Decimal128; a number compares numerically. */
function decimalValue(value: unknown, path: string): unknown {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  const text = checked('decimal', value, path) as string;
  try {
    return Decimal128.fromString(text.replace(/^\+/, ''));
  } catch {
    return Number(text); // forms Decimal128 does not parse (`1.`, `.5`, huge exponents) are still numbers
  }
}

/**
 * "number" fields hold Int32, Long and Double alike, which MongoDB compares numerically. An integer
 * beyond 2^53 is sent as an exact 64-bit Long (bigint), never rounded through a double.
 */
function numberValue(value: unknown, path: string): unknown {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  const text = checked('decimal', value, path) as string;
  if (INTEGER.test(text)) {
    const integer = BigInt(text);
    if (integer >= BigInt(Number.MIN_SAFE_INTEGER) && integer <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(integer);
    if (integer >= INT64_MIN && integer <= INT64_MAX) return integer;
  }
  const number = Number(text);
  if (!Number.isFinite(number)) throw valueMismatch(path);
  return number;
}

/**
 * Binary fields: a UUID string (the form 16-byte binaries are emitted in) becomes a UUID binary
 * (subtype 4); base64 becomes generic binary (subtype 0).
 */
function binaryValue(value: unknown, path: string): unknown {
  const uuid = normaliseFilterValue('uuid', value);
  if (uuid !== undefined) return uuidBinary(uuid as string);
  return Binary.createFromBase64(checked('binary', value, path) as string, Binary.SUBTYPE_DEFAULT);
}

/** A field named `__proto__` must become an own key of the filter, not its prototype. */
function defineKey(target: Document, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}
