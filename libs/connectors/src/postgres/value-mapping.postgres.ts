/**
 * PostgreSQL values from their text form. Every pg type parser is
 * replaced by the identity, so values arrive as the server's text and are converted here, exactly:
 * int8 as bigint, numeric and money as their text, timestamps as ISO UTC with the stored fraction.
 * The COPY fast path falls back to these same functions for every value it does not render itself,
 * which keeps the two paths byte-identical.
 */
import type { ColumnKind, JsonValue } from '@fetcher/engine';
import type { CustomTypesConfig } from 'pg';
import { parseJsonColumn } from '../sql/json-value';

/**
 * Every pg type parser (int8 20, numeric 1700, money 790, date 1082, timestamp 1114, timestamptz
 * 1184, json 114, jsonb 3802, bytea 17, the arrays, ...) replaced by the identity: values arrive as
 * the server's text and are converted below, per column.
 */
const rawText = (value: string): string => value;
export const RAW_TEXT_TYPES: CustomTypesConfig = {
  getTypeParser: (() => rawText) as CustomTypesConfig['getTypeParser'],
};

/** Text of one non-null value -> its JSON value. */
export type TextConverter = (text: string) => JsonValue;

const identity: TextConverter = (text) => text;
const toBoolean: TextConverter = (text) => text === 't' || text === 'true';
const toNumber: TextConverter = (text) => Number(text); // float texts 'NaN', 'Infinity', '-Infinity' included
const toBigInt: TextConverter = (text) => BigInt(text);
const toLowerCase: TextConverter = (text) => text.toLowerCase();
const toDate: TextConverter = (text) => dateFromText(text);
const toTimestamp: TextConverter = (text) => timestampFromText(text);
const toBytes: TextConverter = (text) => byteaFromText(text);
const toJson: TextConverter = (text) => parseJsonColumn(text);

/** Scalar types by `udt_name`; anything else is text. */
const SCALAR_CONVERTERS: ReadonlyMap<string, TextConverter> = new Map([
  ['bool', toBoolean],
  ['int2', toNumber],
  ['int4', toNumber],
  ['oid', toNumber],
  ['int8', toBigInt],
  ['float4', toNumber],
  ['float8', toNumber],
  ['uuid', toLowerCase],
  ['date', toDate],
  ['timestamp', toTimestamp],
  ['timestamptz', toTimestamp],
  ['json', toJson],
  ['jsonb', toJson],
  ['bytea', toBytes],
]);

const KINDS: ReadonlyMap<string, ColumnKind> = new Map([
  ['int2', 'integer'],
  ['int4', 'integer'],
  ['int8', 'integer'],
  ['numeric', 'decimal'],
  ['money', 'decimal'],
  ['float4', 'float'],
  ['float8', 'float'],
  ['bool', 'boolean'],
  ['uuid', 'uuid'],
  ['date', 'date'],
  ['timestamp', 'datetime'],
  ['timestamptz', 'datetime'],
  ['time', 'time'],
  ['timetz', 'time'],
  ['json', 'json'],
  ['jsonb', 'json'],
  ['bytea', 'binary'],
  ['text', 'string'],
  ['varchar', 'string'],
  ['bpchar', 'string'],
  ['char', 'string'],
  ['citext', 'string'],
  ['name', 'string'],
]);

/** A column as discovery reports it (information_schema.columns). */
export interface PostgresColumnType {
  /** `data_type`: 'ARRAY' for arrays, 'USER-DEFINED' for enums and extension types. */
  readonly dataType: string;
  /** `udt_name`: the base type for domains, `_<element>` for arrays. */
  readonly udtName: string;
  /** Arrays: the element's base type, through domains (`_dflag` over bool: `bool`). Absent: from `udtName`. */
  readonly elementUdtName?: string;
  /** Arrays: the element type's delimiter (`;` for box). Absent: `;` for box, else `,`. */
  readonly elementDelimiter?: string;
}

export function isArrayType(type: PostgresColumnType): boolean {
  return type.dataType === 'ARRAY';
}

/**
 * The expression a column is read through. `money` (and arrays of it) is read as `numeric`: its
 * own text follows the server's lc_monetary (`$1,234.50`, `1.234,50 €`), while the canonical form
 * wants a plain exact decimal (`1234.50`). Everything else is read as stored.
 */
export function readExpression(type: PostgresColumnType, quoted: string): string {
  if (isArrayType(type)) return (type.elementUdtName ?? type.udtName.replace(/^_/, '')) === 'money' ? `${quoted}::numeric[]` : quoted;
  return type.udtName === 'money' ? `${quoted}::numeric` : quoted;
}

/** The filter kind; arrays, enums and other types are `other`, so `like` refuses them. */
export function postgresColumnKind(type: PostgresColumnType): ColumnKind {
  if (isArrayType(type)) return 'other';
  return KINDS.get(type.udtName) ?? 'other';
}

/** The converter for one column's text values. */
export function textConverter(type: PostgresColumnType): TextConverter {
  if (isArrayType(type)) {
    const elementType = type.elementUdtName ?? type.udtName.replace(/^_/, '');
    const element = SCALAR_CONVERTERS.get(elementType) ?? identity;
    // Box arrays are the one built-in type whose elements are separated by ';'.
    const delimiter = type.elementDelimiter ?? (elementType === 'box' ? ';' : ',');
    return (text) => parseArrayLiteral(text, element, delimiter);
  }
  return SCALAR_CONVERTERS.get(type.udtName) ?? identity;
}

// ---- dates and timestamps -------------------------------------------------------------------

const TIMESTAMP_TEXT =
  /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?)?( BC)?$/;
const DATE_TEXT = /^(\d{4,})-(\d{2})-(\d{2})( BC)?$/;

/**
 * `2024-01-02 03:04:05.5+00` (timestamptz in a UTC session) or `2024-01-02 03:04:05.5` (timestamp,
 * taken as UTC) -> `2024-01-02T03:04:05.5Z`. The fraction keeps the stored digits (the server
 * already trims trailing zeros). `infinity`/`-infinity` stay as they are. Years outside 0001-9999
 * use ISO 8601 expanded years with astronomical numbering: 1 BC is `0000`, 44 BC `-0043`, and
 * 10000 AD `+10000`.
 */
export function timestampFromText(text: string): string {
  if (text === 'infinity' || text === '-infinity') return text;
  const m = TIMESTAMP_TEXT.exec(text);
  if (!m) return text; // not a shape this connector knows: keep the server's text rather than guess
  const [, y, mo, d, h, mi, s, fraction, sign, oh, om, os, bc] = m;
  let fields = { year: astronomicalYear(Number(y), bc !== undefined), month: Number(mo), day: Number(d), hour: Number(h), minute: Number(mi), second: Number(s) };
  const offsetSeconds = sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om ?? 0) * 60 + Number(os ?? 0));
  // The session runs in UTC, so the offset is +00; any other offset is still converted correctly.
  if (offsetSeconds !== 0) fields = shiftSeconds(fields, -offsetSeconds);
  const trimmed = (fraction ?? '').replace(/0+$/, '');
  return `${isoYear(fields.year)}-${pad2(fields.month)}-${pad2(fields.day)}T${pad2(fields.hour)}:${pad2(fields.minute)}:${pad2(fields.second)}${trimmed === '' ? '' : `.${trimmed}`}Z`;
}

/** `2024-01-02` -> `2024-01-02T00:00:00Z`, with the same year rules and infinities as timestamps. */
export function dateFromText(text: string): string {
  if (text === 'infinity' || text === '-infinity') return text;
  const m = DATE_TEXT.exec(text);
  if (!m) return text;
  return `${isoYear(astronomicalYear(Number(m[1]), m[4] !== undefined))}-${m[2]}-${m[3]}T00:00:00Z`;
}

interface CivilTime {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

function astronomicalYear(year: number, bc: boolean): number {
  return bc ? 1 - year : year;
}

function isoYear(year: number): string {
  if (year >= 0 && year <= 9999) return String(year).padStart(4, '0');
  return (year < 0 ? '-' : '+') + String(Math.abs(year)).padStart(4, '0');
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

function shiftSeconds(t: CivilTime, seconds: number): CivilTime {
  const date = new Date(0);
  date.setUTCFullYear(t.year, t.month - 1, t.day);
  date.setUTCHours(t.hour, t.minute, t.second + seconds, 0);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
  };
}

// ---- bytea ------------------------------------------------------------------------------------

/** `\x0a0b` (bytea_output = hex, which the session sets) -> bytes; the legacy escape format too. */
export function byteaFromText(text: string): Uint8Array {
  if (text.startsWith('\\x')) return Buffer.from(text.slice(2), 'hex');
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x5c) {
      bytes.push(c);
    } else if (text[i + 1] === '\\') {
      bytes.push(0x5c);
      i += 1;
    } else {
      bytes.push(parseInt(text.slice(i + 1, i + 4), 8));
      i += 3;
    }
  }
  return Uint8Array.from(bytes);
}

// ---- arrays -----------------------------------------------------------------------------------

/**
 * A PostgreSQL array literal (`{1,2,NULL}`, `{{"a b","c\"d"},{e,f}}`, `[0:1]={x,y}`) -> nested
 * arrays, each element converted with `element`; unquoted NULL is null.
 */
export function parseArrayLiteral(text: string, element: TextConverter, delimiter = ','): JsonValue[] {
  let i = 0;
  if (text.startsWith('[')) {
    const eq = text.indexOf('=');
    i = eq < 0 ? 0 : eq + 1; // dimension decoration, e.g. [0:1]={...}
  }
  const parseLevel = (): JsonValue[] => {
    if (text[i] !== '{') throw new SyntaxError('malformed array literal');
    i += 1;
    const out: JsonValue[] = [];
    if (text[i] === '}') {
      i += 1;
      return out;
    }
    for (;;) {
      if (text[i] === '{') {
        out.push(parseLevel());
      } else if (text[i] === '"') {
        i += 1;
        let value = '';
        while (i < text.length && text[i] !== '"') {
          if (text[i] === '\\') i += 1;
          value += text[i];
          i += 1;
        }
        i += 1;
        out.push(element(value));
      } else {
        const start = i;
        while (i < text.length && text[i] !== delimiter && text[i] !== '}') i += 1;
        const raw = text.slice(start, i).trim();
        out.push(raw.toUpperCase() === 'NULL' ? null : element(raw));
      }
      if (text[i] === delimiter) {
        i += 1;
        continue;
      }
      if (text[i] === '}') {
        i += 1;
        return out;
      }
      throw new SyntaxError('malformed array literal');
    }
  };
  return parseLevel();
}
