/**
 * SQL Server schema discovery: base tables, columns (with nullability) and primary keys of the
 * schemas in scope (`dbo` when the scope is empty). `dbo` tables are bare keys, the others
 * `schema.table`.
 *
 * Text columns never report `ordering: "binary"`: SQL Server compares strings with trailing spaces
 * padded away under every collation, BIN2 included (`'a' = 'a '`, and `'a' > 'a' + CHAR(1)`), so
 * its order is not code-point order; and `nchar`/`nvarchar` under a BIN2 collation compare UTF-16
 * code units, which puts U+10000 and above before U+E000..U+FFFF. They report `collation`, and the
 * engine refuses them as incremental cursors or tie-breakers with its collation error.
 */
import type { ColumnKind } from '@fetcher/engine';
import { isSystemObject } from '../common/naming';
import { SQLSERVER_DIALECT } from '../sql/dialect';
import { sortColumns, sortTables, type DiscoveredColumn, type DiscoveredSchema } from '../sql/discovered-schema';

export interface SqlServerDiscovery {
  readonly schemas: readonly string[];
  readonly tablesSql: string;
  readonly columnsSql: string;
  /** Primary-key columns in key order. */
  readonly keysSql: string;
}

/** The statements for a scope; its schemas bind as @p1.. in both. */
export function sqlServerDiscovery(scope: readonly string[] | undefined): SqlServerDiscovery {
  const schemas = [...new Set((scope ?? []).filter((s) => s !== ''))];
  if (schemas.length === 0) schemas.push('dbo');
  const list = schemas.map((_, i) => SQLSERVER_DIALECT.placeholder(i + 1)).join(', ');
  return {
    schemas,
    tablesSql: `SELECT TABLE_SCHEMA, TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_TYPE = 'BASE TABLE' AND TABLE_SCHEMA IN (${list})`,
    columnsSql:
      'SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, DATA_TYPE, IS_NULLABLE, COLLATION_NAME ' +
      `FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA IN (${list})`,
    keysSql:
      'SELECT k.TABLE_SCHEMA, k.TABLE_NAME, k.COLUMN_NAME FROM INFORMATION_SCHEMA.TABLE_CONSTRAINTS c ' +
      'JOIN INFORMATION_SCHEMA.KEY_COLUMN_USAGE k ON k.CONSTRAINT_SCHEMA = c.CONSTRAINT_SCHEMA AND k.CONSTRAINT_NAME = c.CONSTRAINT_NAME ' +
      'AND k.TABLE_SCHEMA = c.TABLE_SCHEMA AND k.TABLE_NAME = c.TABLE_NAME ' +
      `WHERE c.CONSTRAINT_TYPE = 'PRIMARY KEY' AND c.TABLE_SCHEMA IN (${list}) ` +
      'ORDER BY k.TABLE_SCHEMA, k.TABLE_NAME, k.ORDINAL_POSITION',
  };
}

export interface SqlServerTableRow {
  readonly TABLE_SCHEMA: string;
  readonly TABLE_NAME: string;
}
export interface SqlServerColumnRow extends SqlServerTableRow {
  readonly COLUMN_NAME: string;
  readonly DATA_TYPE: string;
  /** `YES` or `NO`. */
  readonly IS_NULLABLE?: string;
  readonly COLLATION_NAME?: string | null;
}
export interface SqlServerKeyRow extends SqlServerTableRow {
  readonly COLUMN_NAME: string;
}

const KIND_BY_DATA_TYPE: Readonly<Record<string, ColumnKind>> = {
  tinyint: 'integer', smallint: 'integer', int: 'integer', bigint: 'integer',
  decimal: 'decimal', numeric: 'decimal', money: 'decimal', smallmoney: 'decimal',
  float: 'float', real: 'float', bit: 'boolean',
  char: 'string', varchar: 'string', nchar: 'string', nvarchar: 'string', text: 'string', ntext: 'string',
  uniqueidentifier: 'uuid', date: 'date',
  datetime: 'datetime', datetime2: 'datetime', smalldatetime: 'datetime', datetimeoffset: 'datetime',
  time: 'time', binary: 'binary', varbinary: 'binary', image: 'binary',
};

/** Kinds. `xml` is read as text but is not `string`: LIKE does not apply to it. */
export function sqlServerColumnKind(dataType: string): ColumnKind {
  return KIND_BY_DATA_TYPE[dataType.toLowerCase()] ?? 'other';
}

export function sqlServerTableKey(schema: string, table: string): string {
  return schema.toLowerCase() === 'dbo' ? table : `${schema}.${table}`;
}

export function buildSqlServerSchema(
  tables: readonly SqlServerTableRow[],
  columns: readonly SqlServerColumnRow[],
  keys: readonly SqlServerKeyRow[] = [],
): DiscoveredSchema {
  const id = (schema: string, table: string) => JSON.stringify([schema, table]);
  const columnsByTable = new Map<string, DiscoveredColumn[]>();
  for (const c of columns) {
    const list = columnsByTable.get(id(c.TABLE_SCHEMA, c.TABLE_NAME)) ?? [];
    const kind = sqlServerColumnKind(c.DATA_TYPE);
    const nullable = c.IS_NULLABLE === 'YES' || c.IS_NULLABLE === 'NO' ? { nullable: c.IS_NULLABLE === 'YES' } : {};
    // Never `binary` (see the file comment); only where the catalog read a collation at all.
    const ordering = kind === 'string' && c.COLLATION_NAME ? { ordering: 'collation' as const } : {};
    list.push({ name: c.COLUMN_NAME, catalogName: c.COLUMN_NAME, kind, nativeType: c.DATA_TYPE, ...nullable, ...ordering });
    columnsByTable.set(id(c.TABLE_SCHEMA, c.TABLE_NAME), list);
  }
  const keysByTable = new Map<string, string[]>();
  for (const k of keys) {
    const table = id(k.TABLE_SCHEMA, k.TABLE_NAME);
    keysByTable.set(table, [...(keysByTable.get(table) ?? []), k.COLUMN_NAME]);
  }
  return sortTables(
    tables
      .filter((t) => !isSystemObject('SQL_SERVER', `${t.TABLE_SCHEMA}.${t.TABLE_NAME}`))
      .map((t) => {
        const primaryKey = keysByTable.get(id(t.TABLE_SCHEMA, t.TABLE_NAME));
        return {
          key: sqlServerTableKey(t.TABLE_SCHEMA, t.TABLE_NAME),
          schema: t.TABLE_SCHEMA,
          table: t.TABLE_NAME,
          columns: sortColumns(columnsByTable.get(id(t.TABLE_SCHEMA, t.TABLE_NAME)) ?? []),
          ...(primaryKey ? { primaryKey } : {}),
        };
      }),
  );
}
