/**
 * Table-key normalisation and system-object rules shared by every connector. Hosts use the same
 * functions on requests, so a key
 * normalised here matches the key a connector puts in its snapshot.
 */
export type DatasourceType = 'POSTGRESQL' | 'MYSQL' | 'SQL_SERVER' | 'ORACLE' | 'MONGODB';

const DATASOURCE_TYPES: readonly DatasourceType[] = ['POSTGRESQL', 'MYSQL', 'SQL_SERVER', 'ORACLE', 'MONGODB'];

/** Case-insensitive; `undefined` for anything else (surrounding blanks included). */
export function parseDatasourceType(type: string): DatasourceType | undefined {
  if (typeof type !== 'string') return undefined;
  const upper = type.toUpperCase();
  return DATASOURCE_TYPES.find((known) => known === upper);
}

/** The schema whose tables appear bare; MySQL and MongoDB have none. */
const DEFAULT_SCHEMA: Readonly<Partial<Record<DatasourceType, string>>> = { POSTGRESQL: 'public', SQL_SERVER: 'dbo' };

/**
 * One part: the table. Two: schema.table. Three: the first part (the database) is dropped. Four or
 * more: unchanged. A schema equal to the type's default (case-insensitive) disappears; Oracle keys
 * are upper-cased. Quirk (kept): a Mongo collection named `a.b.c` becomes `b.c`.
 */
export function normaliseTableKey(type: DatasourceType, rawKey: string): string {
  const parts = rawKey.split('.');
  let key = rawKey;
  if (parts.length === 3) key = `${parts[1]}.${parts[2]}`;
  if (parts.length === 2 || parts.length === 3) {
    const [schema, table] = parts.length === 2 ? parts : [parts[1], parts[2]];
    const defaultSchema = DEFAULT_SCHEMA[type];
    if (defaultSchema !== undefined && schema.toLowerCase() === defaultSchema) key = table;
  }
  return type === 'ORACLE' ? key.toUpperCase() : key;
}

/** `schema.table` splits at the first dot; a bare key has no schema. */
export function splitTableKey(key: string): { schema?: string; table: string } {
  const dot = key.indexOf('.');
  if (dot < 0) return { table: key };
  return { schema: key.slice(0, dot), table: key.slice(dot + 1) };
}

const MYSQL_SYSTEM = new Set(['mysql', 'information_schema', 'performance_schema', 'sys']);
const SQLSERVER_SYSTEM = new Set(['sys', 'information_schema']);
const ORACLE_SYSTEM = new Set([
  'SYS', 'SYSTEM', 'OUTLN', 'XDB', 'MDSYS', 'CTXSYS', 'DBSNMP', 'WMSYS', 'EXFSYS', 'ORDSYS', 'ORDDATA', 'ORDPLUGINS',
  'SI_INFORMTN_SCHEMA', 'APEX_PUBLIC_USER', 'APEX_040000', 'APEX_030200', 'FLOWS_FILES', 'ANONYMOUS',
  'REDO_LOG', 'REDO_DB', 'PLAN_TABLE',
]);
const ORACLE_PREFIXES = ['LOGMNR', 'REDO_', 'MVIEW$', 'AQ$', 'DEF$', 'REPCAT$', 'SQLPLUS_'];
const MONGO_SYSTEM = new Set(['admin', 'local', 'config']);

/**
 * Whether a schema, table or `schema.table` key is a system object left out of snapshots. For the
 * SQL types a qualified key is a system object when either part is. PostgreSQL names are compared
 * as stored (its system names are lower-case; `"PG_x"` is a user table); MySQL and SQL Server
 * case-insensitively (SQL Server spells `INFORMATION_SCHEMA` upper-case); Oracle upper-cased.
 * Mongo collection names may contain dots, so they are never split.
 */
export function isSystemObject(type: DatasourceType, name: string): boolean {
  if (type === 'MONGODB') return name.startsWith('system.') || MONGO_SYSTEM.has(name);
  const parts = name.includes('.') ? [name, ...name.split('.')] : [name];
  return parts.some((part) => isSystemName(type, part));
}

function isSystemName(type: Exclude<DatasourceType, 'MONGODB'>, name: string): boolean {
  switch (type) {
    case 'POSTGRESQL':
      return name.startsWith('pg_') || name.startsWith('information_schema');
    case 'MYSQL':
      return MYSQL_SYSTEM.has(name.toLowerCase());
    case 'SQL_SERVER': {
      const lower = name.toLowerCase();
      return SQLSERVER_SYSTEM.has(lower) || lower.startsWith('db_');
    }
    case 'ORACLE': {
      const upper = name.toUpperCase();
      return upper.includes('$') || ORACLE_SYSTEM.has(upper) || ORACLE_PREFIXES.some((p) => upper.startsWith(p));
    }
  }
}
