/**
 * MySQL/MariaDB schema discovery. The statements alias every column,
 * because MySQL 8 returns information_schema column names upper-case. Scope is ignored: a MySQL
 * connection sees the tables of its own database (`DATABASE()`), and names are bare.
 */
import type { ColumnKind } from '@fetcher/engine';
import { isSystemObject } from '../common/naming';
import { sortColumns, sortTables, type DiscoveredColumn, type DiscoveredSchema } from '../sql/discovered-schema';

export const MYSQL_TABLES_SQL =
  "SELECT TABLE_NAME AS table_name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE'";

export const MYSQL_COLUMNS_SQL =
  'SELECT TABLE_NAME AS table_name, COLUMN_NAME AS column_name, DATA_TYPE AS data_type, COLUMN_TYPE AS column_type, ' +
  'IS_NULLABLE AS is_nullable, COLLATION_NAME AS collation_name ' +
  'FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()';

/** Primary-key columns in key order (incremental extraction defaults its tie-breaker to a single-column key). */
export const MYSQL_PRIMARY_KEYS_SQL =
  "SELECT TABLE_NAME AS table_name, COLUMN_NAME AS column_name FROM information_schema.STATISTICS " +
  "WHERE TABLE_SCHEMA = DATABASE() AND INDEX_NAME = 'PRIMARY' ORDER BY TABLE_NAME, SEQ_IN_INDEX";

/** MariaDB's JSON is LONGTEXT plus a `json_valid(`col`)` check; MySQL 8 has no TABLE_NAME here, and 5.7 no such view. */
export const MYSQL_CHECKS_SQL =
  'SELECT TABLE_NAME AS table_name, CHECK_CLAUSE AS check_clause FROM information_schema.CHECK_CONSTRAINTS ' +
  'WHERE CONSTRAINT_SCHEMA = DATABASE()';

export interface MysqlTableRow {
  readonly table_name: string;
}
export interface MysqlColumnRow {
  readonly table_name: string;
  readonly column_name: string;
  readonly data_type: string;
  readonly column_type: string;
  readonly is_nullable?: string;
  readonly collation_name?: string | null;
}
export interface MysqlKeyRow {
  readonly table_name: string;
  readonly column_name: string;
}

/**
 * Collations that order text by code point, the order the engine checks incremental positions in:
 * binary NO PAD ones only. The PAD SPACE `_bin` collations (`utf8mb4_bin`) compare 'a' and 'a ' as
 * equal, so a cursor over them could skip or repeat rows; they report `collation`.
 */
const CODE_POINT_COLLATIONS = /^(?:(?:utf8mb4|utf8mb3|utf8|ascii|latin1)_nopad_bin|utf8mb4_0900_bin|binary)$/i;
export interface MysqlCheckRow {
  readonly table_name: string;
  readonly check_clause: string;
}

const JSON_VALID = /json_valid\(\s*`((?:[^`]|``)+)`\s*\)/gi;

/** Columns a table's check clauses declare JSON, by name. */
export function jsonCheckedColumns(checks: readonly MysqlCheckRow[]): Map<string, Set<string>> {
  const byTable = new Map<string, Set<string>>();
  for (const check of checks) {
    for (const match of String(check.check_clause).matchAll(JSON_VALID)) {
      const columns = byTable.get(check.table_name) ?? new Set<string>();
      columns.add(match[1].replaceAll('``', '`'));
      byTable.set(check.table_name, columns);
    }
  }
  return byTable;
}

const KIND_BY_DATA_TYPE: Readonly<Record<string, ColumnKind>> = {
  tinyint: 'integer', smallint: 'integer', mediumint: 'integer', int: 'integer', integer: 'integer', bigint: 'integer',
  year: 'integer', decimal: 'decimal', numeric: 'decimal', float: 'float', double: 'float', real: 'float',
  char: 'string', varchar: 'string', tinytext: 'string', text: 'string', mediumtext: 'string', longtext: 'string',
  enum: 'string', set: 'string', binary: 'binary', varbinary: 'binary', tinyblob: 'binary', blob: 'binary',
  mediumblob: 'binary', longblob: 'binary', date: 'date', datetime: 'datetime', timestamp: 'datetime', time: 'time',
  json: 'json',
};

/** Kinds: BIT(1) is a boolean, wider BITs integers; a json_valid-checked LONGTEXT is JSON. */
export function mysqlColumnKind(dataType: string, columnType: string, jsonChecked: boolean): ColumnKind {
  const type = dataType.toLowerCase();
  if (type === 'bit') return /^bit\(1\)/i.test(columnType) ? 'boolean' : 'integer';
  if (type === 'longtext' && jsonChecked) return 'json';
  return KIND_BY_DATA_TYPE[type] ?? 'other';
}

/** Bare, sorted tables of the connection's database; system objects left out. */
export function buildMysqlSchema(
  tables: readonly MysqlTableRow[],
  columns: readonly MysqlColumnRow[],
  checks: readonly MysqlCheckRow[],
  keys: readonly MysqlKeyRow[] = [],
): DiscoveredSchema {
  const json = jsonCheckedColumns(checks);
  const names = new Set(tables.map((t) => t.table_name).filter((name) => !isSystemObject('MYSQL', name)));
  const columnsByTable = new Map<string, DiscoveredColumn[]>();
  for (const column of columns) {
    if (!names.has(column.table_name)) continue;
    const jsonChecked = json.get(column.table_name)?.has(column.column_name) ?? false;
    const list = columnsByTable.get(column.table_name) ?? [];
    const kind = mysqlColumnKind(column.data_type, column.column_type, jsonChecked);
    const nullable = column.is_nullable === 'YES' || column.is_nullable === 'NO' ? { nullable: column.is_nullable === 'YES' } : {};
    const collation = column.collation_name;
    const ordering = kind === 'string' && collation ? { ordering: CODE_POINT_COLLATIONS.test(collation) ? ('binary' as const) : ('collation' as const) } : {};
    list.push({ name: column.column_name, catalogName: column.column_name, kind, nativeType: String(column.column_type), ...nullable, ...ordering });
    columnsByTable.set(column.table_name, list);
  }
  const keysByTable = new Map<string, string[]>();
  for (const key of keys) keysByTable.set(key.table_name, [...(keysByTable.get(key.table_name) ?? []), key.column_name]);
  return sortTables(
    [...names].map((name) => {
      const primaryKey = keysByTable.get(name);
      return { key: name, table: name, columns: sortColumns(columnsByTable.get(name) ?? []), ...(primaryKey ? { primaryKey } : {}) };
    }),
  );
}
