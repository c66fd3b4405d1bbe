import type { QueryRequest } from '@fetcher/engine';
import { ORACLE_DIALECT } from '../sql/dialect';
import { UPPER_CASE_NAMES, planTableQuery, type DiscoveredSchema } from '../sql/discovered-schema';
import { oracleBind, oracleStatement, oracleTimestampText } from './statement.oracle';

const column = (catalogName: string, nativeType: string, kind: 'string' | 'integer' | 'decimal' | 'datetime' | 'json' | 'other' | 'binary') => ({
  name: catalogName.toUpperCase(),
  catalogName,
  nativeType,
  kind,
});

const SCHEMA: DiscoveredSchema = [
  {
    key: 'EMPLOYEES',
    schema: 'HR',
    table: 'Employees',
    columns: [
      column('Born', 'DATE', 'datetime'),
      column('Doc', 'JSON', 'json'),
      column('ID', 'NUMBER(10,0)', 'integer'),
      column('Leave', 'INTERVAL DAY(2) TO SECOND(6)', 'other'),
      column('Local', 'TIMESTAMP(6) WITH LOCAL TIME ZONE', 'datetime'),
      column('Salary', 'NUMBER(12,2)', 'decimal'),
      column('Seen', 'TIMESTAMP(9)', 'datetime'),
      column('Zoned', 'TIMESTAMP(6) WITH TIME ZONE', 'datetime'),
      column('last"Name', 'VARCHAR2', 'string'),
    ],
  },
  { key: 'SALES.T', schema: 'SALES', table: 't', columns: [column('A', 'VARCHAR2', 'string'), column('a', 'VARCHAR2', 'string')] },
  { key: 'SALES.T', schema: 'SALES', table: 'T', columns: [column('A', 'VARCHAR2', 'string')] },
];

const plan = (key: string, request: Omit<QueryRequest, 'configName'>) =>
  planTableQuery(SCHEMA, ORACLE_DIALECT, UPPER_CASE_NAMES, { configName: 'hr', ...request }, key);

describe('Oracle statements', () => {
  it('formats date-times to UTC text on the server and aliases catalog names to the upper-case fields', () => {
    const statement = oracleStatement(plan('EMPLOYEES', { tables: { EMPLOYEES: ['BORN', 'DOC', 'ID', 'LEAVE', 'LOCAL', 'SEEN', 'ZONED', 'LAST"NAME'] } }));
    expect(statement.sql).toBe(
      'SELECT TO_CHAR("Born", \'YYYY-MM-DD"T"HH24:MI:SS\') AS "BORN", JSON_SERIALIZE("Doc" RETURNING CLOB) AS "DOC", "ID", ' +
        'TO_CHAR("Leave") AS "LEAVE", ' +
        'TO_CHAR(SYS_EXTRACT_UTC(CAST("Local" AS TIMESTAMP WITH TIME ZONE)), \'YYYY-MM-DD"T"HH24:MI:SS.FF9\') AS "LOCAL", ' +
        'TO_CHAR("Seen", \'YYYY-MM-DD"T"HH24:MI:SS.FF9\') AS "SEEN", ' +
        'TO_CHAR(SYS_EXTRACT_UTC("Zoned"), \'YYYY-MM-DD"T"HH24:MI:SS.FF9\') AS "ZONED", ' +
        '"last""Name" AS "LAST""NAME" FROM "HR"."Employees"',
    );
  });

  it('matches upper-cased request names case-insensitively and binds filters as :n', () => {
    const statement = oracleStatement(
      plan('employees', {
        tables: { employees: ['Id'] },
        filters: { employees: { salary: { gte: ['2500.50'] }, Seen: { between: ['2024-01-01', '2024-01-31'] }, ID: { in: ['9223372036854775807', 2] } } },
      }),
    );
    expect(statement.sql).toBe(
      // Filter fields in UTF-8 order of the request's names: ID, Seen, salary.
      'SELECT "ID" FROM "HR"."Employees" WHERE "ID" IN (:1, :2) AND ' +
        '"Seen" >= TO_TIMESTAMP_TZ(:3, \'YYYY-MM-DD"T"HH24:MI:SS.FF9TZH:TZM\') AND "Seen" < TO_TIMESTAMP_TZ(:4, \'YYYY-MM-DD"T"HH24:MI:SS.FF9TZH:TZM\') AND ' +
        '"Salary" >= :5',
    );
    expect(statement.binds).toEqual([9223372036854775807n, 2n, '2024-01-01T00:00:00.0+00:00', '2024-02-01T00:00:00.0+00:00', '2500.50']);
  });

  it('refuses a table name that matches two catalog spellings', () => {
    expect(() => plan('SALES.T', { tables: { 'SALES.T': ['A'] } })).toThrow(expect.objectContaining({ category: 'validation', message: 'datasource identifier is ambiguous: hr.SALES.T' }));
  });

  it('refuses unknown tables and fields as a schema validation failure', () => {
    const failed = 'extraction request failed schema validation: not found in datasource schema:';
    expect(() => plan('NOPE', { tables: { NOPE: ['A'] } })).toThrow(expect.objectContaining({ category: 'validation', message: `${failed} hr.NOPE` }));
    expect(() => plan('EMPLOYEES', { tables: { EMPLOYEES: ['NOPE'] } })).toThrow(expect.objectContaining({ category: 'validation', message: `${failed} hr.EMPLOYEES.NOPE` }));
  });

  it('binds each kind in the form Oracle reads exactly', () => {
    expect(oracleBind({ kind: 'binary', value: new Uint8Array([1]) })).toEqual(Buffer.from([1]));
    expect(oracleBind({ kind: 'datetime', value: '2024-01-01T10:00:00.123456789Z' })).toBe('2024-01-01T10:00:00.123456789+00:00');
    expect(oracleBind({ kind: 'date', value: '2024-01-01' })).toBe('2024-01-01');
    expect(oracleBind({ kind: 'float', value: 1.5 })).toBe(1.5);
    expect(oracleTimestampText('2024-01-01T10:00:00Z')).toBe('2024-01-01T10:00:00.0+00:00');
  });
});
