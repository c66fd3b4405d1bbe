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
      columnsSql: 'SELECT table_name, column_name, data_type, data_precision, data_scale FROM user_tab_columns',
    });
  });

  it('reads the scoped owners, upper-cased, bound as :1..', () => {
    expect(oracleDiscovery(['hr', 'Sales', 'HR'])).toEqual({
      owners: ['HR', 'SALES'],
      tablesSql: 'SELECT owner, table_name FROM all_tables WHERE owner IN (:1, :2)',
      columnsSql: 'SELECT owner, table_name, column_name, data_type, data_precision, data_scale FROM all_tab_columns WHERE owner IN (:1, :2)',
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
