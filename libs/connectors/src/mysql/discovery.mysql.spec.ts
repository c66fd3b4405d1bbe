import { MYSQL_CHECKS_SQL, MYSQL_COLUMNS_SQL, MYSQL_PRIMARY_KEYS_SQL, MYSQL_TABLES_SQL, buildMysqlSchema, jsonCheckedColumns, mysqlColumnKind } from './discovery.mysql';

describe('MySQL discovery', () => {
  it('reports nullability, code-point ordering only for binary NO PAD collations, and the primary key in key order', () => {
    const column = (name: string, collation: string | null, nullable = 'NO') => ({
      table_name: 't', column_name: name, data_type: 'varchar', column_type: 'varchar(9)', is_nullable: nullable, collation_name: collation,
    });
    const [table] = buildMysqlSchema(
      [{ table_name: 't' }],
      [column('a', 'utf8mb4_nopad_bin'), column('b', 'utf8mb4_bin', 'YES'), column('c', 'utf8mb4_general_ci'), column('d', 'utf8mb4_0900_bin'), column('e', null)],
      [],
      [{ table_name: 't', column_name: 'b' }, { table_name: 't', column_name: 'a' }],
    );
    expect(table.primaryKey).toEqual(['b', 'a']);
    expect(table.columns.map((c) => [c.name, c.nullable, c.ordering])).toEqual([
      ['a', false, 'binary'],
      ['b', true, 'collation'],
      ['c', false, 'collation'],
      ['d', false, 'binary'],
      ['e', false, undefined],
    ]);
    expect(MYSQL_PRIMARY_KEYS_SQL).toContain("INDEX_NAME = 'PRIMARY' ORDER BY TABLE_NAME, SEQ_IN_INDEX");
  });

  it('aliases every information_schema column (MySQL 8 returns them upper-case)', () => {
    expect(MYSQL_TABLES_SQL).toBe(
      "SELECT TABLE_NAME AS table_name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE'",
    );
    expect(MYSQL_COLUMNS_SQL).toBe(
      'SELECT TABLE_NAME AS table_name, COLUMN_NAME AS column_name, DATA_TYPE AS data_type, COLUMN_TYPE AS column_type, ' +
        'IS_NULLABLE AS is_nullable, COLLATION_NAME AS collation_name FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()',
    );
    expect(MYSQL_CHECKS_SQL).toContain('CHECK_CLAUSE AS check_clause FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE()');
  });

  it('finds the columns json_valid checks, backticks unescaped', () => {
    const found = jsonCheckedColumns([
      { table_name: 't', check_clause: 'json_valid(`doc`)' },
      { table_name: 't', check_clause: 'json_valid(`we``ird`) and json_valid( `two` )' },
      { table_name: 'u', check_clause: '`a` > 0' },
    ]);
    expect(found).toEqual(new Map([['t', new Set(['doc', 'we`ird', 'two'])]]));
  });

  it.each([
    ['tinyint', 'tinyint(1)', false, 'integer'],
    ['bigint', 'bigint(20) unsigned', false, 'integer'],
    ['year', 'year(4)', false, 'integer'],
    ['decimal', 'decimal(20,4)', false, 'decimal'],
    ['double', 'double', false, 'float'],
    ['bit', 'bit(1)', false, 'boolean'],
    ['bit', 'bit(12)', false, 'integer'],
    ['enum', "enum('a','b')", false, 'string'],
    ['longtext', 'longtext', false, 'string'],
    ['longtext', 'longtext', true, 'json'],
    ['json', 'json', false, 'json'],
    ['varbinary', 'varbinary(16)', false, 'binary'],
    ['blob', 'blob', false, 'binary'],
    ['date', 'date', false, 'date'],
    ['datetime', 'datetime(6)', false, 'datetime'],
    ['timestamp', 'timestamp(3)', false, 'datetime'],
    ['time', 'time', false, 'time'],
    ['geometry', 'geometry', false, 'other'],
  ] as const)('%s (%s, json check %s) is %s', (dataType, columnType, json, kind) => {
    expect(mysqlColumnKind(dataType, columnType, json)).toBe(kind);
  });

  it('builds bare, sorted tables with sorted columns, leaving system names out', () => {
    const schema = buildMysqlSchema(
      [{ table_name: 'orders' }, { table_name: 'Customers' }, { table_name: 'sys' }],
      [
        { table_name: 'orders', column_name: 'meta', data_type: 'longtext', column_type: 'longtext' },
        { table_name: 'orders', column_name: 'id', data_type: 'int', column_type: 'int(11)' },
        { table_name: 'Customers', column_name: 'Name', data_type: 'varchar', column_type: 'varchar(10)' },
        { table_name: 'a_view', column_name: 'x', data_type: 'int', column_type: 'int(11)' },
      ],
      [{ table_name: 'orders', check_clause: 'json_valid(`meta`)' }],
    );
    expect(schema).toEqual([
      { key: 'Customers', table: 'Customers', columns: [{ name: 'Name', catalogName: 'Name', kind: 'string', nativeType: 'varchar(10)' }] },
      {
        key: 'orders',
        table: 'orders',
        columns: [
          { name: 'id', catalogName: 'id', kind: 'integer', nativeType: 'int(11)' },
          { name: 'meta', catalogName: 'meta', kind: 'json', nativeType: 'longtext' },
        ],
      },
    ]);
  });
});
