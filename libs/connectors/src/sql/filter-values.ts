/**
 * Filter values checked against the column kind (spec: worker-engine.md C3, B10 step 9) and turned
 * into the one form each kind binds as. The original forced UUID parsing on any field whose name
 * contained `id` (`width`, `valid_until`...); here only the discovered kind decides.
 */
import { EngineError, type ColumnKind } from '@fetcher/engine';

/**
 * A checked filter value. Forms: integer bigint; decimal exact string; float number; boolean
 * boolean; uuid lower-case string; date 'YYYY-MM-DD'; datetime ISO UTC string with Z; objectId
 * lower-case 24-hex string; string/json/time/other string; binary Uint8Array; null only for eq/ne.
 */
export interface BoundValue {
  readonly kind: ColumnKind;
  readonly value: string | number | boolean | bigint | Uint8Array | null;
}

export function valueMismatch(path: string): EngineError {
  return new EngineError('validation', `filter value does not match the column type: ${path}`);
}

const INTEGER = /^[+-]?\d+$/;
const NUMERIC = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const OBJECT_ID = /^[0-9a-f]{24}$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/** Checks one non-null value against `kind`; `path` names the field in the error text. */
export function bindFilterValue(kind: ColumnKind, value: unknown, path: string): BoundValue {
  const bound = convert(kind, value);
  if (bound === undefined) throw valueMismatch(path);
  return { kind, value: bound };
}

function convert(kind: ColumnKind, value: unknown): BoundValue['value'] | undefined {
  switch (kind) {
    case 'integer':
      return toInteger(value);
    case 'decimal':
      return toNumericText(value);
    case 'float': {
      const text = toNumericText(value);
      const number = text === undefined ? NaN : Number(text);
      return Number.isFinite(number) ? number : undefined;
    }
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      return undefined;
    case 'uuid':
      return typeof value === 'string' && UUID.test(value) ? value.toLowerCase() : undefined;
    case 'objectId':
      return typeof value === 'string' && OBJECT_ID.test(value) ? value.toLowerCase() : undefined;
    case 'date': {
      const instant = typeof value === 'string' ? parseInstant(value) : undefined;
      return instant?.date;
    }
    case 'datetime': {
      const instant = typeof value === 'string' ? parseInstant(value) : undefined;
      return instant?.dateTime;
    }
    case 'binary':
      return typeof value === 'string' && BASE64.test(value) ? new Uint8Array(Buffer.from(value, 'base64')) : undefined;
    case 'string':
    case 'json':
    case 'time':
    case 'other':
      return toText(value);
  }
}

function toInteger(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : undefined;
  if (typeof value === 'string' && INTEGER.test(value)) return BigInt(value);
  return undefined;
}

function toNumericText(value: unknown): string | undefined {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'string' && NUMERIC.test(value)) return value;
  return undefined;
}

function toText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** A date or date-time in UTC, both as the date column and the datetime column bind it. */
export interface ParsedInstant {
  /** `YYYY-MM-DD` of the UTC instant. */
  readonly date: string;
  /** `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, fraction as given with trailing zeros trimmed. */
  readonly dateTime: string;
  /** The input had no time part. */
  readonly dateOnly: boolean;
}

/**
 * `YYYY-MM-DD` or an ISO-8601 date-time (`Z`, an offset, or no zone = UTC). Parsed by hand rather
 * than through `Date`, which would cut a microsecond fraction to milliseconds.
 */
export function parseInstant(text: string): ParsedInstant | undefined {
  const dateOnly = DATE_ONLY.exec(text);
  if (dateOnly) {
    const [year, month, day] = [Number(dateOnly[1]), Number(dateOnly[2]), Number(dateOnly[3])];
    if (!validDate(year, month, day)) return undefined;
    return { date: text, dateTime: `${text}T00:00:00Z`, dateOnly: true };
  }
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute] = [1, 2, 3, 4, 5].map((i) => Number(m[i]));
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (!validDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return undefined;
  const offsetMinutes = parseOffset(m[8]);
  if (offsetMinutes === undefined) return undefined;
  const millis = utcMillis(year, month, day) + ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000;
  const fraction = (m[7] ?? '').replace(/0+$/, '');
  const iso = isoSeconds(millis);
  if (iso === undefined) return undefined;
  return { date: iso.slice(0, 10), dateTime: `${iso}${fraction === '' ? '' : `.${fraction}`}Z`, dateOnly: false };
}

/** The next calendar day of a `YYYY-MM-DD` date, at 00:00:00Z (the end-of-day bound of C3). */
export function nextDayStart(date: string): string | undefined {
  const parsed = parseInstant(date);
  if (!parsed?.dateOnly) return undefined;
  const [year, month, day] = date.split('-').map(Number);
  const iso = isoSeconds(utcMillis(year, month, day) + 86_400_000);
  return iso === undefined ? undefined : `${iso}Z`;
}

function parseOffset(zone: string | undefined): number | undefined {
  if (zone === undefined || zone === 'Z' || zone === 'z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (hours > 23 || minutes > 59) return undefined;
  return (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

function validDate(year: number, month: number, day: number): boolean {
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const daysInMonth = new Date(utcMillis(year, month + 1, 1) - 86_400_000).getUTCDate();
  return day <= daysInMonth;
}

/** Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not. */
function utcMillis(year: number, month: number, day: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getTime();
}

/** `YYYY-MM-DDTHH:MM:SS` without zone; undefined outside years 1-9999. */
function isoSeconds(millis: number): string | undefined {
  const date = new Date(millis);
  const year = date.getUTCFullYear();
  if (year < 1 || year > 9999) return undefined;
  return date.toISOString().slice(0, 19);
}
