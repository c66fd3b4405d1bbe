import { TYPES, MAX } from 'mssql';
import type { QueryRequest } from '@fetcher/engine';
import { SQLSERVER_DIALECT } from '../sql/dialect';
import { EXACT_NAMES, planTableQuery, type DiscoveredTable } from '../sql/discovered-schema';
import { sqlServerDateTimeText, sqlServerParameter, sqlServerStatement } from './statement.sqlserver';

const column = (name: string, nativeType: string, kind: DiscoveredTable['columns'][number]['kind']) => ({
  name,
  catalogName: name,
  nativeType,
  kind,
});

const ORDERS: DiscoveredTable = {
  key: 'Sales.Order]Lines',
  schema: 'Sales',
  table: 'Order]Lines',
  columns: [
    column('Amount', 'decimal', 'decimal'),
    column('Fee', 'money', 'decimal'),
    column('Id', 'bigint', 'integer'),
    column('Note', 'nvarchar', 'string'),
    column('PlacedAt', 'datetimeoffset', 'datetime'),
    column('ShippedAt', 'datetime2', 'datetime'),
    column('Legacy', 'datetime', 'datetime'),
    column('At', 'time', 'time'),
    column('Guid', 'uniqueidentifier', 'uuid'),
    column('Blob', 'varbinary', 'binary'),
    column('Day', 'date', 'date'),
    column('Ok', 'bit', 'boolean'),
    column('Ratio', 'float', 'float'),
  ],
};

const plan = (request: Omit<QueryRequest, 'configName'>) =>
  planTableQuery([ORDERS], SQLSERVER_DIALECT, EXACT_NAMES, { configName: 'erp', ...request }, 'Sales.Order]Lines');

describe('SQL Server statements', () => {
  it('selects exact types as text aliased to the column name, and quotes every identifier', () => {
    const statement = sqlServerStatement(plan({ tables: { 'Sales.Order]Lines': ['Amount', 'At', 'Fee', 'Id', 'Legacy', 'PlacedAt', 'ShippedAt'] } }));
    expect(statement.sql).toBe(
      'SELECT CONVERT(varchar(64), [Amount]) AS [Amount], CONVERT(varchar(16), [At]) AS [At], ' +
        'CONVERT(varchar(64), [Fee], 2) AS [Fee], [Id], [Legacy], CONVERT(varchar(40), [PlacedAt], 127) AS [PlacedAt], ' +
        'CONVERT(varchar(40), [ShippedAt], 127) AS [ShippedAt] FROM [Sales].[Order]]Lines]',
    );
    expect(statement.parameters).toEqual([]);
  });

  it('compiles filters to @p placeholders with typed parameters', () => {
    const statement = sqlServerStatement(
      plan({
        tables: { 'Sales.Order]Lines': ['Id'] },
        filters: {
          'Sales.Order]Lines': {
            Id: { gt: ['9223372036854775807'] },
            Note: { like: ['Zoë%'] },
            PlacedAt: { between: ['2024-01-01', '2024-01-31'] },
          },
        },
      }),
    );
    expect(statement.sql).toBe(
      'SELECT [Id] FROM [Sales].[Order]]Lines] WHERE [Id] > @p1 AND [Note] LIKE @p2 AND [PlacedAt] >= @p3 AND [PlacedAt] < @p4',
    );
    expect(statement.parameters).toEqual([
      { name: 'p1', type: TYPES.BigInt(), value: 9223372036854775807n },
      { name: 'p2', type: TYPES.NVarChar(MAX), value: 'Zoë%' },
      { name: 'p3', type: TYPES.VarChar(64), value: '2024-01-01T00:00:00' },
      { name: 'p4', type: TYPES.VarChar(64), value: '2024-02-01T00:00:00' },
    ]);
  });

  it.each([
    [{ kind: 'decimal', value: '2500.00' }, TYPES.VarChar(64), '2500.00'],
    [{ kind: 'float', value: 1.5 }, TYPES.Float(), 1.5],
    [{ kind: 'boolean', value: true }, TYPES.Bit(), true],
    [{ kind: 'uuid', value: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' }, TYPES.UniqueIdentifier(), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
    [{ kind: 'date', value: '2024-02-29' }, TYPES.VarChar(64), '2024-02-29'],
    [{ kind: 'datetime', value: '2024-02-29T10:00:00.1234567Z' }, TYPES.VarChar(64), '2024-02-29T10:00:00.1234567'],
    [{ kind: 'binary', value: new Uint8Array([1, 2]) }, TYPES.VarBinary(MAX), Buffer.from([1, 2])],
    [{ kind: 'time', value: '10:00' }, TYPES.NVarChar(MAX), '10:00'],
  ] as const)('binds %j as its SQL Server type', (bound, type, value) => {
    expect(sqlServerParameter('p1', bound)).toEqual({ name: 'p1', type, value });
  });

  it('drops the Z of an ISO instant so every date type converts it as UTC', () => {
    expect(sqlServerDateTimeText('2024-01-01T00:00:00Z')).toBe('2024-01-01T00:00:00');
  });
});
