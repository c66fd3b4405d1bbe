import { buildOracleSchema, oracleColumnKind, oracleDiscovery, oracleNativeType } from './discovery.oracle';

const col = (TABLE_NAME: string, COLUMN_NAME: string, DATA_TYPE: string, DATA_PRECISION: number | null = null, DATA_SCALE: number | null = null, OWNER?: string) => ({
  ...(OWNER ? { OWNER } : {}),
  TABLE_NAME,
  COLUMN_NAME,
  DATA_TYPE,
  DATA_PRECISION,
  DATA_SCALE,
});

describe('Oracle discovery', () => {
  it("reads the current user's tables without a scope", () => {
    expect(oracleDiscovery(undefined)).toEqual({
      owners: [],
      tablesSql: 'SELECT table_name FROM user_tables',
      columnsSql: 'SELECT table_name, column_name, data_type, data_precision, data_scale, nullable FROM user_tab_columns',
      keysSql:
        'SELECT c.table_name, k.column_name FROM user_constraints c JOIN user_cons_columns k ON k.constraint_name = c.constraint_name ' +
        "AND k.table_name = c.table_name WHERE c.constraint_type = 'P' ORDER BY c.table_name, k.position",
      collationsSql: "SELECT table_name, column_name, collation FROM user_tab_columns WHERE data_type = 'VARCHAR2'",
    });
  });

  it('reads the scoped owners, upper-cased, bound as :1..', () => {
    expect(oracleDiscovery(['hr', 'Sales', 'HR'])).toEqual({
      owners: ['HR', 'SALES'],
      tablesSql: 'SELECT owner, table_name FROM all_tables WHERE owner IN (:1, :2)',
      columnsSql: 'SELECT owner, table_name, column_name, data_type, data_precision, data_scale, nullable FROM all_tab_columns WHERE owner IN (:1, :2)',
      keysSql:
        'SELECT c.owner, c.table_name, k.column_name FROM all_constraints c JOIN all_cons_columns k ON k.owner = c.owner AND ' +
        "k.constraint_name = c.constraint_name AND k.table_name = c.table_name WHERE c.constraint_type = 'P' AND c.owner IN (:1, :2) " +
        'ORDER BY c.owner, c.table_name, k.position',
      collationsSql: "SELECT owner, table_name, column_name, collation FROM all_tab_columns WHERE data_type = 'VARCHAR2' AND owner IN (:1, :2)",
    });
  });

  it('keys the current user bare and other owners OWNER.TABLE, upper-case, keeping the catalog spelling', () => {
    const schema = buildOracleSchema(
      'HR',
      [
        { OWNER: 'HR', TABLE_NAME: 'Employees' },
        { OWNER: 'SALES', TABLE_NAME: 'ORDERS' },
        { OWNER: 'HR', TABLE_NAME: 'BIN$x1' },
        { OWNER: 'SYS', TABLE_NAME: 'DUAL' },
        { OWNER: 'HR', TABLE_NAME: 'PLAN_TABLE' },
        { OWNER: 'HR', TABLE_NAME: 'LOGMNR_X' },
      ],
      [col('Employees', 'lastName', 'VARCHAR2', null, null, 'HR'), col('Employees', 'ID', 'NUMBER', 10, 0, 'HR'), col('ORDERS', 'TOTAL', 'NUMBER', 12, 2, 'SALES')],
    );
    expect(schema.map((t) => [t.key, t.schema, t.table])).toEqual([
      ['EMPLOYEES', 'HR', 'Employees'],
      ['SALES.ORDERS', 'SALES', 'ORDERS'],
    ]);
    expect(schema[0].columns).toEqual([
      { name: 'ID', catalogName: 'ID', kind: 'integer', nativeType: 'NUMBER(10,0)' },
      { name: 'LASTNAME', catalogName: 'lastName', kind: 'string', nativeType: 'VARCHAR2' },
    ]);
  });

  it('reports primary keys in key order (upper-cased) and nullability', () => {
    const schema = buildOracleSchema(
      'HR',
      [{ OWNER: 'HR', TABLE_NAME: 'Lines' }, { OWNER: 'SALES', TABLE_NAME: 'LINES' }, { OWNER: 'HR', TABLE_NAME: 'LOG' }],
      [
        { ...col('Lines', 'orderId', 'NUMBER', 10, 0, 'HR'), NULLABLE: 'N' },
        { ...col('Lines', 'LINE_NO', 'NUMBER', 5, 0, 'HR'), NULLABLE: 'N' },
        { ...col('Lines', 'AT', 'TIMESTAMP(6)', null, 6, 'HR'), NULLABLE: 'Y' },
        { ...col('LINES', 'ID', 'NUMBER', 19, 0, 'SALES'), NULLABLE: 'N' },
        col('LOG', 'TEXT', 'CLOB', null, null, 'HR'),
      ],
      [
        { OWNER: 'HR', TABLE_NAME: 'Lines', COLUMN_NAME: 'orderId' },
        { OWNER: 'HR', TABLE_NAME: 'Lines', COLUMN_NAME: 'LINE_NO' },
        { OWNER: 'SALES', TABLE_NAME: 'LINES', COLUMN_NAME: 'ID' },
      ],
    );
    expect(schema.map((t) => [t.key, t.primaryKey])).toEqual([
      ['LINES', ['ORDERID', 'LINE_NO']],
      ['LOG', undefined],
      ['SALES.LINES', ['ID']],
    ]);
    expect(schema[0].columns.map((c) => [c.name, c.nullable])).toEqual([
      ['AT', true],
      ['LINE_NO', false],
      ['ORDERID', false],
    ]);
    expect(schema[1].columns[0]).not.toHaveProperty('nullable');
  });

  it('reports code-point ordering only for a VARCHAR2 in AL32UTF8 with a binary or session-deferring collation', () => {
    const columns = [
      col('T', 'PLAIN', 'VARCHAR2'),
      col('T', 'DEFERS', 'VARCHAR2'),
      col('T', 'SORTS', 'VARCHAR2'),
      col('T', 'CI', 'VARCHAR2'),
      col('T', 'GERMAN', 'VARCHAR2'),
      col('T', 'UNREAD', 'VARCHAR2'),
      col('T', 'WIDE', 'NVARCHAR2'),
      col('T', 'PADDED', 'CHAR'),
      col('T', 'BIG', 'CLOB'),
      col('T', 'N', 'NUMBER', 10, 0),
    ];
    const collations = [
      { TABLE_NAME: 'T', COLUMN_NAME: 'PLAIN', COLLATION: 'BINARY' },
      { TABLE_NAME: 'T', COLUMN_NAME: 'DEFERS', COLLATION: 'USING_NLS_COMP' },
      { TABLE_NAME: 'T', COLUMN_NAME: 'SORTS', COLLATION: 'USING_NLS_SORT' },
      { TABLE_NAME: 'T', COLUMN_NAME: 'CI', COLLATION: 'BINARY_CI' },
      { TABLE_NAME: 'T', COLUMN_NAME: 'GERMAN', COLLATION: 'GERMAN' },
    ];
    const ordering = (charset: string, read = true) =>
      Object.fromEntries(
        buildOracleSchema('HR', [{ TABLE_NAME: 'T' }], columns, [], { charset, ...(read ? { collations } : {}) })[0].columns.map((c) => [c.name, c.ordering]),
      );
    expect(ordering('AL32UTF8')).toEqual({
      PLAIN: 'binary',
      DEFERS: 'binary',
      SORTS: 'binary',
      CI: 'collation',
      GERMAN: 'collation',
      UNREAD: undefined,
      WIDE: 'collation',
      PADDED: 'collation',
      BIG: 'collation',
      N: undefined,
    });
    // CESU-8 (UTF8) and single-byte sets: never provably code-point order.
    expect(Object.values(ordering('UTF8')).filter((o) => o === 'binary')).toEqual([]);
    expect(Object.values(ordering('WE8MSWIN1252')).filter((o) => o === 'binary')).toEqual([]);
    // Before 12.2 (no collation column): VARCHAR2 ordering unknown, never binary.
    expect(ordering('AL32UTF8', false)).toMatchObject({ PLAIN: undefined, DEFERS: undefined, WIDE: 'collation' });
  });

  it('takes rows without OWNER (user_tables) as the current user', () => {
    const schema = buildOracleSchema('HR', [{ TABLE_NAME: 'T' }], [col('T', 'C', 'CLOB')]);
    expect(schema).toEqual([{ key: 'T', schema: 'HR', table: 'T', columns: [{ name: 'C', catalogName: 'C', kind: 'string', nativeType: 'CLOB' }] }]);
  });

  it.each([
    [{ DATA_TYPE: 'NUMBER', DATA_PRECISION: 10, DATA_SCALE: 0 }, 'integer', 'NUMBER(10,0)'],
    [{ DATA_TYPE: 'NUMBER', DATA_PRECISION: null, DATA_SCALE: 0 }, 'integer', 'NUMBER(*,0)'],
    [{ DATA_TYPE: 'NUMBER', DATA_PRECISION: 12, DATA_SCALE: 2 }, 'decimal', 'NUMBER(12,2)'],
    [{ DATA_TYPE: 'NUMBER', DATA_PRECISION: null, DATA_SCALE: null }, 'decimal', 'NUMBER'],
    [{ DATA_TYPE: 'FLOAT', DATA_PRECISION: 126, DATA_SCALE: null }, 'decimal', 'FLOAT'],
    [{ DATA_TYPE: 'BINARY_DOUBLE', DATA_PRECISION: null, DATA_SCALE: null }, 'float', 'BINARY_DOUBLE'],
    [{ DATA_TYPE: 'NVARCHAR2', DATA_PRECISION: null, DATA_SCALE: null }, 'string', 'NVARCHAR2'],
    [{ DATA_TYPE: 'NCLOB', DATA_PRECISION: null, DATA_SCALE: null }, 'string', 'NCLOB'],
    [{ DATA_TYPE: 'DATE', DATA_PRECISION: null, DATA_SCALE: null }, 'datetime', 'DATE'],
    [{ DATA_TYPE: 'TIMESTAMP(6) WITH TIME ZONE', DATA_PRECISION: null, DATA_SCALE: 6 }, 'datetime', 'TIMESTAMP(6) WITH TIME ZONE'],
    [{ DATA_TYPE: 'RAW', DATA_PRECISION: null, DATA_SCALE: null }, 'binary', 'RAW'],
    [{ DATA_TYPE: 'BLOB', DATA_PRECISION: null, DATA_SCALE: null }, 'binary', 'BLOB'],
    [{ DATA_TYPE: 'JSON', DATA_PRECISION: null, DATA_SCALE: null }, 'json', 'JSON'],
    [{ DATA_TYPE: 'ROWID', DATA_PRECISION: null, DATA_SCALE: null }, 'other', 'ROWID'],
    [{ DATA_TYPE: 'INTERVAL DAY(2) TO SECOND(6)', DATA_PRECISION: 2, DATA_SCALE: 6 }, 'other', 'INTERVAL DAY(2) TO SECOND(6)'],
  ])('%j is %s (%s)', (row, kind, nativeType) => {
    expect(oracleColumnKind(row)).toBe(kind);
    expect(oracleNativeType(row)).toBe(nativeType);
  });
});
