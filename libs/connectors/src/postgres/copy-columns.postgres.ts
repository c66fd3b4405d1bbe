/**
 * How the COPY fast path reads each column: the SQL expression it selects (in COPY's binary
 * format) and how the encoder turns that field into canonical JSON bytes.
 *
 * The split is a measured trade-off between the two processes on the two cores: fixed-width binary
 * (bool, integers, float8), raw text and bytea cost the server nothing to send and little to
 * render here; numeric, uuid and temporal types are cheaper for the server to print (`::text`)
 * than for JavaScript to decode from binary; everything rare or irregular (json, arrays, float4,
 * enums, intervals, ...) is selected as text and converted with the same functions as the row
 * path, so that both paths emit the same bytes.
 */
import type { SqlDialect } from '../sql/dialect';
import { isArrayType, readExpression, textConverter, type PostgresColumnType, type TextConverter } from './value-mapping.postgres';

/** What the encoder does with one binary COPY field. */
export const FieldRender = Object.freeze({
  /** 1 byte: `true`/`false`. */
  bool: 0,
  /** int16/int32/int64/uint32 big-endian: the decimal number. */
  int2: 1,
  int4: 2,
  int8: 3,
  oid: 4,
  /** IEEE double: the shortest round-trip form; NaN/Infinity as strings. */
  float8: 5,
  /** Text that needs no escaping (numeric digits, uuid hex): quoted as is. */
  quoted: 6,
  /** UTF-8 text: a JSON string, escaped as JSON.stringify does. */
  string: 7,
  /** `YYYY-MM-DD HH:MM:SS[.f]+00` -> `"YYYY-MM-DDTHH:MM:SS[.f]Z"`. */
  timestamptz: 8,
  /** `YYYY-MM-DD HH:MM:SS[.f]` -> `"YYYY-MM-DDTHH:MM:SS[.f]Z"`. */
  timestamp: 9,
  /** `YYYY-MM-DD` -> `"YYYY-MM-DDT00:00:00Z"`. */
  date: 10,
  /** Raw bytes: padded base64. */
  bytea: 11,
  /** Text converted by the row path's converter, then canonically encoded. */
  convert: 12,
});
export type FieldRender = (typeof FieldRender)[keyof typeof FieldRender];

export interface CopyField {
  /** The output key (the snapshot's column name). */
  readonly name: string;
  readonly render: FieldRender;
  /** The row path's converter: used for `convert`, and as the fallback for unusual temporal texts. */
  readonly convert: TextConverter;
}

export interface CopyColumnSource extends PostgresColumnType {
  readonly name: string;
  readonly catalogName: string;
}

/** Selected as the column itself (binary send format). */
const RAW: ReadonlyMap<string, FieldRender> = new Map<string, FieldRender>([
  ['bool', FieldRender.bool],
  ['int2', FieldRender.int2],
  ['int4', FieldRender.int4],
  ['int8', FieldRender.int8],
  ['oid', FieldRender.oid],
  ['float8', FieldRender.float8],
  ['bytea', FieldRender.bytea],
  // Their binary form is their text; bpchar keeps its padding (a ::text cast would trim it).
  ['text', FieldRender.string],
  ['varchar', FieldRender.string],
  ['bpchar', FieldRender.string],
  ['name', FieldRender.string],
]);

/**
 * Built-in types whose cast to text is a function with its own format (`inet::text` keeps the
 * `/32` that inet's output drops). For these, and for every user-defined type (an extension may
 * define any cast), `format('%s', x)` calls the type's output function, as the row path sees it.
 */
const OWN_TEXT_CAST: ReadonlySet<string> = new Set(['inet', 'cidr', 'char']);

/** Selected as `::text` (their cast to text is the output function). */
const AS_TEXT: ReadonlyMap<string, FieldRender> = new Map<string, FieldRender>([
  ['numeric', FieldRender.quoted],
  ['money', FieldRender.quoted], // read as numeric (readExpression)
  ['uuid', FieldRender.quoted],
  ['timestamptz', FieldRender.timestamptz],
  ['timestamp', FieldRender.timestamp],
  ['date', FieldRender.date],
  ['float4', FieldRender.convert], // its text is the float4's shortest form; the row path parses that text too
  ['json', FieldRender.convert],
  ['jsonb', FieldRender.convert],
]);

export interface CopyPlan {
  /** Sorted by output key (UTF-8 order), which is the canonical key order of every row. */
  readonly fields: readonly CopyField[];
  readonly sql: string;
}

/**
 * The COPY statement and field plan for `columns` (already in canonical key order) of the quoted
 * `qualifiedTable`. COPY cannot take bind parameters, so filtered reads use the row path instead of
 * splicing values into SQL; the one clause it takes is `clause` (` WHERE ... ORDER BY ... LIMIT n`),
 * an incremental keyset whose bounds `literalKeyset` has proved safe to write as literals.
 */
export function copyPlan(dialect: SqlDialect, qualifiedTable: string, columns: readonly CopyColumnSource[], clause = ''): CopyPlan {
  const expressions: string[] = [];
  const fields: CopyField[] = [];
  for (const column of columns) {
    const quoted = readExpression(column, dialect.quoteIdentifier(column.catalogName));
    const raw = isArrayType(column) ? undefined : RAW.get(column.udtName);
    if (raw !== undefined) {
      expressions.push(quoted);
      fields.push({ name: column.name, render: raw, convert: textConverter(column) });
      continue;
    }
    const render = isArrayType(column) ? FieldRender.convert : (AS_TEXT.get(column.udtName) ?? FieldRender.string);
    const outputText = !isArrayType(column) && (column.dataType === 'USER-DEFINED' || OWN_TEXT_CAST.has(column.udtName));
    // format() writes NULL as '', so NULL is kept apart explicitly.
    expressions.push(outputText ? `CASE WHEN ${quoted} IS NULL THEN NULL ELSE format('%s', ${quoted}) END` : `${quoted}::text`);
    fields.push({ name: column.name, render, convert: textConverter(column) });
  }
  return { fields, sql: `COPY (SELECT ${expressions.join(', ')} FROM ${qualifiedTable}${clause}) TO STDOUT (FORMAT binary)` };
}
