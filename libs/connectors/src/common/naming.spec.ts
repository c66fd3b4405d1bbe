import { isSystemObject, normaliseTableKey, parseDatasourceType, splitTableKey } from './naming';

describe('parseDatasourceType', () => {
  it.each([
    ['postgresql', 'POSTGRESQL'],
    ['MySQL', 'MYSQL'],
    ['sql_server', 'SQL_SERVER'],
    ['Oracle', 'ORACLE'],
    ['MONGODB', 'MONGODB'],
  ])('reads %s case-insensitively', (input, expected) => {
    expect(parseDatasourceType(input)).toBe(expected);
  });

  it.each(['', 'postgres', 'SQLSERVER', ' MYSQL', 'MARIADB'])('refuses %j', (input) => {
    expect(parseDatasourceType(input)).toBeUndefined();
  });
});

describe('normaliseTableKey', () => {
  it.each([
    ['POSTGRESQL', 'users', 'users'],
    ['POSTGRESQL', 'public.users', 'users'],
    ['POSTGRESQL', 'PUBLIC.Users', 'Users'],
    ['POSTGRESQL', 'sales.Orders', 'sales.Orders'],
    ['POSTGRESQL', 'db.public.users', 'users'],
    ['POSTGRESQL', 'db.sales.users', 'sales.users'],
    ['POSTGRESQL', 'a.b.c.d', 'a.b.c.d'],
    ['SQL_SERVER', 'dbo.x', 'x'],
    ['SQL_SERVER', 'DBO.x', 'x'],
    ['SQL_SERVER', 'db.dbo.x', 'x'],
    ['SQL_SERVER', 'public.x', 'public.x'],
    ['MYSQL', 'public.users', 'public.users'],
    ['MYSQL', 'shop.dbo.users', 'dbo.users'],
    ['ORACLE', 'hr.employees', 'HR.EMPLOYEES'],
    ['ORACLE', 'x.hr.Employees', 'HR.EMPLOYEES'],
    ['ORACLE', 'a.b.c.d', 'A.B.C.D'],
    ['MONGODB', 'a.b.c', 'b.c'],
    ['MONGODB', 'public.users', 'public.users'],
  ] as const)('%s %s -> %s', (type, raw, expected) => {
    expect(normaliseTableKey(type, raw)).toBe(expected);
  });
});

describe('splitTableKey', () => {
  it('splits at the first dot', () => {
    expect(splitTableKey('sales.orders')).toEqual({ schema: 'sales', table: 'orders' });
    expect(splitTableKey('users')).toEqual({ table: 'users' });
    expect(splitTableKey('a.b.c')).toEqual({ schema: 'a', table: 'b.c' });
  });
});

describe('isSystemObject', () => {
  it.each([
    ['POSTGRESQL', 'pg_catalog', true],
    ['POSTGRESQL', 'pg_class', true],
    ['POSTGRESQL', 'information_schema', true],
    ['POSTGRESQL', 'information_schema.tables', true],
    ['POSTGRESQL', 'pg_toast.pg_toast_1', true],
    ['POSTGRESQL', 'sales.pg_stats', true],
    ['POSTGRESQL', 'PG_Upper', false],
    ['POSTGRESQL', 'users', false],
    ['POSTGRESQL', 'sales.orders', false],
    ['MYSQL', 'mysql', true],
    ['MYSQL', 'INFORMATION_SCHEMA', true],
    ['MYSQL', 'performance_schema', true],
    ['MYSQL', 'sys', true],
    ['MYSQL', 'system', false],
    ['MYSQL', 'mysql_users', false],
    ['SQL_SERVER', 'sys', true],
    ['SQL_SERVER', 'INFORMATION_SCHEMA.TABLES', true],
    ['SQL_SERVER', 'db_owner', true],
    ['SQL_SERVER', 'db_datareader.x', true],
    ['SQL_SERVER', 'sales.db_x', true],
    ['SQL_SERVER', 'sales.orders', false],
    ['SQL_SERVER', 'dbx', false],
    ['ORACLE', 'BIN$abc', true],
    ['ORACLE', 'LOGMNR_LOG', true],
    ['ORACLE', 'REDO_X', true],
    ['ORACLE', 'AQ$_QUEUE', true],
    ['ORACLE', 'SQLPLUS_PRODUCT_PROFILE', true],
    ['ORACLE', 'PLAN_TABLE', true],
    ['ORACLE', 'SYS', true],
    ['ORACLE', 'sys', true],
    ['ORACLE', 'MDSYS.X', true],
    ['ORACLE', 'APEX_040000', true],
    ['ORACLE', 'HR.EMPLOYEES', false],
    ['ORACLE', 'SYSTEMS', false],
    ['MONGODB', 'system.users', true],
    ['MONGODB', 'admin', true],
    ['MONGODB', 'local', true],
    ['MONGODB', 'config', true],
    ['MONGODB', 'users.system', false],
    ['MONGODB', 'Config', false],
  ] as const)('%s %s -> %s', (type, name, expected) => {
    expect(isSystemObject(type, name)).toBe(expected);
  });
});
