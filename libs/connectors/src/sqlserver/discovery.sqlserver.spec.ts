import { buildSqlServerSchema, sqlServerColumnKind, sqlServerDiscovery } from './discovery.sqlserver';

describe('SQL Server discovery', () => {
  it('reads dbo when the scope is empty', () => {
    expect(sqlServerDiscovery(undefined)).toEqual({
      schemas: ['dbo'],
      tablesSql:
        "SELECT TABLE_SCHEMA, TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_TYPE = 'BASE TABLE' AND TABLE_SCHEMA IN (@p1)",
      columnsSql:
        'SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, DATA_TYPE, IS_NULLABLE, COLLATION_NAME FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA IN (@p1)',
      keysSql:
        'SELECT k.TABLE_SCHEMA, k.TABLE_NAME, k.COLUMN_NAME FROM INFORMATION_SCHEMA.TABLE_CONSTRAINTS c ' +
        'JOIN INFORMATION_SCHEMA.KEY_COLUMN_USAGE k ON k.CONSTRAINT_SCHEMA = c.CONSTRAINT_SCHEMA AND k.CONSTRAINT_NAME = c.CONSTRAINT_NAME ' +
        'AND k.TABLE_SCHEMA = c.TABLE_SCHEMA AND k.TABLE_NAME = c.TABLE_NAME ' +
        "WHERE c.CONSTRAINT_TYPE = 'PRIMARY KEY' AND c.TABLE_SCHEMA IN (@p1) ORDER BY k.TABLE_SCHEMA, k.TABLE_NAME, k.ORDINAL_POSITION",
    });
    expect(sqlServerDiscovery([]).schemas).toEqual(['dbo']);
  });

  it('binds each scoped schema once', () => {
    const discovery = sqlServerDiscovery(['dbo', 'Sales', 'dbo', 'hr']);
    expect(discovery.schemas).toEqual(['dbo', 'Sales', 'hr']);
    expect(discovery.tablesSql).toMatch(/TABLE_SCHEMA IN \(@p1, @p2, @p3\)$/);
    expect(discovery.columnsSql).toMatch(/TABLE_SCHEMA IN \(@p1, @p2, @p3\)$/);
    expect(discovery.keysSql).toContain('c.TABLE_SCHEMA IN (@p1, @p2, @p3) ORDER BY');
  });

  it('reports primary keys in key order, nullability, and never code-point ordering for text', () => {
    const schema = buildSqlServerSchema(
      [
        { TABLE_SCHEMA: 'dbo', TABLE_NAME: 'Lines' },
        { TABLE_SCHEMA: 'Sales', TABLE_NAME: 'Lines' },
        { TABLE_SCHEMA: 'dbo', TABLE_NAME: 'Log' },
      ],
      [
        { TABLE_SCHEMA: 'dbo', TABLE_NAME: 'Lines', COLUMN_NAME: 'OrderId', DATA_TYPE: 'int', IS_NULLABLE: 'NO', COLLATION_NAME: null },
        { TABLE_SCHEMA: 'dbo', TABLE_NAME: 'Lines', COLUMN_NAME: 'LineNo', DATA_TYPE: 'int', IS_NULLABLE: 'NO', COLLATION_NAME: null },
        { TABLE_SCHEMA: 'dbo', TABLE_NAME: 'Lines', COLUMN_NAME: 'At', DATA_TYPE: 'datetime2', IS_NULLABLE: 'YES', COLLATION_NAME: null },
        // BIN2 pads trailing spaces and compares nvarchar by UTF-16 code unit; a UTF-8 BIN2 varchar still pads.
        { TABLE_SCHEMA: 'dbo', TABLE_NAME: 'Lines', COLUMN_NAME: 'Code', DATA_TYPE: 'nvarchar', IS_NULLABLE: 'NO', COLLATION_NAME: 'Latin1_General_100_BIN2' },
        { TABLE_SCHEMA: 'dbo', TABLE_NAME: 'Lines', COLUMN_NAME: 'Ref', DATA_TYPE: 'varchar', IS_NULLABLE: 'NO', COLLATION_NAME: 'Latin1_General_100_BIN2_UTF8' },
        { TABLE_SCHEMA: 'Sales', TABLE_NAME: 'Lines', COLUMN_NAME: 'Id', DATA_TYPE: 'bigint', IS_NULLABLE: 'NO', COLLATION_NAME: null },
        { TABLE_SCHEMA: 'dbo', TABLE_NAME: 'Log', COLUMN_NAME: 'Text', DATA_TYPE: 'varchar', IS_NULLABLE: 'YES', COLLATION_NAME: 'SQL_Latin1_General_CP1_CI_AS' },
      ],
      [
        { TABLE_SCHEMA: 'dbo', TABLE_NAME: 'Lines', COLUMN_NAME: 'OrderId' },
        { TABLE_SCHEMA: 'dbo', TABLE_NAME: 'Lines', COLUMN_NAME: 'LineNo' },
        { TABLE_SCHEMA: 'Sales', TABLE_NAME: 'Lines', COLUMN_NAME: 'Id' },
      ],
    );
    expect(schema.map((t) => [t.key, t.primaryKey])).toEqual([
      ['Lines', ['OrderId', 'LineNo']],
      ['Log', undefined],
      ['Sales.Lines', ['Id']],
    ]);
    expect(schema[0].columns).toEqual([
      { name: 'At', catalogName: 'At', kind: 'datetime', nativeType: 'datetime2', nullable: true },
      { name: 'Code', catalogName: 'Code', kind: 'string', nativeType: 'nvarchar', nullable: false, ordering: 'collation' },
      { name: 'LineNo', catalogName: 'LineNo', kind: 'integer', nativeType: 'int', nullable: false },
      { name: 'OrderId', catalogName: 'OrderId', kind: 'integer', nativeType: 'int', nullable: false },
      { name: 'Ref', catalogName: 'Ref', kind: 'string', nativeType: 'varchar', nullable: false, ordering: 'collation' },
    ]);
    expect(schema[1].columns).toEqual([{ name: 'Text', catalogName: 'Text', kind: 'string', nativeType: 'varchar', nullable: true, ordering: 'collation' }]);
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
