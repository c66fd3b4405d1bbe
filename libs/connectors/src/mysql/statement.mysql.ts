import { normaliseFilterValue } from '@fetcher/engine';
import { MYSQL_DIALECT, qualifiedName } from '../sql/dialect';
import type { TableQueryPlan } from '../sql/discovered-schema';
import type { BoundValue } from '../sql/where';
import type { MysqlKeyset } from './incremental-query.mysql';
import { buildSelect } from '../sql/select';

export interface MysqlStatement {
  readonly sql: string;
  readonly values: readonly unknown[];
  /** Columns to parse as JSON (MariaDB's LONGTEXT JSON), by the name the result set carries. */
  readonly jsonColumns: ReadonlySet<string>;
  /** The row keys, in select-list order (rows are read as arrays). */
  readonly names: readonly string[];
}

/**
 * Names mysql2 refuses in a result set (it would otherwise build rows with them as object keys):
 * such a column is read under a positional alias and keyed by its real name afterwards.
 */
const DRIVER_RESERVED_NAMES: ReadonlySet<string> = new Set([
  '__proto__',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
]);


/** `keyset`: an incremental table's bound, order and limit, added after the filters. */
export function mysqlStatement(plan: TableQueryPlan, keyset?: MysqlKeyset): MysqlStatement {
  const q = (name: string) => MYSQL_DIALECT.quoteIdentifier(name);
  const resultNames = plan.columns.map((c, i) => (DRIVER_RESERVED_NAMES.has(c.name) ? `fetcher_column_${i}` : c.name));
  const expressions = plan.columns.map((c, i) =>
    c.catalogName === resultNames[i] ? q(c.catalogName) : `${q(c.catalogName)} AS ${q(resultNames[i])}`,
  );
  let sql = buildSelect(MYSQL_DIALECT, qualifiedName(MYSQL_DIALECT, undefined, plan.table.table), expressions, plan.where);
  const values = plan.where.params.map(mysqlParam);
  if (keyset) {
    if (keyset.where !== '') sql += `${plan.where.sql === '' ? ' WHERE ' : ' AND '}${keyset.where}`;
    sql += keyset.tail;
    values.push(...keyset.values);
  }
  const jsonColumns = new Set(resultNames.filter((_name, i) => plan.columns[i].kind === 'json'));
  return { sql, values, jsonColumns, names: plan.columns.map((c) => c.name) };
}

/**
 * A bound value in the form mysql2's client-side escaping turns into the right literal: bigint as
 * digits, decimals as an exact numeric literal (a quoted string would be compared as a double),
 * date-times in MySQL's own `YYYY-MM-DD HH:MM:SS.ffffff` (the session is UTC), bytes as X'..'.
 */
export function mysqlParam(bound: BoundValue): unknown {
  const { kind, value } = bound;
  if (value === null) return null;
  switch (kind) {
    case 'decimal':
      return decimalLiteral(String(value));
    case 'datetime':
      return mysqlDateTimeLiteral(String(value));
    case 'binary':
      return Buffer.from(value as Uint8Array);
    default:
      return value;
  }
}

function decimalLiteral(text: string): { toSqlString(): string } {
  // Checked again here because this text is written into the statement unquoted.
  if (typeof text !== 'string' || normaliseFilterValue('decimal', text) !== text) throw new TypeError('decimal filter value is not numeric');
  return { toSqlString: () => text };
}

/** `2024-01-01T10:00:00.1234567Z` -> `2024-01-01 10:00:00.123456` (MySQL keeps microseconds). */
export function mysqlDateTimeLiteral(iso: string): string {
  const [date, rest] = iso.replace(/Z$/, '').split('T');
  const [seconds, fraction] = rest.split('.');
  return fraction === undefined ? `${date} ${seconds}` : `${date} ${seconds}.${fraction.slice(0, 6)}`;
}
