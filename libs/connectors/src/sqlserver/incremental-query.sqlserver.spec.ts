import { TYPES } from 'mssql';
import { EngineError, type IncrementalQuery, type QueryRequest } from '@fetcher/engine';
import { SQLSERVER_DIALECT } from '../sql/dialect';
import { EXACT_NAMES, planTableQuery, type DiscoveredColumn, type DiscoveredTable } from '../sql/discovered-schema';
import { cutFraction, sqlServerKeyset } from './incremental-query.sqlserver';
import { sqlServerStatement } from './statement.sqlserver';

const column = (name: string, nativeType: string, kind: DiscoveredColumn['kind'], facts: Partial<DiscoveredColumn> = {}): DiscoveredColumn => ({
  name,
  catalogName: name,
  nativeType,
  kind,
  ...facts,
});

const ORDERS: DiscoveredTable = {
  key: 'Sales.Orders',
  schema: 'Sales',
  table: 'Orders',
  columns: [
    column('Amount', 'decimal', 'decimal', { nullable: false }),
    column('Guid', 'uniqueidentifier', 'uuid', { nullable: false }),
    column('Id', 'bigint', 'integer', { nullable: false }),
    column('Legacy', 'datetime', 'datetime', { nullable: false }),
    column('Name', 'nvarchar', 'string', { nullable: false, ordering: 'collation' }),
    column('UpdatedAt', 'datetime2', 'datetime', { nullable: true }),
  ],
  primaryKey: ['Id'],
};

const DEFAULT: IncrementalQuery = { cursorField: 'UpdatedAt', cursorKind: 'datetime', tieBreaker: 'Id', tieBreakerKind: 'integer' };

/** The statement the connector sends for `Sales.Orders` read incrementally with `query`. */
function statement(query: Partial<IncrementalQuery>, request: Partial<QueryRequest> = {}) {
  const plan = planTableQuery(
    [ORDERS],
    SQLSERVER_DIALECT,
    EXACT_NAMES,
    { configName: 'erp', tables: { 'Sales.Orders': ['Amount', 'Id', 'UpdatedAt'] }, incremental: { 'Sales.Orders': { ...DEFAULT, ...query } }, ...request },
    'Sales.Orders',
  );
  const keyset = sqlServerKeyset(plan.incremental!, plan.where.params.length + 1, 'erp.Sales.Orders');
  return sqlServerStatement(plan, keyset);
}

const SELECT =
  'SELECT CONVERT(varchar(64), [Amount]) AS [Amount], [Id], CONVERT(varchar(40), [UpdatedAt], 127) AS [UpdatedAt] FROM [Sales].[Orders] AS [t]';
const ORDER = ' ORDER BY [t].[UpdatedAt], [t].[Id]';

describe('SQL Server incremental statements', () => {
  it('without after: the whole table in (cursor, tie-breaker) order, columns named through the table alias', () => {
    // A bare [UpdatedAt] in ORDER BY would sort by the select list's text conversion.
    expect(statement({})).toEqual({ sql: `${SELECT}${ORDER}`, parameters: [] });
  });

  it('after a position: the spelled-out keyset, the value bound once and named twice', () => {
    expect(statement({ after: { value: '2026-01-01T00:00:00.1234567Z', key: 12n } })).toEqual({
      sql: `${SELECT} WHERE ([t].[UpdatedAt] > @p1 OR ([t].[UpdatedAt] = @p1 AND [t].[Id] > @p2))${ORDER}`,
      parameters: [
        { name: 'p1', type: TYPES.VarChar(64), value: '2026-01-01T00:00:00.1234567' },
        { name: 'p2', type: TYPES.BigInt(), value: 12n },
      ],
    });
  });

  it('inside the NULL cursors (nulls first, SQL Server sorts NULL first): the rest of them, then every value', () => {
    expect(statement({ nulls: 'first', after: { value: null, key: 7n } })).toEqual({
      sql: `${SELECT} WHERE (([t].[UpdatedAt] IS NULL AND [t].[Id] > @p1) OR [t].[UpdatedAt] IS NOT NULL)${ORDER}`,
      parameters: [{ name: 'p1', type: TYPES.BigInt(), value: 7n }],
    });
  });

  it('a lag window binds only its start and ignores after', () => {
    expect(statement({ after: { value: '2026-01-01T00:00:10Z', key: 12n }, from: '2026-01-01T00:00:00.000000001Z' })).toEqual({
      sql: `${SELECT} WHERE [t].[UpdatedAt] >= @p1${ORDER}`,
      // datetime2 converts at most 7 fraction digits: the start moves earlier, never later.
      parameters: [{ name: 'p1', type: TYPES.VarChar(64), value: '2026-01-01T00:00:00.0000000' }],
    });
  });

  it('limits with OFFSET 0 ROWS FETCH NEXT n ROWS ONLY', () => {
    expect(statement({ limit: 500 }).sql).toBe(`${SELECT}${ORDER} OFFSET 0 ROWS FETCH NEXT 500 ROWS ONLY`);
  });

  it('adds the keyset after the filters, its parameters numbered after theirs', () => {
    const filtered = statement(
      { after: { value: '2026-01-01T00:00:00Z', key: 12n }, limit: 10 },
      { filters: { 'Sales.Orders': { Amount: { gte: ['10.5'] }, Id: { ne: [3] } } } },
    );
    expect(filtered.sql).toBe(
      `${SELECT} WHERE [Amount] >= @p1 AND [Id] <> @p2 AND ([t].[UpdatedAt] > @p3 OR ([t].[UpdatedAt] = @p3 AND [t].[Id] > @p4))` +
        `${ORDER} OFFSET 0 ROWS FETCH NEXT 10 ROWS ONLY`,
    );
    expect(filtered.parameters.map((p) => [p.name, p.value])).toEqual([
      ['p1', '10.5'],
      ['p2', 3n],
      ['p3', '2026-01-01T00:00:00'],
      ['p4', 12n],
    ]);
  });

  it('orders a uniqueidentifier as its text under BIN2 and binds it upper-case, not in SQL Server\'s byte-group order', () => {
    const uuid = statement({ tieBreaker: 'Guid', tieBreakerKind: 'uuid', after: { value: '2026-01-01T00:00:00Z', key: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' } });
    const k = 'CONVERT(char(36), [t].[Guid]) COLLATE Latin1_General_BIN2';
    expect(uuid.sql).toBe(`${SELECT} WHERE ([t].[UpdatedAt] > @p1 OR ([t].[UpdatedAt] = @p1 AND ${k} > @p2)) ORDER BY [t].[UpdatedAt], ${k}`);
    expect(uuid.parameters[1]).toEqual({ name: 'p2', type: TYPES.VarChar(36), value: 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11' });
  });

  it('cuts a date-time for a legacy datetime column to milliseconds', () => {
    const legacy = statement({ cursorField: 'Legacy', after: { value: '2026-01-01T00:00:00.003Z', key: 1n }, from: '2025-12-31T23:59:59.9999999Z' });
    expect(legacy.sql).toContain('WHERE [t].[Legacy] >= @p1 ORDER BY [t].[Legacy], [t].[Id]');
    expect(legacy.parameters).toEqual([{ name: 'p1', type: TYPES.VarChar(64), value: '2025-12-31T23:59:59.999' }]);
    expect(cutFraction('2026-01-01T00:00:00Z', 3)).toBe('2026-01-01T00:00:00Z');
    expect(cutFraction('2026-01-01T00:00:00.12Z', 3)).toBe('2026-01-01T00:00:00.12Z');
  });

  it('refuses a text column that is not code-point ordered, even if a request got this far', () => {
    expect(() => statement({ cursorField: 'Name', cursorKind: 'string', after: { value: 'a', key: 1n } })).toThrow(
      new EngineError('validation', 'incremental text field is ordered by a collation, not by code point: erp.Sales.Orders.Name'),
    );
  });

  it('refuses an after value that does not parse as the column type', () => {
    expect(() => statement({ after: { value: 'yesterday', key: 1n } })).toThrow(EngineError);
  });
});
