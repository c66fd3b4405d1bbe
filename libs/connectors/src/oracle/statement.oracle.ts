/**
 * SELECT statements for Oracle. Identifiers are quoted in the
 * catalog's case and aliased to the snapshot's UPPER-CASE names. Date-times are formatted to UTC
 * text on the server: a JS Date would cut TIMESTAMP(9) to milliseconds.
 */
import { ORACLE_DIALECT, qualifiedName } from '../sql/dialect';
import type { DiscoveredColumn, TableQueryPlan } from '../sql/discovered-schema';
import { buildSelect } from '../sql/select';
import type { BoundValue } from '../sql/where';
import type { OracleKeyset } from './incremental-query.oracle';

export interface OracleStatement {
  readonly sql: string;
  readonly binds: readonly unknown[];
}

const q = (name: string) => ORACLE_DIALECT.quoteIdentifier(name);

/** The alias an incremental statement gives its table, so ORDER BY names columns, not select-list aliases. */
export const ORACLE_TABLE_ALIAS = '"t"';
const SECONDS = `'YYYY-MM-DD"T"HH24:MI:SS'`;
const FRACTION = `'YYYY-MM-DD"T"HH24:MI:SS.FF9'`;

export function oracleColumnExpression(column: DiscoveredColumn): string {
  const source = q(column.catalogName);
  const type = column.nativeType.toUpperCase();
  let expression = source;
  if (type === 'DATE') expression = `TO_CHAR(${source}, ${SECONDS})`;
  else if (type.startsWith('TIMESTAMP') && type.endsWith('WITH LOCAL TIME ZONE')) {
    expression = `TO_CHAR(SYS_EXTRACT_UTC(CAST(${source} AS TIMESTAMP WITH TIME ZONE)), ${FRACTION})`;
  } else if (type.startsWith('TIMESTAMP') && type.endsWith('WITH TIME ZONE')) {
    expression = `TO_CHAR(SYS_EXTRACT_UTC(${source}), ${FRACTION})`;
  } else if (type.startsWith('TIMESTAMP')) expression = `TO_CHAR(${source}, ${FRACTION})`;
  else if (type.startsWith('INTERVAL')) expression = `TO_CHAR(${source})`;
  else if (type === 'JSON') expression = `JSON_SERIALIZE(${source} RETURNING CLOB)`;
  const alias = q(column.name);
  return expression === alias ? alias : `${expression} AS ${alias}`;
}

/**
 * `keyset`: an incremental table's bound, order and limit, added after the filters (its markers
 * numbered after theirs); the table is then read under its alias `"t"`.
 */
export function oracleStatement(plan: TableQueryPlan, keyset?: OracleKeyset): OracleStatement {
  const qualified = qualifiedName(ORACLE_DIALECT, plan.table.schema, plan.table.table);
  const table = keyset ? `${qualified} ${ORACLE_TABLE_ALIAS}` : qualified;
  let sql = buildSelect(ORACLE_DIALECT, table, plan.columns.map(oracleColumnExpression), plan.where);
  const binds = plan.where.params.map(oracleBind);
  if (keyset) {
    if (keyset.where !== '') sql += `${plan.where.sql === '' ? ' WHERE ' : ' AND '}${keyset.where}`;
    sql += keyset.tail;
    binds.push(...keyset.binds);
  }
  return { sql, binds };
}

/**
 * The bind value per kind: integers as bigint (bound as NUMBER), exact decimals as text (the
 * session's NLS_NUMERIC_CHARACTERS is fixed to '.,'), date-times as text for TO_TIMESTAMP_TZ
 * (always with a fraction and an explicit +00:00), bytes as a Buffer.
 */
export function oracleBind(bound: BoundValue): unknown {
  const { kind, value } = bound;
  if (value === null) return null;
  if (kind === 'datetime') return oracleTimestampText(String(value));
  if (kind === 'binary') return Buffer.from(value as Uint8Array);
  return value;
}

/** `2024-01-01T10:00:00Z` -> `2024-01-01T10:00:00.0+00:00`, the text ORACLE_TIMESTAMP_TZ_FORMAT reads. */
export function oracleTimestampText(iso: string): string {
  const local = iso.replace(/Z$/, '');
  return `${local.includes('.') ? local : `${local}.0`}+00:00`;
}

/**
 * Run on every new session: UTC for zone-less values, '.' as the decimal separator for bound
 * decimals, and binary comparison and sort for text (whatever the server's defaults), which makes a
 * VARCHAR2 in AL32UTF8 compare and sort by code point, the order incremental reads rely on.
 */
export const ORACLE_SESSION_SQL = "ALTER SESSION SET TIME_ZONE = 'UTC' NLS_NUMERIC_CHARACTERS = '.,' NLS_COMP = 'BINARY' NLS_SORT = 'BINARY'";
