import { buildSqlServerSchema, sqlServerColumnKind, sqlServerDiscovery } from './discovery.sqlserver';

describe('SQL Server discovery', () => {
  it('reads dbo when the scope is empty', () => {
    expect(sqlServerDiscovery(undefined)).toEqual({
      schemas: ['dbo'],
      tablesSql:
        "SELECT TABLE_SCHEMA, TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_TYPE = 'BASE TABLE' AND TABLE_SCHEMA IN (@p1)",
      columnsSql: 'SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, DATA_TYPE FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA IN (@p1)',
    });
    expect(sqlServerDiscovery([]).schemas).toEqual(['dbo']);
  });

  it('binds each scoped schema once', () => {
    const discovery = sqlServerDiscovery(['dbo', 'Sales', 'dbo', 'hr']);
    expect(discovery.schemas).toEqual(['dbo', 'Sales', 'hr']);
    expect(discovery.tablesSql).toMatch(/TABLE_SCHEMA IN \(@p1, @p2, @p3\)$/);
    expect(discovery.columnsSql).toMatch(/TABLE_SCHEMA IN \(@p1, @p2, @p3\)$/);
  });

  it('keys dbo tables bare and others schema.table, sorted, system objects left out', () => {
    const schema = buildSqlServerSchema(
      [
        { TABLE_SCHEMA: 'Sales', TABLE_NAME: 'Orders' },
        { TABLE_SCHEMA: 'dbo', TABLE_NAME: 'Customers' },
        { TABLE_SCHEMA: 'db_owner', TABLE_NAME: 'x' },
        { TABLE_SCHEMA: 'sys', TABLE_NAME: 'objects' },
        { TABLE_SCHEMA: 'dbo', TABLE_NAME: 'db_audit' },
        { TABLE_SCHEMA: 'DBO', TABLE_NAME: 'Áreas' },
      ],
      [
        { TABLE_SCHEMA: 'dbo', TABLE_NAME: 'Customers', COLUMN_NAME: 'Name', DATA_TYPE: 'nvarchar' },
        { TABLE_SCHEMA: 'dbo', TABLE_NAME: 'Customers', COLUMN_NAME: 'Id', DATA_TYPE: 'bigint' },
        { TABLE_SCHEMA: 'Sales', TABLE_NAME: 'Orders', COLUMN_NAME: 'Total', DATA_TYPE: 'money' },
        { TABLE_SCHEMA: 'Sales', TABLE_NAME: 'Customers', COLUMN_NAME: 'Other', DATA_TYPE: 'int' },
      ],
    );
    expect(schema.map((t) => [t.key, t.schema, t.table])).toEqual([
      ['Customers', 'dbo', 'Customers'],
      ['Sales.Orders', 'Sales', 'Orders'],
      ['Áreas', 'DBO', 'Áreas'],
    ]);
    expect(schema[0].columns).toEqual([
      { name: 'Id', catalogName: 'Id', kind: 'integer', nativeType: 'bigint' },
      { name: 'Name', catalogName: 'Name', kind: 'string', nativeType: 'nvarchar' },
    ]);
    expect(schema[1].columns).toEqual([{ name: 'Total', catalogName: 'Total', kind: 'decimal', nativeType: 'money' }]);
  });

  it.each([
    ['tinyint', 'integer'], ['smallint', 'integer'], ['int', 'integer'], ['bigint', 'integer'],
    ['decimal', 'decimal'], ['numeric', 'decimal'], ['money', 'decimal'], ['smallmoney', 'decimal'],
    ['float', 'float'], ['real', 'float'], ['bit', 'boolean'],
    ['char', 'string'], ['varchar', 'string'], ['nchar', 'string'], ['nvarchar', 'string'], ['text', 'string'], ['ntext', 'string'],
    ['xml', 'other'], ['uniqueidentifier', 'uuid'], ['date', 'date'],
    ['datetime', 'datetime'], ['datetime2', 'datetime'], ['smalldatetime', 'datetime'], ['datetimeoffset', 'datetime'],
    ['time', 'time'], ['binary', 'binary'], ['varbinary', 'binary'], ['image', 'binary'],
    ['geography', 'other'], ['sql_variant', 'other'], ['DATETIME2', 'datetime'],
  ])('%s is %s', (dataType, kind) => {
    expect(sqlServerColumnKind(dataType)).toBe(kind);
  });
});
