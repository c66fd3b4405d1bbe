/**
 * Oracle values as engine values. NUMBER arrives as text through
 * the fetch type handler (scale 0: exact integer; otherwise the decimal's text), LOBs inline as
 * strings or bytes, and date-times as UTC text formatted on the server (statement.oracle.ts).
 */
import { canonicalTimestamp, type JsonValue } from '@fetcher/engine';
import oracledb from 'oracledb';
import { parseJsonColumn } from '../sql/json-value';
import { parseInstant } from '../common/filter-values';

type FetchMetadata = Parameters<NonNullable<oracledb.ExecuteOptions['fetchTypeHandler']>>[0];
type FetchTypeResponse = ReturnType<NonNullable<oracledb.ExecuteOptions['fetchTypeHandler']>>;

const INTEGER = /^-?\d+$/;

export function oracleFetchTypeHandler(metadata: FetchMetadata): FetchTypeResponse {
  switch (metadata.dbType) {
    case oracledb.DB_TYPE_NUMBER:
      return { type: oracledb.STRING, converter: metadata.scale === 0 ? oracleInteger : oracleDecimal };
    case oracledb.DB_TYPE_CLOB:
    case oracledb.DB_TYPE_NCLOB:
      return { type: oracledb.STRING };
    case oracledb.DB_TYPE_BLOB:
      return { type: oracledb.BUFFER };
    default:
      return undefined;
  }
}

/** NUMBER(p, 0): exact at any size. */
export function oracleInteger(text: unknown): bigint | string | null {
  if (typeof text !== 'string') return null;
  return INTEGER.test(text) ? BigInt(text) : text;
}

/** The decimal's own digits; thin mode writes `.5` for 0.5, which JSON readers prefer as `0.5`. */
export function oracleDecimal(text: unknown): string | null {
  if (typeof text !== 'string') return null;
  return text.replace(/^(-?)\./, '$10.');
}

export type ValueConverter = (value: unknown) => JsonValue;

/** The converter applied to a fetched value of a column of `nativeType`. */
export function oracleConverter(nativeType: string): ValueConverter {
  const type = nativeType.toUpperCase();
  if (type === 'DATE' || type.startsWith('TIMESTAMP')) {
    return (v) => (typeof v === 'string' ? (parseInstant(v)?.dateTime ?? v) : generic(v));
  }
  if (type === 'JSON') return (v) => (typeof v === 'string' ? parseJsonColumn(v) : generic(v));
  return generic;
}

function generic(value: unknown): JsonValue {
  if (value === undefined) return null;
  if (Buffer.isBuffer(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof Date) return canonicalTimestamp(value);
  return value as JsonValue;
}
