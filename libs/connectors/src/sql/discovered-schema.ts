/**
 * What a SQL connector keeps from discovery: the snapshot it reports plus the catalog spelling of
 * every schema, table and column, so that statements quote the names the database knows.
 */
import { EngineError, ErrorText, compareUtf8, type ColumnInfo, type IncrementalQuery, type QueryRequest, type SchemaSnapshot } from '@fetcher/engine';
import type { SqlDialect } from './dialect';
import { compileWhere, type CompiledWhere } from './where';

/** A column as the snapshot shows it (`name`, kind, native type), plus its catalog spelling. */
export interface DiscoveredColumn extends ColumnInfo {
  readonly catalogName: string;
}

export interface DiscoveredTable {
  /** The normalised snapshot key. */
  readonly key: string;
  /** Catalog spelling of the schema/owner; absent for bare tables read from the session's default. */
  readonly schema?: string;
  /** Catalog spelling of the table. */
  readonly table: string;
  /** Sorted by snapshot name. */
  readonly columns: readonly DiscoveredColumn[];
  /** Primary-key columns (snapshot names) in key order, where discovery reads them. */
  readonly primaryKey?: readonly string[];
}

/** Tables sorted by key. Keys may repeat only for Oracle (names differing only in case). */
export type DiscoveredSchema = readonly DiscoveredTable[];

/** How requested names meet snapshot names: exactly, or upper-cased on both sides (Oracle). */
export type NameFold = (name: string) => string;
export const EXACT_NAMES: NameFold = (name) => name;
export const UPPER_CASE_NAMES: NameFold = (name) => name.toUpperCase();

export function sortTables(tables: DiscoveredTable[]): DiscoveredTable[] {
  return tables.sort((a, b) => compareUtf8(a.key, b.key) || compareUtf8(a.table, b.table));
}

export function sortColumns(columns: DiscoveredColumn[]): DiscoveredColumn[] {
  return columns.sort((a, b) => compareUtf8(a.name, b.name) || compareUtf8(a.catalogName, b.catalogName));
}

/** The snapshot: one entry per key (a repeated Oracle key lists the union of its fields). */
export function toSnapshot(configName: string, schema: DiscoveredSchema): SchemaSnapshot {
  const byKey = new Map<string, Map<string, ColumnInfo>>();
  const keys = new Map<string, readonly string[]>();
  for (const table of schema) {
    const columns = byKey.get(table.key) ?? new Map<string, ColumnInfo>();
    for (const c of table.columns) {
      if (columns.has(c.name)) continue;
      // Nullability and text ordering only where discovery read them (incremental planning uses them).
      const facts = {
        ...(c.nullable !== undefined ? { nullable: c.nullable } : {}),
        ...(c.ordering !== undefined ? { ordering: c.ordering } : {}),
      };
      columns.set(c.name, { name: c.name, kind: c.kind, nativeType: c.nativeType, ...facts });
    }
    byKey.set(table.key, columns);
    if (table.primaryKey && !keys.has(table.key)) keys.set(table.key, [...table.primaryKey]);
  }
  const tables = [...byKey].map(([name, columns]) => {
    const list = [...columns.values()].sort((a, b) => compareUtf8(a.name, b.name));
    const primaryKey = keys.get(name);
    return { name, fields: list.map((c) => c.name), columns: list, ...(primaryKey ? { primaryKey } : {}) };
  });
  return { configName, tables };
}

export interface TableQueryPlan {
  readonly table: DiscoveredTable;
  /** The requested columns, in request order; each is read as `catalogName` and returned as `name`. */
  readonly columns: readonly DiscoveredColumn[];
  readonly where: CompiledWhere;
  /** A WHERE clause, or an incremental bound: values must be bound, so no unfiltered fast path. */
  readonly filtered: boolean;
  /** The incremental query with its two columns resolved; only for connectors that support it. */
  readonly incremental?: IncrementalTablePlan;
}

export interface IncrementalTablePlan {
  readonly query: IncrementalQuery;
  readonly cursor: DiscoveredColumn;
  readonly tieBreaker: DiscoveredColumn;
}

/**
 * Resolves one requested table against the discovered schema: the table, the fields (`*` means
 * all) and the filters compiled for `dialect`. Names the snapshot does not have are refused (the
 * planner checked them against a snapshot; this one is the connector's own). For Oracle a name
 * matching more than one catalog spelling is refused too, rather than read from a guess.
 */
export function planTableQuery(
  schema: DiscoveredSchema,
  dialect: SqlDialect,
  fold: NameFold,
  request: QueryRequest,
  key: string,
): TableQueryPlan {
  const path = `${request.configName}.${key}`;
  const table = only(schema.filter((t) => fold(t.key) === fold(key)), path);
  const fields = request.tables[key] ?? [];
  const columns = fields.includes('*') ? table.columns : fields.map((field) => findColumn(table, fold, field, path));
  if (columns.length === 0) throw new EngineError('validation', `${ErrorText.schemaValidationFailed}: no columns selected: ${path}`);
  const conditions = request.filters?.[key] ?? {};
  const filterColumns = new Map<string, ColumnInfo>();
  for (const field of Object.keys(conditions)) {
    const column = findColumn(table, fold, field, path);
    filterColumns.set(field, { name: column.catalogName, kind: column.kind, nativeType: column.nativeType });
  }
  const where = compileWhere(dialect, conditions, filterColumns, path);
  const query = request.incremental?.[key];
  if (!query) return { table, columns, where, filtered: where.sql !== '' };
  const incremental = {
    query,
    cursor: findColumn(table, fold, query.cursorField, path),
    tieBreaker: findColumn(table, fold, query.tieBreaker, path),
  };
  return { table, columns, where, filtered: true, incremental };
}

function findColumn(table: DiscoveredTable, fold: NameFold, field: string, path: string): DiscoveredColumn {
  return only(table.columns.filter((c) => fold(c.name) === fold(field)), `${path}.${field}`);
}

function only<T>(matches: readonly T[], path: string): T {
  // The request's own names only, so a failed job says which table or field went missing since planning.
  if (matches.length === 0) throw new EngineError('validation', `${ErrorText.schemaValidationFailed}: not found in datasource schema: ${path}`);
  if (matches.length > 1) throw new EngineError('validation', `datasource identifier is ambiguous: ${path}`);
  return matches[0];
}
