/**
 * Incremental positions: which kinds may order a table, the normal form their values are bound in,
 * the JSON-safe form a result reports, and the order itself. The in-memory connector sorts with
 * `comparePositions`, and the runner checks every connector's rows against it, so "after this
 * position" means the same thing on both sides of the port.
 */
import { compareUtf8 } from '../canonical/encode';
import type { ColumnKind, CursorPosition, FilterBound, IncrementalQuery, OrderableKind, PositionValue } from '../models';
import { normaliseFilterValue } from '../planner/filter-values';

/**
 * json, binary and `other` (arrays, sub-documents, unknown types) have no order the engine can
 * check; boolean and time are refused as useless or wrapping cursors (a day's times repeat).
 */
export const ORDERABLE_KINDS: ReadonlySet<ColumnKind> = new Set<OrderableKind>([
  'integer',
  'decimal',
  'float',
  'date',
  'datetime',
  'uuid',
  'objectId',
  'string',
]);

export function isOrderableKind(kind: ColumnKind): kind is OrderableKind {
  return ORDERABLE_KINDS.has(kind);
}

/** The bound a connector binds for one non-null value, or undefined when it does not fit the kind. */
export function normaliseBound(kind: OrderableKind, value: unknown): FilterBound | undefined {
  if (value === null || value === undefined) return undefined;
  // A text cursor is compared as the exact text: numbers are not silently turned into text.
  if (kind === 'string' && typeof value !== 'string') return undefined;
  return normaliseFilterValue(kind, value);
}

/** The JSON-safe form of a bound: integers as digit strings, everything else as normalised. */
export function toPositionValue(bound: FilterBound): PositionValue {
  return typeof bound === 'bigint' ? bound.toString() : bound;
}

/** A bound pair in the query's order. `null` cursor values (nulls first) sort before all others. */
export interface Bounds {
  readonly value: FilterBound | null;
  readonly key: FilterBound;
}

/** Reads a reported position (or a request's `after`) back into bounds; undefined when it does not fit. */
export function positionBounds(query: Pick<IncrementalQuery, 'cursorKind' | 'tieBreakerKind' | 'nulls'>, position: unknown): Bounds | undefined {
  if (typeof position !== 'object' || position === null || Array.isArray(position)) return undefined;
  const { value, key } = position as Record<string, unknown>;
  const keyBound = normaliseBound(query.tieBreakerKind, key);
  if (keyBound === undefined) return undefined;
  if (value === null) return query.nulls === 'first' ? { value: null, key: keyBound } : undefined;
  const valueBound = normaliseBound(query.cursorKind, value);
  return valueBound === undefined ? undefined : { value: valueBound, key: keyBound };
}

export function toPosition(bounds: Bounds): CursorPosition {
  return { value: bounds.value === null ? null : toPositionValue(bounds.value), key: toPositionValue(bounds.key) };
}

/** Orders two positions by (cursor, tie-breaker); negative, zero or positive. */
export function comparePositions(query: Pick<IncrementalQuery, 'cursorKind' | 'tieBreakerKind'>, a: Bounds, b: Bounds): number {
  if (a.value === null || b.value === null) {
    if (a.value !== b.value) return a.value === null ? -1 : 1;
  } else {
    const byValue = compareBound(query.cursorKind, a.value, b.value);
    if (byValue !== 0) return byValue;
  }
  return compareBound(query.tieBreakerKind, a.key, b.key);
}

/** Compares two normalised bounds of one kind. */
export function compareBound(kind: OrderableKind, a: FilterBound, b: FilterBound): number {
  switch (kind) {
    case 'integer':
    case 'float':
      return sign(a as bigint | number, b as bigint | number);
    case 'decimal':
      return compareDecimal(String(a), String(b));
    case 'datetime':
      return compareDateTime(String(a), String(b));
    case 'string':
      return compareUtf8(String(a), String(b));
    case 'date':
    case 'uuid':
    case 'objectId':
      // Fixed-width lower-case text: code-unit order is the value order (uuid: its 16 bytes).
      return sign(String(a), String(b));
  }
}

function sign<T extends string | number | bigint>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `YYYY-MM-DDTHH:MM:SS[.fraction]Z`: the seconds, then the fraction padded to equal length. */
function compareDateTime(a: string, b: string): number {
  const bySeconds = sign(a.slice(0, 19), b.slice(0, 19));
  if (bySeconds !== 0) return bySeconds;
  const fa = fraction(a);
  const fb = fraction(b);
  const width = Math.max(fa.length, fb.length);
  return sign(fa.padEnd(width, '0'), fb.padEnd(width, '0'));
}

function fraction(dateTime: string): string {
  return dateTime.length > 20 ? dateTime.slice(20, -1) : '';
}

/**
 * Exact order of numeric literal texts (`-1.50`, `.5`, `1e10`), without converting to a double.
 * Each becomes a sign, significant digits d and an exponent e with value = 0.d x 10^e.
 */
export function compareDecimal(a: string, b: string): number {
  const x = decimalParts(a);
  const y = decimalParts(b);
  if (x.sign !== y.sign) return sign(x.sign, y.sign);
  if (x.sign === 0) return 0;
  let magnitude = sign(x.exponent, y.exponent);
  if (magnitude === 0) {
    const width = Math.max(x.digits.length, y.digits.length);
    magnitude = sign(x.digits.padEnd(width, '0'), y.digits.padEnd(width, '0'));
  }
  return magnitude === 0 ? 0 : x.sign * magnitude;
}

function decimalParts(text: string): { sign: number; digits: string; exponent: number } {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) return { sign: 0, digits: '', exponent: 0 };
  const whole = match[2];
  const all = whole + (match[3] ?? '');
  const leading = all.length - all.replace(/^0+/, '').length;
  const digits = all.slice(leading).replace(/0+$/, '');
  if (digits === '') return { sign: 0, digits: '', exponent: 0 };
  const exponent = whole.length - leading + Number(match[4] ?? 0);
  return { sign: match[1] === '-' ? -1 : 1, digits, exponent };
}
