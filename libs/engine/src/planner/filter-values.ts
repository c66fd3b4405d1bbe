/**
 * Filter values checked by column kind, and the one normal form each kind binds as. The planner
 * refuses what this refuses, and the connectors bind what this returns, so a plan that passed the
 * planner never fails execution over a filter value (the README's "Value check by column kind").
 */
import { JsonNumber, type ColumnKind } from '../models';

/** Integer literal text: an optional sign and digits. */
export const INTEGER_TEXT = /^[+-]?\d+$/;
/** Numeric literal text: sign, digits with an optional fraction (or a bare fraction), exponent. */
export const NUMERIC_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
/** A UUID in its 8-4-4-4-12 hex form, either case. */
export const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A MongoDB ObjectId: 24 hex characters, either case. */
export const OBJECT_ID_TEXT = /^[0-9a-f]{24}$/i;
/** Standard padded base64 (the empty string included). */
export const BASE64_TEXT = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * A checked filter value in its normal form. integer: bigint; decimal: numeric text as given;
 * float: finite number; boolean: boolean; uuid and objectId: lower-case text; date: `YYYY-MM-DD`;
 * datetime: ISO UTC with `Z` (fraction as given, trailing zeros trimmed); binary: the base64 text;
 * string, json, time, other: text.
 */
export type FilterValue = string | number | boolean | bigint;

/**
 * The normal form of one non-null value for a column of `kind`, or `undefined` when the value does
 * not fit the kind. `JsonNumber` literals count as the numbers they spell.
 */
export function normaliseFilterValue(kind: ColumnKind, value: unknown): FilterValue | undefined {
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
      return value === 'true' || value === 'false' ? value === 'true' : undefined;
    case 'uuid':
      return typeof value === 'string' && UUID_TEXT.test(value) ? value.toLowerCase() : undefined;
    case 'objectId':
      return typeof value === 'string' && OBJECT_ID_TEXT.test(value) ? value.toLowerCase() : undefined;
    case 'date':
      return typeof value === 'string' ? parseInstant(value)?.date : undefined;
    case 'datetime':
      return typeof value === 'string' ? parseInstant(value)?.dateTime : undefined;
    case 'binary':
      return typeof value === 'string' && BASE64_TEXT.test(value) ? value : undefined;
    case 'string':
    case 'json':
    case 'time':
    case 'other':
      return toText(value);
  }
}

/** Whether one non-null value is acceptable for a column of this kind. */
export function acceptsValue(kind: ColumnKind, value: unknown): boolean {
  return normaliseFilterValue(kind, value) !== undefined;
}

/** Any scalar a text comparison can use: what a column without a kind (or `like`) accepts. */
export function isScalar(value: unknown): boolean {
  return toText(value) !== undefined;
}

/** The widest integer column of any supported database: signed 64-bit below, unsigned 64-bit above. */
const INTEGER_MIN = -(2n ** 63n);
const INTEGER_MAX = 2n ** 64n - 1n;

/**
 * An integer no integer column can hold was bound as it was and refused by the database, which the
 * run reported as "failed to query datasource". A number beyond 2^53 is no exact integer at all
 * (`1e308`, or a 20-digit id that JSON parsing already rounded), so it is refused too: it would
 * silently match another row.
 */
function toInteger(value: unknown): bigint | undefined {
  let integer: bigint | undefined;
  if (typeof value === 'bigint') integer = value;
  else if (typeof value === 'number') integer = Number.isSafeInteger(value) ? BigInt(value) : undefined;
  else {
    const text = value instanceof JsonNumber ? value.text : value;
    integer = typeof text === 'string' && INTEGER_TEXT.test(text) ? BigInt(text) : undefined;
  }
  return integer !== undefined && integer >= INTEGER_MIN && integer <= INTEGER_MAX ? integer : undefined;
}

function toNumericText(value: unknown): string | undefined {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  const text = value instanceof JsonNumber ? value.text : value;
  return typeof text === 'string' && NUMERIC_TEXT.test(text) ? text : undefined;
}

function toText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return value instanceof JsonNumber && NUMERIC_TEXT.test(value.text) ? value.text : undefined;
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
 * `YYYY-MM-DD` or an ISO-8601 date-time (`Z`, an offset, or no zone = UTC), within years 1-9999
 * both as written and once shifted to UTC. Parsed by hand rather than through `Date`, which would
 * cut a microsecond fraction to milliseconds.
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

/** The next calendar day of a `YYYY-MM-DD` date, at 00:00:00Z: the exclusive end of that whole day. */
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
