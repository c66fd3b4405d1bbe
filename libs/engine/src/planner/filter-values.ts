/**
 * Filter value check by column kind (spec C3 "Value check by column kind", B10 step 9). The
 * planner only accepts or refuses; connectors decide how a value is bound.
 */
import { JsonNumber, type ColumnKind } from '../models';

const INTEGER_TEXT = /^[+-]?\d+$/;
const NUMERIC_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const UUID_TEXT = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const OBJECT_ID_TEXT = /^[0-9a-fA-F]{24}$/;
const BASE64_TEXT = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DATE_TIME_TEXT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2}))?)?$/;

/** Whether one non-null value is acceptable for a column of this kind. */
export function acceptsValue(kind: ColumnKind, value: unknown): boolean {
  switch (kind) {
    case 'integer':
      return isIntegerValue(value);
    case 'decimal':
    case 'float':
      return isNumericValue(value);
    case 'boolean':
      return value === true || value === false || value === 'true' || value === 'false';
    case 'uuid':
      return typeof value === 'string' && UUID_TEXT.test(value);
    case 'date':
    case 'datetime':
      return typeof value === 'string' && isDateTimeText(value);
    case 'binary':
      return typeof value === 'string' && BASE64_TEXT.test(value);
    case 'objectId':
      return typeof value === 'string' && OBJECT_ID_TEXT.test(value);
    case 'string':
    case 'json':
    case 'time':
    case 'other':
      return isScalar(value);
  }
}

/** Numbers become their text for text-like columns; objects and arrays are never filter values. */
export function isScalar(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'bigint':
      return true;
    case 'number':
      return Number.isFinite(value);
    default:
      return value instanceof JsonNumber && NUMERIC_TEXT.test(value.text);
  }
}

function isIntegerValue(value: unknown): boolean {
  if (typeof value === 'bigint') return true;
  if (typeof value === 'number') return Number.isInteger(value);
  if (typeof value === 'string') return INTEGER_TEXT.test(value);
  return value instanceof JsonNumber && INTEGER_TEXT.test(value.text);
}

function isNumericValue(value: unknown): boolean {
  if (typeof value === 'bigint') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value === 'string') return NUMERIC_TEXT.test(value);
  return value instanceof JsonNumber && NUMERIC_TEXT.test(value.text);
}

/** `YYYY-MM-DD`, or an ISO-8601 date-time with `Z`, an offset or no zone; every part in range. */
export function isDateTimeText(text: string): boolean {
  const m = DATE_TIME_TEXT.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59)) return false;
  if (m[8] !== undefined && (Number(m[8]) > 23 || Number(m[9]) > 59)) return false;
  return true;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
