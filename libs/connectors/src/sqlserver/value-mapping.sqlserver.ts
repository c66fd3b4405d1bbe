/**
 * SQL Server values as engine values. Exact types arrive as text
 * (see statement.sqlserver.ts); the rest is normalised here from what tedious returns.
 */
import { canonicalTimestamp, type JsonValue, type Row } from '@fetcher/engine';
import { parseInstant } from '../common/filter-values';

export type ValueConverter = (value: unknown) => JsonValue;

/** The converter for a column of `nativeType` (INFORMATION_SCHEMA DATA_TYPE). */
export function sqlServerConverter(nativeType: string): ValueConverter {
  switch (nativeType.toLowerCase()) {
    case 'bigint':
      return (v) => (v === null || v === undefined ? null : BigInt(v as string | number | bigint));
    case 'decimal':
    case 'numeric':
    case 'money':
    case 'smallmoney':
      return (v) => (typeof v === 'string' || typeof v === 'number' ? String(v) : null);
    case 'datetime2':
    case 'datetimeoffset':
      return (v) => (typeof v === 'string' ? isoUtcFromSqlServer(v) : generic(v));
    case 'date':
      return (v) => (v instanceof Date ? `${v.toISOString().slice(0, 10)}T00:00:00Z` : generic(v));
    case 'uniqueidentifier':
      return (v) => (typeof v === 'string' ? v.toLowerCase() : generic(v));
    default:
      return generic;
  }
}

/**
 * Style 127 text as ISO UTC: DATETIMEOFFSET comes as `...Z` already in UTC, DATETIME2 without a
 * zone and is taken as UTC; the fraction keeps its digits, trailing zeros trimmed.
 */
export function isoUtcFromSqlServer(text: string): string {
  return parseInstant(text.trim())?.dateTime ?? text;
}

/** DATETIME/SMALLDATETIME Dates (milliseconds are their full precision), bytes, and plain values. */
function generic(value: unknown): JsonValue {
  if (value === undefined) return null;
  if (value instanceof Date) return canonicalTimestamp(value);
  if (Buffer.isBuffer(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return value as JsonValue;
}

/** A row keyed by the requested field names, each value through its column's converter. */
export function convertRow(raw: Readonly<Record<string, unknown>>, converters: readonly (readonly [string, ValueConverter])[]): Row {
  const row: Record<string, JsonValue> = {};
  for (const [name, convert] of converters) row[name] = convert(raw[name]);
  return row;
}
