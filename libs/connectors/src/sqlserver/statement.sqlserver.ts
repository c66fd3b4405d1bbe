/**
 * SELECT statements for SQL Server. tedious returns DECIMAL,
 * NUMERIC and MONEY as JS numbers and DATETIME2/DATETIMEOFFSET as millisecond Dates, so those
 * columns are selected as text, converted on the server and aliased back to the column name.
 */
import { MAX, TYPES, type ISqlType } from 'mssql';
import { SQLSERVER_DIALECT, qualifiedName } from '../sql/dialect';
import type { DiscoveredColumn, TableQueryPlan } from '../sql/discovered-schema';
import type { BoundValue } from '../sql/where';
import { buildSelect } from '../sql/select';
import type { SqlServerKeyset } from './incremental-query.sqlserver';

export interface SqlServerParameter {
  /** `p1`, `p2`, ...: the name behind the `@p1` placeholder. */
  readonly name: string;
  readonly type: ISqlType;
  readonly value: unknown;
}

export interface SqlServerStatement {
  readonly sql: string;
  readonly parameters: readonly SqlServerParameter[];
}

const q = (name: string) => SQLSERVER_DIALECT.quoteIdentifier(name);

/** The alias an incremental statement gives its table, so ORDER BY names columns, not select-list aliases. */
export const SQLSERVER_TABLE_ALIAS = '[t]';

/** The select-list entry for one column, always named like the field the row must carry. */
export function sqlServerColumnExpression(column: DiscoveredColumn): string {
  const source = q(column.catalogName);
  const alias = q(column.name);
  switch (column.nativeType.toLowerCase()) {
    case 'decimal':
    case 'numeric':
      return `CONVERT(varchar(64), ${source}) AS ${alias}`;
    case 'money':
    case 'smallmoney':
      // Style 2 keeps MONEY's four decimals; the default style rounds to two.
      return `CONVERT(varchar(64), ${source}, 2) AS ${alias}`;
    case 'datetime2':
    case 'datetimeoffset':
      return `CONVERT(varchar(40), ${source}, 127) AS ${alias}`;
    case 'time':
      // As text with its stored precision; tedious would give a Date on 1970-01-01.
      return `CONVERT(varchar(16), ${source}) AS ${alias}`;
    default:
      return source === alias ? source : `${source} AS ${alias}`;
  }
}

/**
 * `keyset`: an incremental table's bound, order and limit, added after the filters (its
 * parameters numbered after theirs); the table is then read under its alias `[t]`.
 */
export function sqlServerStatement(plan: TableQueryPlan, keyset?: SqlServerKeyset): SqlServerStatement {
  const qualified = qualifiedName(SQLSERVER_DIALECT, plan.table.schema, plan.table.table);
  const table = keyset ? `${qualified} AS ${SQLSERVER_TABLE_ALIAS}` : qualified;
  let sql = buildSelect(SQLSERVER_DIALECT, table, plan.columns.map(sqlServerColumnExpression), plan.where);
  const parameters = plan.where.params.map((bound, i) => sqlServerParameter(`p${i + 1}`, bound));
  if (keyset) {
    if (keyset.where !== '') sql += `${plan.where.sql === '' ? ' WHERE ' : ' AND '}${keyset.where}`;
    sql += keyset.tail;
    parameters.push(...keyset.parameters);
  }
  return { sql, parameters };
}

/**
 * The parameter type per kind. Exact decimals and date-times bind as ASCII text that the server
 * converts to the column's type (a JS number or Date would round them); text binds as NVARCHAR so
 * that unicode survives.
 */
export function sqlServerParameter(name: string, bound: BoundValue): SqlServerParameter {
  const { kind, value } = bound;
  switch (kind) {
    case 'integer':
      return { name, type: TYPES.BigInt(), value };
    case 'float':
      return { name, type: TYPES.Float(), value };
    case 'boolean':
      return { name, type: TYPES.Bit(), value };
    case 'uuid':
      return { name, type: TYPES.UniqueIdentifier(), value };
    case 'decimal':
    case 'date':
      return { name, type: TYPES.VarChar(64), value };
    case 'datetime':
      return { name, type: TYPES.VarChar(64), value: sqlServerDateTimeText(String(value)) };
    case 'binary':
      return { name, type: TYPES.VarBinary(MAX), value: Buffer.from(value as Uint8Array) };
    default:
      return { name, type: TYPES.NVarChar(MAX), value };
  }
}

/**
 * `2024-01-01T10:00:00.5Z` -> `2024-01-01T10:00:00.5`: ISO 8601 without a zone converts to DATE,
 * DATETIME2 and DATETIMEOFFSET (as +00:00) alike, whatever the session's language or DATEFORMAT.
 */
export function sqlServerDateTimeText(iso: string): string {
  return iso.replace(/Z$/, '');
}
