/**
 * `lag`: how far behind the cursor a job starts reading again, for rows that commit late with a
 * cursor value below the one the last job reached (a clock-stamped `updated_at` written by a slow
 * transaction). The window `[after.value - lag, ...)` is re-read, so rows inside it may come twice:
 * at-least-once inside the window, exactly-once outside it.
 *
 * The unit is the cursor's own: integer, float and decimal cursors subtract the number; a date
 * cursor subtracts whole days; a date-time cursor subtracts seconds (fractions allowed, exact to the
 * nanosecond). Text, uuid and ObjectId cursors have no distance, so `lag` is refused on them.
 * Arithmetic is exact (bigint for integers, scaled bigint for decimals and date-times): a window
 * that is one unit off would miss or repeat rows at its edge.
 */
import type { FilterBound, OrderableKind } from '../models';
import { INTEGER_TEXT, NUMERIC_TEXT } from '../planner/filter-values';

/** The kinds a window can be measured on. */
export function acceptsLag(kind: OrderableKind): boolean {
  return kind === 'integer' || kind === 'float' || kind === 'decimal' || kind === 'date' || kind === 'datetime';
}

/** The most an integer column can go below zero (signed 64-bit): a window never starts lower. */
const INTEGER_MIN = -(2n ** 63n);
const NANOS_PER_SECOND = 1_000_000_000n;
const MILLIS_PER_DAY = 86_400_000;
/** 0001-01-01T00:00:00Z, the earliest instant a date or date-time bound may carry. */
const YEAR_ONE_MILLIS = Date.parse('0001-01-01T00:00:00Z');

/**
 * Whether `lag` is a valid distance for a cursor of `kind`: a non-negative finite number (or its
 * numeric text); a whole number for integer and date cursors.
 */
export function isValidLag(kind: OrderableKind, lag: unknown): boolean {
  return acceptsLag(kind) && lagDecimal(kind, lag) !== undefined;
}

/**
 * The first cursor value of the window behind `value` (a normalised bound of `kind`), clamped at
 * the lowest value the kind can hold. Undefined when `lag` is not valid for the kind.
 */
export function windowStart(kind: OrderableKind, value: FilterBound, lag: unknown): FilterBound | undefined {
  const distance = lagDecimal(kind, lag);
  if (distance === undefined) return undefined;
  switch (kind) {
    case 'integer': {
      const start = BigInt(String(value)) - distance.coefficient;
      return start < INTEGER_MIN ? INTEGER_MIN : start;
    }
    case 'float': {
      const start = Number(value) - Number(formatDecimal(distance));
      return Number.isFinite(start) ? start : -Number.MAX_VALUE;
    }
    case 'decimal': {
      const from = parseDecimal(String(value));
      return from === undefined ? undefined : formatDecimal(subtract(from, distance));
    }
    case 'date': {
      const millis = Date.parse(`${String(value)}T00:00:00Z`) - Number(distance.coefficient) * MILLIS_PER_DAY;
      return new Date(Math.max(millis, YEAR_ONE_MILLIS)).toISOString().slice(0, 10);
    }
    case 'datetime':
      return dateTimeMinus(String(value), distance);
    default:
      return undefined;
  }
}

/** A decimal number as coefficient x 10^-scale (scale >= 0). */
interface Decimal {
  readonly coefficient: bigint;
  readonly scale: number;
}

function lagDecimal(kind: OrderableKind, lag: unknown): Decimal | undefined {
  if (!acceptsLag(kind)) return undefined;
  let text: string;
  if (typeof lag === 'number') {
    if (!Number.isFinite(lag) || lag < 0) return undefined;
    text = String(lag);
  } else if (typeof lag === 'string' && NUMERIC_TEXT.test(lag)) {
    text = lag;
  } else {
    return undefined;
  }
  const whole = kind === 'integer' || kind === 'date';
  if (whole && !(Number.isSafeInteger(Number(text)) || INTEGER_TEXT.test(text))) return undefined;
  const decimal = parseDecimal(text);
  if (decimal === undefined || decimal.coefficient < 0n) return undefined;
  // A date window of more than 10,000 years is no window: refuse rather than count the days.
  if (kind === 'date' && decimal.coefficient > 3_652_500n) return undefined;
  return whole ? { coefficient: decimal.coefficient / 10n ** BigInt(decimal.scale), scale: 0 } : decimal;
}

/** Exact parse of numeric text (`-1.50`, `.5`, `2e-3`); undefined for anything else. */
function parseDecimal(text: string): Decimal | undefined {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) return undefined;
  const fraction = match[3] ?? '';
  const exponent = Number(match[4] ?? 0);
  // Exponents that large are no distance anyone means; refusing them keeps the bigint small.
  if (Math.abs(exponent) > 400) return undefined;
  let coefficient = BigInt(`${match[2]}${fraction}` || '0');
  let scale = fraction.length - exponent;
  if (scale < 0) {
    coefficient *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { coefficient: match[1] === '-' ? -coefficient : coefficient, scale };
}

function subtract(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return { coefficient: rescale(a, scale) - rescale(b, scale), scale };
}

function rescale(d: Decimal, scale: number): bigint {
  return d.coefficient * 10n ** BigInt(scale - d.scale);
}

/** Plain numeric text, no exponent, trailing fraction zeros trimmed. */
function formatDecimal(d: Decimal): string {
  const negative = d.coefficient < 0n;
  const digits = (negative ? -d.coefficient : d.coefficient).toString().padStart(d.scale + 1, '0');
  const whole = digits.slice(0, digits.length - d.scale);
  const fraction = digits.slice(digits.length - d.scale).replace(/0+$/, '');
  const text = fraction === '' ? whole : `${whole}.${fraction}`;
  return negative && text !== '0' ? `-${text}` : text;
}

/** `YYYY-MM-DDTHH:MM:SS[.f]Z` minus `seconds`, in the same form, never before year 1. */
function dateTimeMinus(value: string, seconds: Decimal): string | undefined {
  const millis = Date.parse(`${value.slice(0, 19)}Z`);
  if (Number.isNaN(millis)) return undefined;
  const fraction = value.length > 20 ? value.slice(20, -1) : '';
  if (fraction.length > 9) return undefined;
  const nanos = BigInt(millis) * 1_000_000n + BigInt(fraction.padEnd(9, '0') || '0');
  // Lag seconds to nanoseconds; digits beyond the nanosecond are cut (a window a little shorter).
  const lagNanos = rescale(seconds, Math.max(seconds.scale, 9)) / 10n ** BigInt(Math.max(seconds.scale, 9) - 9);
  const floor = BigInt(YEAR_ONE_MILLIS) * 1_000_000n;
  let start = nanos - lagNanos;
  if (start < floor) start = floor;
  const wholeSeconds = floorDiv(start, NANOS_PER_SECOND);
  const rest = start - wholeSeconds * NANOS_PER_SECOND;
  const iso = new Date(Number(wholeSeconds) * 1000).toISOString().slice(0, 19);
  const digits = rest.toString().padStart(9, '0').replace(/0+$/, '');
  return `${iso}${digits === '' ? '' : `.${digits}`}Z`;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && (a < 0n) !== (b < 0n) ? q - 1n : q;
}
