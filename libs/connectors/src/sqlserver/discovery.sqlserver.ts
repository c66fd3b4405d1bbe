/**
 * SQL Server schema discovery: base tables and columns of the schemas
 * in scope (`dbo` when the scope is empty). `dbo` tables are bare keys, the others `schema.table`.
 */
import type { ColumnKind } from '@fetcher/engine';
import { isSystemObject } from '../common/naming';
import { SQLSERVER_DIALECT } from '../sql/dialect';
import { sortColumns, sortTables, type DiscoveredColumn, type DiscoveredSchema } from '../sql/discovered-schema';

export interface SqlServerDiscovery {
  readonly schemas: readonly string[];
  readonly tablesSql: string;
  readonly columnsSql: string;
}

/** The statements for a scope; its schemas bind as @p1.. in both. */
export function sqlServerDiscovery(scope: readonly string[] | undefined): SqlServerDiscovery {
  const schemas = [...new Set((scope ?? []).filter((s) => s !== ''))];
  if (schemas.length === 0) schemas.push('dbo');
  const list = schemas.map((_, i) => SQLSERVER_DIALECT.placeholder(i + 1)).join(', ');
  return {
    schemas,
    tablesSql: `SELECT TABLE_SCHEMA, TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_TYPE = 'BASE TABLE' AND TABLE_SCHEMA IN (${list})`,
    columnsSql: `SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, DATA_TYPE FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA IN (${list})`,
  };
}

export interface SqlServerTableRow {
  readonly TABLE_SCHEMA: string;
  readonly TABLE_NAME: string;
}
export interface SqlServerColumnRow extends SqlServerTableRow {
  readonly COLUMN_NAME: string;
  readonly DATA_TYPE: string;
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

export function buildSqlServerSchema(tables: readonly SqlServerTableRow[], columns: readonly SqlServerColumnRow[]): DiscoveredSchema {
  const id = (schema: string, table: string) => JSON.stringify([schema, table]);
  const columnsByTable = new Map<string, DiscoveredColumn[]>();
  for (const c of columns) {
    const list = columnsByTable.get(id(c.TABLE_SCHEMA, c.TABLE_NAME)) ?? [];
    list.push({ name: c.COLUMN_NAME, catalogName: c.COLUMN_NAME, kind: sqlServerColumnKind(c.DATA_TYPE), nativeType: c.DATA_TYPE });
    columnsByTable.set(id(c.TABLE_SCHEMA, c.TABLE_NAME), list);
  }
  return sortTables(
    tables
      .filter((t) => !isSystemObject('SQL_SERVER', `${t.TABLE_SCHEMA}.${t.TABLE_NAME}`))
      .map((t) => ({
        key: sqlServerTableKey(t.TABLE_SCHEMA, t.TABLE_NAME),
        schema: t.TABLE_SCHEMA,
        table: t.TABLE_NAME,
        columns: sortColumns(columnsByTable.get(id(t.TABLE_SCHEMA, t.TABLE_NAME)) ?? []),
      })),
  );
}
