import { EngineError, type IncrementalQuery, type QueryRequest } from '@fetcher/engine';
import { ORACLE_DIALECT } from '../sql/dialect';
import { UPPER_CASE_NAMES, planTableQuery, type DiscoveredColumn, type DiscoveredTable } from '../sql/discovered-schema';
import { oracleKeyset } from './incremental-query.oracle';
import { oracleStatement } from './statement.oracle';

const column = (catalogName: string, nativeType: string, kind: DiscoveredColumn['kind'], facts: Partial<DiscoveredColumn> = {}): DiscoveredColumn => ({
  name: catalogName.toUpperCase(),
  catalogName,
  nativeType,
  kind,
  ...facts,
});

const ORDERS: DiscoveredTable = {
  key: 'SALES.ORDERS',
  schema: 'SALES',
  table: 'Orders',
  columns: [
    column('Code', 'VARCHAR2', 'string', { nullable: false, ordering: 'binary' }),
    column('Id', 'NUMBER(19,0)', 'integer', { nullable: false }),
    column('Label', 'NVARCHAR2', 'string', { nullable: false, ordering: 'collation' }),
    column('Total', 'NUMBER(12,2)', 'decimal', { nullable: false }),
    column('updatedAt', 'TIMESTAMP(6) WITH TIME ZONE', 'datetime', { nullable: true }),
  ],
  primaryKey: ['ID'],
};

/** Upper-cased, as the planner hands Oracle names to the connector. */
const DEFAULT: IncrementalQuery = { cursorField: 'UPDATEDAT', cursorKind: 'datetime', tieBreaker: 'ID', tieBreakerKind: 'integer' };

function statement(query: Partial<IncrementalQuery>, request: Partial<QueryRequest> = {}) {
  const plan = planTableQuery(
    [ORDERS],
    ORACLE_DIALECT,
    UPPER_CASE_NAMES,
    { configName: 'crm', tables: { 'SALES.ORDERS': ['ID', 'TOTAL', 'UPDATEDAT'] }, incremental: { 'SALES.ORDERS': { ...DEFAULT, ...query } }, ...request },
    'SALES.ORDERS',
  );
  return oracleStatement(plan, oracleKeyset(plan.incremental!, plan.where.params.length + 1, 'crm.SALES.ORDERS'));
}

const SELECT =
  'SELECT "Id" AS "ID", "Total" AS "TOTAL", TO_CHAR(SYS_EXTRACT_UTC("updatedAt"), \'YYYY-MM-DD"T"HH24:MI:SS.FF9\') AS "UPDATEDAT" ' +
  'FROM "SALES"."Orders" "t"';
const TS = (position: number) => `TO_TIMESTAMP_TZ(:${position}, 'YYYY-MM-DD"T"HH24:MI:SS.FF9TZH:TZM')`;
const C = '"t"."updatedAt"';
const K = '"t"."Id"';

describe('Oracle incremental statements', () => {
  it('without after: the whole table in (cursor, tie-breaker) order, catalog names through the table alias', () => {
    // A bare "UPDATEDAT" in ORDER BY would sort by the select list's text.
    expect(statement({})).toEqual({ sql: `${SELECT} ORDER BY ${C}, ${K}`, binds: [] });
  });

  it('after a position: the spelled-out keyset, the value bound once per marker', () => {
    expect(statement({ after: { value: '2026-01-01T00:00:00.123456Z', key: 12n } })).toEqual({
      sql: `${SELECT} WHERE (${C} > ${TS(1)} OR (${C} = ${TS(2)} AND ${K} > :3)) ORDER BY ${C}, ${K}`,
      binds: ['2026-01-01T00:00:00.123456+00:00', '2026-01-01T00:00:00.123456+00:00', 12n],
    });
  });

  it('with nulls "first": NULLS FIRST in the order (Oracle sorts them last), and the rest of the NULLs inside them', () => {
    expect(statement({ nulls: 'first' })).toEqual({ sql: `${SELECT} ORDER BY ${C} NULLS FIRST, ${K}`, binds: [] });
    expect(statement({ nulls: 'first', after: { value: null, key: 7n } })).toEqual({
      sql: `${SELECT} WHERE ((${C} IS NULL AND ${K} > :1) OR ${C} IS NOT NULL) ORDER BY ${C} NULLS FIRST, ${K}`,
      binds: [7n],
    });
    expect(statement({ nulls: 'first', after: { value: '2026-01-01T00:00:00Z', key: 7n } }).sql).toBe(
      `${SELECT} WHERE (${C} > ${TS(1)} OR (${C} = ${TS(2)} AND ${K} > :3)) ORDER BY ${C} NULLS FIRST, ${K}`,
    );
  });

  it('a lag window binds only its start and ignores after', () => {
    expect(statement({ after: { value: '2026-01-01T00:00:10Z', key: 12n }, from: '2026-01-01T00:00:00.000000001Z' })).toEqual({
      sql: `${SELECT} WHERE ${C} >= ${TS(1)} ORDER BY ${C}, ${K}`,
      binds: ['2026-01-01T00:00:00.000000001+00:00'],
    });
  });

  it('limits with FETCH FIRST n ROWS ONLY', () => {
    expect(statement({ limit: 500 }).sql).toBe(`${SELECT} ORDER BY ${C}, ${K} FETCH FIRST 500 ROWS ONLY`);
  });

  it('adds the keyset after the filters, its markers numbered after theirs', () => {
    const filtered = statement(
      { after: { value: '2026-01-01T00:00:00Z', key: 12n }, limit: 10 },
      { filters: { 'SALES.ORDERS': { TOTAL: { gte: ['10.5'] }, ID: { ne: [3] } } } },
    );
    expect(filtered).toEqual({
      sql:
        `${SELECT} WHERE "Id" <> :1 AND "Total" >= :2 AND (${C} > ${TS(3)} OR (${C} = ${TS(4)} AND ${K} > :5)) ` +
        `ORDER BY ${C}, ${K} FETCH FIRST 10 ROWS ONLY`,
      binds: [3n, '10.5', '2026-01-01T00:00:00.0+00:00', '2026-01-01T00:00:00.0+00:00', 12n],
    });
  });

  it('reads a code-point ordered VARCHAR2 cursor with plain binds (the session compares and sorts BINARY)', () => {
    expect(statement({ cursorField: 'CODE', cursorKind: 'string', after: { value: 'Zoë', key: 1n } })).toEqual({
      sql: `${SELECT} WHERE ("t"."Code" > :1 OR ("t"."Code" = :2 AND ${K} > :3)) ORDER BY "t"."Code", ${K}`,
      binds: ['Zoë', 'Zoë', 1n],
    });
  });

  it('refuses a text column that is not code-point ordered, even if a request got this far', () => {
    expect(() => statement({ cursorField: 'LABEL', cursorKind: 'string', after: { value: 'a', key: 1n } })).toThrow(
      new EngineError('validation', 'incremental text field is ordered by a collation, not by code point: crm.SALES.ORDERS.LABEL'),
    );
  });

  it('refuses an after value that does not parse as the column type', () => {
    expect(() => statement({ after: { value: 'yesterday', key: 1n } })).toThrow(EngineError);
  });
});
