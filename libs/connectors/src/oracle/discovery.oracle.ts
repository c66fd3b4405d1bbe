/**
 * Oracle schema discovery. Without a scope, the current user's tables;
 * with one, the tables of the scoped owners (upper-cased). Snapshot names are UPPER-CASE; the
 * catalog spelling is kept for the statements.
 */
import type { ColumnKind } from '@fetcher/engine';
import { isSystemObject } from '../common/naming';
import { ORACLE_DIALECT } from '../sql/dialect';
import { sortColumns, sortTables, type DiscoveredColumn, type DiscoveredSchema } from '../sql/discovered-schema';

export const ORACLE_CURRENT_USER_SQL = 'SELECT USER FROM DUAL';

export interface OracleDiscovery {
  /** Bound as :1.. in both statements; empty without a scope. */
  readonly owners: readonly string[];
  readonly tablesSql: string;
  readonly columnsSql: string;
}

const COLUMN_LIST = 'table_name, column_name, data_type, data_precision, data_scale';

export function oracleDiscovery(scope: readonly string[] | undefined): OracleDiscovery {
  const owners = [...new Set((scope ?? []).filter((s) => s !== '').map((s) => s.toUpperCase()))];
  if (owners.length === 0) {
    return {
      owners,
      tablesSql: 'SELECT table_name FROM user_tables',
      columnsSql: `SELECT ${COLUMN_LIST} FROM user_tab_columns`,
    };
  }
  const list = owners.map((_, i) => ORACLE_DIALECT.placeholder(i + 1)).join(', ');
  return {
    owners,
    tablesSql: `SELECT owner, table_name FROM all_tables WHERE owner IN (${list})`,
    columnsSql: `SELECT owner, ${COLUMN_LIST} FROM all_tab_columns WHERE owner IN (${list})`,
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
}

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
): DiscoveredSchema {
  const id = (owner: string, table: string) => JSON.stringify([owner, table]);
  const columnsByTable = new Map<string, DiscoveredColumn[]>();
  for (const c of columns) {
    const owner = c.OWNER ?? currentUser;
    const list = columnsByTable.get(id(owner, c.TABLE_NAME)) ?? [];
    list.push({ name: c.COLUMN_NAME.toUpperCase(), catalogName: c.COLUMN_NAME, kind: oracleColumnKind(c), nativeType: oracleNativeType(c) });
    columnsByTable.set(id(owner, c.TABLE_NAME), list);
  }
  const me = currentUser.toUpperCase();
  return sortTables(
    tables
      .map((t) => ({ owner: t.OWNER ?? currentUser, table: t.TABLE_NAME }))
      .filter(({ owner, table }) => !isSystemObject('ORACLE', owner) && !isSystemObject('ORACLE', table))
      .map(({ owner, table }) => ({
        key: owner.toUpperCase() === me ? table.toUpperCase() : `${owner.toUpperCase()}.${table.toUpperCase()}`,
        schema: owner,
        table,
        columns: sortColumns(columnsByTable.get(id(owner, table)) ?? []),
      })),
  );
}
