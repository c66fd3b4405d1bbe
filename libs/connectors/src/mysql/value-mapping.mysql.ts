/**
 * MySQL/MariaDB values as engine values. The pool runs with
 * `supportBigNumbers`, `bigNumberStrings`, `decimalNumbers: false` and `dateStrings`, so nothing
 * arrives rounded through a double or a JS Date; this hook turns those texts and the raw bytes of
 * BIT, binary and JSON columns into their typed values. The original emitted base64 of raw bytes.
 */
import type { JsonValue } from '@fetcher/engine';
import type { TypeCast } from 'mysql2';
import { parseJsonColumn } from '../sql/json-value';

type TypeCastField = Parameters<Exclude<TypeCast, boolean>>[0];

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d+))?$/;

/**
 * The per-query hook. `jsonColumns` names the columns discovery found to be JSON: MariaDB stores
 * JSON as LONGTEXT with a json_valid check, which the wire type does not show unless the server
 * sends extended metadata.
 */
export function mysqlTypeCast(jsonColumns: ReadonlySet<string>): TypeCast {
  return (field: TypeCastField, next: () => unknown): unknown => {
    switch (field.type) {
      case 'LONGLONG':
        return exactInteger(next());
      case 'DATE':
        return mysqlDate(next() as string | null);
      case 'DATETIME':
      case 'DATETIME2':
      case 'TIMESTAMP':
      case 'TIMESTAMP2':
        return mysqlDateTime(next() as string | null);
      case 'BIT':
        return bitValue(field.buffer(), field.length);
      case 'JSON':
        return jsonValue(field.string('utf8'));
      case 'GEOMETRY':
        return bytes(field.buffer());
      default:
        if (field.extendedFormat === 'json' || jsonColumns.has(field.name)) return jsonValue(field.string('utf8'));
        return plain(next());
    }
  };
}

/** BIGINT arrives as its digit string (bigNumberStrings); signed and unsigned both fit a bigint. */
export function exactInteger(value: unknown): bigint | null {
  return value === null || value === undefined ? null : BigInt(value as string);
}

/** `YYYY-MM-DD` -> `YYYY-MM-DDT00:00:00Z`. A zero date (`0000-00-00`) is no instant and keeps its text. */
export function mysqlDate(text: string | null): string | null {
  if (text === null) return null;
  const m = DATE.exec(text);
  return m && !isZeroDate(m[1], m[2], m[3]) ? `${text}T00:00:00Z` : text;
}

/**
 * `YYYY-MM-DD HH:MM:SS[.ffffff]` -> ISO UTC with the stored fraction, trailing zeros trimmed. The
 * session runs in UTC (`time_zone = '+00:00'`), so TIMESTAMP values are UTC and DATETIME values,
 * which have no zone, are taken as UTC.
 */
export function mysqlDateTime(text: string | null): string | null {
  if (text === null) return null;
  const m = DATE_TIME.exec(text);
  if (!m) return text;
  const [year, month, day] = m[1].split('-');
  if (isZeroDate(year, month, day)) return text;
  const fraction = (m[3] ?? '').replace(/0+$/, '');
  return `${m[1]}T${m[2]}${fraction === '' ? '' : `.${fraction}`}Z`;
}

function isZeroDate(year: string, month: string, day: string): boolean {
  return year === '0000' || month === '00' || day === '00';
}

/** BIT(1) is a flag; BIT(n > 1) the unsigned big-endian integer its bits spell. */
export function bitValue(buffer: Buffer | null, bits: number): boolean | bigint | null {
  if (buffer === null) return null;
  if (bits === 1) return buffer.length > 0 && buffer[buffer.length - 1] !== 0;
  let value = 0n;
  for (const byte of buffer) value = (value << 8n) | BigInt(byte);
  return value;
}

function jsonValue(text: string | null): JsonValue {
  return text === null ? null : parseJsonColumn(text);
}

/** A plain Uint8Array view: the engine writes any Uint8Array as base64, and tests compare like with like. */
export function bytes(buffer: Buffer | null): Uint8Array | null {
  return buffer === null ? null : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

function plain(value: unknown): unknown {
  return Buffer.isBuffer(value) ? bytes(value) : value;
}
