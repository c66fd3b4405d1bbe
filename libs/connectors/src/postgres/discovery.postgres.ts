/**
 * PostgreSQL schema discovery: base tables and
 * columns of the schemas in scope (`public` when the scope is empty). Tables in `public` get bare
 * keys, others `schema.table`; names keep their catalog case; system objects are left out.
 */
import { compareUtf8 } from '@fetcher/engine';
import { isSystemObject } from '../common/naming';
import { sortColumns, sortTables, type DiscoveredColumn, type DiscoveredSchema, type DiscoveredTable } from '../sql/discovered-schema';
import { postgresColumnKind, type PostgresColumnType } from './value-mapping.postgres';

export const POSTGRES_TABLES_SQL =
  "SELECT table_schema, table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema = ANY($1)";

/**
 * `udt_name` already names a scalar domain's base type, but an array of a domain says `_<domain>`:
 * for arrays the element type is followed through every domain level to its base type, whose name
 * picks the converter and whose `typdelim` separates the elements (`;` for box).
 */
export const POSTGRES_COLUMNS_SQL = `SELECT c.table_schema, c.table_name, c.column_name, c.data_type, c.udt_name,
  el.element_udt, el.element_delimiter, c.is_nullable,
  COALESCE(c.collation_name, (SELECT datcollate::text FROM pg_catalog.pg_database WHERE datname = current_database())) AS collation
FROM information_schema.columns c
LEFT JOIN LATERAL (
  WITH RECURSIVE chain(typname, typtype, typbasetype, typdelim, depth) AS (
    SELECT e.typname, e.typtype, e.typbasetype, e.typdelim, 0
      FROM pg_catalog.pg_type a
      JOIN pg_catalog.pg_namespace n ON n.oid = a.typnamespace
      JOIN pg_catalog.pg_type e ON e.oid = a.typelem
     WHERE c.data_type = 'ARRAY' AND n.nspname = c.udt_schema AND a.typname = c.udt_name
    UNION ALL
    SELECT b.typname, b.typtype, b.typbasetype, b.typdelim, chain.depth + 1
      FROM chain JOIN pg_catalog.pg_type b ON b.oid = chain.typbasetype
     WHERE chain.typtype = 'd' AND chain.depth < 32
  )
  SELECT typname::text AS element_udt, typdelim::text AS element_delimiter FROM chain ORDER BY depth DESC LIMIT 1
) el ON true
WHERE c.table_schema = ANY($1)`;

/** Primary-key columns in key order, for incremental extraction's default tie-breaker. */
export const POSTGRES_PRIMARY_KEYS_SQL = `SELECT n.nspname AS table_schema, t.relname AS table_name, a.attname AS column_name
FROM pg_catalog.pg_constraint con
JOIN pg_catalog.pg_class t ON t.oid = con.conrelid
JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace
CROSS JOIN LATERAL unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
JOIN pg_catalog.pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
WHERE con.contype = 'p' AND n.nspname = ANY($1)
ORDER BY n.nspname, t.relname, k.ord`;

/**
 * Collations that order text by code point (UTF-8 byte order), the only order an incremental text
 * cursor may use. Any other collation (the usual `en_US.UTF-8`, ICU) is reported as `collation`.
 */
const CODE_POINT_COLLATIONS = /^(?:C|POSIX|ucs_basic|C\.utf-?8)$/i;

export const DEFAULT_SCHEMA = 'public';

export interface PostgresTableRow {
  readonly table_schema: string;
  readonly table_name: string;
}

export interface PostgresColumnRow extends PostgresTableRow {
  readonly column_name: string;
  readonly data_type: string;
  readonly udt_name: string;
  /** Arrays only: the element's base type (through domains) and its delimiter. */
  readonly element_udt?: string | null;
  readonly element_delimiter?: string | null;
  /** `YES` or `NO` (information_schema); absent in rows built by hand. */
  readonly is_nullable?: string;
  /** The column's collation, the database's when the column has the default one. */
  readonly collation?: string | null;
}

export interface PostgresKeyRow extends PostgresTableRow {
  readonly column_name: string;
}

/** A discovered column with the type facts the value mapping needs. `nativeType` is the `udt_name`. */
export interface PostgresColumn extends DiscoveredColumn, PostgresColumnType {}

/** The schemas to read: the scope's distinct names, `public` when empty. `PUBLIC` in any case means `public`. */
export function discoveryScope(scope: readonly string[] | undefined): string[] {
  const names = (scope ?? []).filter((s) => typeof s === 'string' && s !== '').map((s) => (s.toLowerCase() === DEFAULT_SCHEMA ? DEFAULT_SCHEMA : s));
  const distinct = [...new Set(names)].sort(compareUtf8);
  return distinct.length === 0 ? [DEFAULT_SCHEMA] : distinct;
}

export function tableKey(schema: string, table: string): string {
  return schema === DEFAULT_SCHEMA ? table : `${schema}.${table}`;
}

/** Sorted tables with their sorted columns; views, other schemas' rows and system objects are dropped. */
export function buildPostgresSchema(
  tables: readonly PostgresTableRow[],
  columns: readonly PostgresColumnRow[],
  keys: readonly PostgresKeyRow[] = [],
): DiscoveredSchema {
  const byTable = new Map<string, { table: { -readonly [K in keyof DiscoveredTable]: DiscoveredTable[K] }; columns: PostgresColumn[] }>();
  const id = (schema: string, table: string): string => JSON.stringify([schema, table]);
  for (const row of tables) {
    const key = tableKey(row.table_schema, row.table_name);
    if (isSystemObject('POSTGRESQL', row.table_schema) || isSystemObject('POSTGRESQL', key)) continue;
    const list: PostgresColumn[] = [];
    byTable.set(id(row.table_schema, row.table_name), { table: { key, schema: row.table_schema, table: row.table_name, columns: list }, columns: list });
  }
  for (const row of columns) {
    const entry = byTable.get(id(row.table_schema, row.table_name));
    if (!entry) continue; // a view's column, or a table left out above
    const type: PostgresColumnType = {
      dataType: row.data_type,
      udtName: row.udt_name,
      ...(row.element_udt ? { elementUdtName: row.element_udt } : {}),
      ...(row.element_delimiter ? { elementDelimiter: row.element_delimiter } : {}),
    };
    const kind = postgresColumnKind(type);
    entry.columns.push({
      name: row.column_name,
      catalogName: row.column_name,
      kind,
      nativeType: row.udt_name,
      ...(row.is_nullable === 'YES' || row.is_nullable === 'NO' ? { nullable: row.is_nullable === 'YES' } : {}),
      ...(kind === 'string' && row.collation ? { ordering: CODE_POINT_COLLATIONS.test(row.collation) ? ('binary' as const) : ('collation' as const) } : {}),
      ...type,
    });
  }
  const primaryKeys = new Map<string, string[]>();
  for (const row of keys) {
    const table = id(row.table_schema, row.table_name);
    primaryKeys.set(table, [...(primaryKeys.get(table) ?? []), row.column_name]);
  }
  for (const [table, key] of primaryKeys) {
    const entry = byTable.get(table);
    if (entry) entry.table.primaryKey = key;
  }
  for (const entry of byTable.values()) sortColumns(entry.columns);
  return sortTables([...byTable.values()].map((entry) => entry.table));
}

/** The type facts of a column this connector discovered. */
export function postgresColumn(column: DiscoveredColumn): PostgresColumn {
  const candidate = column as Partial<PostgresColumn>;
  if (typeof candidate.dataType === 'string' && typeof candidate.udtName === 'string') return column as PostgresColumn;
  // Not from this connector's discovery: treat the native type as the udt name.
  return { ...column, dataType: column.nativeType, udtName: column.nativeType };
}
