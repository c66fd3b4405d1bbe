/**
 * Oracle schema discovery. Without a scope, the current user's tables;
 * with one, the tables of the scoped owners (upper-cased). Snapshot names are UPPER-CASE; the
 * catalog spelling is kept for the statements. Also read: nullability, primary keys in key order,
 * and what proves a text column's order to be code-point order (`ordering: "binary"`):
 *
 * - only VARCHAR2: NVARCHAR2/NCHAR use the national character set (AL16UTF16 or CESU-8 `UTF8`, whose
 *   byte order puts U+10000 and above before U+E000..U+FFFF), CHAR compares blank-padded, and
 *   CLOB/LONG cannot be compared at all. Those report `collation`;
 * - the database character set is AL32UTF8 (true UTF-8: byte order is code-point order);
 * - the column's collation (Oracle 12.2+) is BINARY or one that defers to the session (USING_NLS_COMP,
 *   USING_NLS_SORT), and every session sets NLS_COMP and NLS_SORT to BINARY (ORACLE_SESSION_SQL).
 *
 * A VARCHAR2 column whose collation could not be read (before 12.2) reports no ordering.
 */
import type { ColumnKind } from '@fetcher/engine';
import { isSystemObject } from '../common/naming';
import { ORACLE_DIALECT } from '../sql/dialect';
import { sortColumns, sortTables, type DiscoveredColumn, type DiscoveredSchema } from '../sql/discovered-schema';

export const ORACLE_CURRENT_USER_SQL = 'SELECT USER FROM DUAL';

/** The database character set: VARCHAR2 text is code-point ordered under BINARY only in AL32UTF8. */
export const ORACLE_CHARSET_SQL = "SELECT value FROM nls_database_parameters WHERE parameter = 'NLS_CHARACTERSET'";

/** Oracle's "invalid identifier": the `collation` column before 12.2. */
export const ORACLE_INVALID_IDENTIFIER = 'ORA-00904';

export interface OracleDiscovery {
  /** Bound as :1.. in both statements; empty without a scope. */
  readonly owners: readonly string[];
  readonly tablesSql: string;
  readonly columnsSql: string;
  /** Primary-key columns in key order. */
  readonly keysSql: string;
  /** VARCHAR2 columns' collations; fails with ORA-00904 before Oracle 12.2. */
  readonly collationsSql: string;
}

const COLUMN_LIST = 'table_name, column_name, data_type, data_precision, data_scale, nullable';
const COLLATIONS = "table_name, column_name, collation FROM {view} WHERE data_type = 'VARCHAR2'";
const KEYS =
  'c.table_name, k.column_name FROM {constraints} c JOIN {columns} k ON {owner}k.constraint_name = c.constraint_name ' +
  "AND k.table_name = c.table_name WHERE c.constraint_type = 'P'";

export function oracleDiscovery(scope: readonly string[] | undefined): OracleDiscovery {
  const owners = [...new Set((scope ?? []).filter((s) => s !== '').map((s) => s.toUpperCase()))];
  if (owners.length === 0) {
    return {
      owners,
      tablesSql: 'SELECT table_name FROM user_tables',
      columnsSql: `SELECT ${COLUMN_LIST} FROM user_tab_columns`,
      keysSql: `SELECT ${KEYS.replace('{constraints}', 'user_constraints').replace('{columns}', 'user_cons_columns').replace('{owner}', '')} ORDER BY c.table_name, k.position`,
      collationsSql: `SELECT ${COLLATIONS.replace('{view}', 'user_tab_columns')}`,
    };
  }
  const list = owners.map((_, i) => ORACLE_DIALECT.placeholder(i + 1)).join(', ');
  return {
    owners,
    tablesSql: `SELECT owner, table_name FROM all_tables WHERE owner IN (${list})`,
    columnsSql: `SELECT owner, ${COLUMN_LIST} FROM all_tab_columns WHERE owner IN (${list})`,
    keysSql:
      `SELECT c.owner, ${KEYS.replace('{constraints}', 'all_constraints').replace('{columns}', 'all_cons_columns').replace('{owner}', 'k.owner = c.owner AND ')} ` +
      `AND c.owner IN (${list}) ORDER BY c.owner, c.table_name, k.position`,
    collationsSql: `SELECT owner, ${COLLATIONS.replace('{view}', 'all_tab_columns')} AND owner IN (${list})`,
  };
}

export interface OracleTableRow {
  readonly OWNER?: string;
  readonly TABLE_NAME: string;
}
export interface OracleColumnRow extends OracleTableRow {
  readonly COLUMN_NAME: string;
  readonly DATA_TYPE: string;
  readonly DATA_PRECISION: number | null;
  readonly DATA_SCALE: number | null;
  /** `Y` or `N`. */
  readonly NULLABLE?: string;
}
export interface OracleKeyRow extends OracleTableRow {
  readonly COLUMN_NAME: string;
}
export interface OracleCollationRow extends OracleTableRow {
  readonly COLUMN_NAME: string;
  readonly COLLATION: string | null;
}

/** What decides text ordering: the database character set and the VARCHAR2 collations, when read. */
export interface OracleTextFacts {
  readonly charset: string;
  /** Absent when the catalog has no `collation` column (before 12.2). */
  readonly collations?: readonly OracleCollationRow[];
}

/** Column collations that compare by the session's NLS_COMP/NLS_SORT (set to BINARY) or are BINARY. */
const BINARY_COLLATIONS: ReadonlySet<string> = new Set(['BINARY', 'USING_NLS_COMP', 'USING_NLS_SORT']);

/** NUMBER keeps its precision and scale, which decide integer versus decimal. */
export function oracleNativeType(row: Pick<OracleColumnRow, 'DATA_TYPE' | 'DATA_PRECISION' | 'DATA_SCALE'>): string {
  if (row.DATA_TYPE !== 'NUMBER' || (row.DATA_PRECISION === null && row.DATA_SCALE === null)) return row.DATA_TYPE;
  return `NUMBER(${row.DATA_PRECISION ?? '*'},${row.DATA_SCALE ?? 0})`;
}

/** Kinds. DATE carries a time of day in Oracle, so it is a datetime. */
export function oracleColumnKind(row: Pick<OracleColumnRow, 'DATA_TYPE' | 'DATA_SCALE'>): ColumnKind {
  const type = row.DATA_TYPE.toUpperCase();
  if (type === 'NUMBER') return row.DATA_SCALE === 0 ? 'integer' : 'decimal';
  if (type === 'FLOAT') return 'decimal';
  if (type === 'BINARY_FLOAT' || type === 'BINARY_DOUBLE') return 'float';
  if (['VARCHAR2', 'NVARCHAR2', 'CHAR', 'NCHAR', 'CLOB', 'NCLOB', 'LONG'].includes(type)) return 'string';
  if (type === 'DATE' || type.startsWith('TIMESTAMP')) return 'datetime';
  if (['RAW', 'BLOB', 'LONG RAW'].includes(type)) return 'binary';
  if (type === 'JSON') return 'json';
  if (type === 'BOOLEAN') return 'boolean';
  return 'other';
}

/** An owner other than the current user shows as `OWNER.TABLE`; system owners and tables are left out. */
export function buildOracleSchema(
  currentUser: string,
  tables: readonly OracleTableRow[],
  columns: readonly OracleColumnRow[],
  keys: readonly OracleKeyRow[] = [],
  text?: OracleTextFacts,
): DiscoveredSchema {
  const id = (owner: string, table: string) => JSON.stringify([owner, table]);
  const collations = new Map<string, string | null>();
  for (const row of text?.collations ?? []) collations.set(id(row.OWNER ?? currentUser, `${row.TABLE_NAME}.${row.COLUMN_NAME}`), row.COLLATION);
  const columnsByTable = new Map<string, DiscoveredColumn[]>();
  for (const c of columns) {
    const owner = c.OWNER ?? currentUser;
    const list = columnsByTable.get(id(owner, c.TABLE_NAME)) ?? [];
    const kind = oracleColumnKind(c);
    const nullable = c.NULLABLE === 'Y' || c.NULLABLE === 'N' ? { nullable: c.NULLABLE === 'Y' } : {};
    const ordering = kind === 'string' && text ? textOrdering(c, text, collations.get(id(owner, `${c.TABLE_NAME}.${c.COLUMN_NAME}`))) : undefined;
    list.push({
      name: c.COLUMN_NAME.toUpperCase(),
      catalogName: c.COLUMN_NAME,
      kind,
      nativeType: oracleNativeType(c),
      ...nullable,
      ...(ordering ? { ordering } : {}),
    });
    columnsByTable.set(id(owner, c.TABLE_NAME), list);
  }
  const keysByTable = new Map<string, string[]>();
  for (const k of keys) {
    const table = id(k.OWNER ?? currentUser, k.TABLE_NAME);
    keysByTable.set(table, [...(keysByTable.get(table) ?? []), k.COLUMN_NAME.toUpperCase()]);
  }
  const me = currentUser.toUpperCase();
  return sortTables(
    tables
      .map((t) => ({ owner: t.OWNER ?? currentUser, table: t.TABLE_NAME }))
      .filter(({ owner, table }) => !isSystemObject('ORACLE', owner) && !isSystemObject('ORACLE', table))
      .map(({ owner, table }) => {
        const primaryKey = keysByTable.get(id(owner, table));
        return {
          key: owner.toUpperCase() === me ? table.toUpperCase() : `${owner.toUpperCase()}.${table.toUpperCase()}`,
          schema: owner,
          table,
          columns: sortColumns(columnsByTable.get(id(owner, table)) ?? []),
          ...(primaryKey ? { primaryKey } : {}),
        };
      }),
  );
}

/** `binary` only when proven (see the file comment); `collation` for text types that never are; else unknown. */
function textOrdering(column: OracleColumnRow, text: OracleTextFacts, collation: string | null | undefined): 'binary' | 'collation' | undefined {
  if (column.DATA_TYPE.toUpperCase() !== 'VARCHAR2') return 'collation';
  if (text.charset.toUpperCase() !== 'AL32UTF8') return 'collation';
  if (text.collations === undefined || !collation) return undefined;
  return BINARY_COLLATIONS.has(collation.toUpperCase()) ? 'binary' : 'collation';
}
