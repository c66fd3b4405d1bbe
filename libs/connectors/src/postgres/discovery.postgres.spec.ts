import { buildPostgresSchema, discoveryScope, postgresColumn, tableKey, type PostgresColumnRow, type PostgresTableRow } from './discovery.postgres';

const table = (table_schema: string, table_name: string): PostgresTableRow => ({ table_schema, table_name });
const column = (table_schema: string, table_name: string, column_name: string, udt_name: string, data_type = udt_name): PostgresColumnRow => ({
  table_schema,
  table_name,
  column_name,
  udt_name,
  data_type,
});

describe('PostgreSQL discovery', () => {
  it('reads public when the scope is empty, and keeps the scope distinct and sorted', () => {
    expect(discoveryScope(undefined)).toEqual(['public']);
    expect(discoveryScope([])).toEqual(['public']);
    expect(discoveryScope(['sales', 'PUBLIC', 'Sales', 'sales', ''])).toEqual(['Sales', 'public', 'sales']);
  });

  it('reports primary keys in key order, nullability, and text ordering by collation', () => {
    const schema = buildPostgresSchema(
      [table('public', 'users')],
      [
        { ...column('public', 'users', 'a', 'text'), is_nullable: 'NO', collation: 'C' },
        { ...column('public', 'users', 'b', 'text'), is_nullable: 'YES', collation: 'C.UTF-8' },
        { ...column('public', 'users', 'c', 'text'), is_nullable: 'YES', collation: 'en_US.UTF-8' },
        { ...column('public', 'users', 'd', 'varchar'), collation: 'und-x-icu' },
        { ...column('public', 'users', 'e', 'int8'), is_nullable: 'NO', collation: 'C.UTF-8' },
      ],
      [
        { table_schema: 'public', table_name: 'users', column_name: 'e' },
        { table_schema: 'public', table_name: 'users', column_name: 'a' },
        { table_schema: 'public', table_name: 'gone', column_name: 'x' },
      ],
    );
    expect(schema[0].primaryKey).toEqual(['e', 'a']);
    expect(schema[0].columns.map(({ name, nullable, ordering }) => [name, nullable, ordering])).toEqual([
      ['a', false, 'binary'],
      ['b', true, 'binary'],
      ['c', true, 'collation'],
      ['d', undefined, 'collation'],
      ['e', false, undefined],
    ]);
  });

  it('keys public tables bare and others schema.table', () => {
    expect(tableKey('public', 'users')).toBe('users');
    expect(tableKey('Sales', 'Orders')).toBe('Sales.Orders');
  });

  it('builds sorted tables with sorted, typed columns, leaving out views and system objects', () => {
    const schema = buildPostgresSchema(
      [table('public', 'users'), table('Sales', 'Orders'), table('public', 'pg_stats_copy'), table('information_schema', 'x'), table('sales', 'b')],
      [
        column('public', 'users', 'name', 'text'),
        column('public', 'users', 'Id', 'int8', 'bigint'),
        column('Sales', 'Orders', 'tags', '_text', 'ARRAY'),
        column('public', 'a_view', 'x', 'int4'),
        column('public', 'pg_stats_copy', 'x', 'int4'),
      ],
    );
    expect(schema.map((t) => t.key)).toEqual(['Sales.Orders', 'sales.b', 'users']);
    const users = schema.find((t) => t.key === 'users')!;
    expect(users).toMatchObject({ schema: 'public', table: 'users' });
    expect(users.columns.map((c) => [c.name, c.kind, c.nativeType])).toEqual([
      ['Id', 'integer', 'int8'],
      ['name', 'string', 'text'],
    ]);
    expect(postgresColumn(schema[0].columns[0])).toMatchObject({ udtName: '_text', dataType: 'ARRAY', kind: 'other' });
    expect(schema.find((t) => t.key === 'sales.b')!.columns).toEqual([]);
  });

  it('falls back to the native type for a column it did not discover', () => {
    expect(postgresColumn({ name: 'x', catalogName: 'x', kind: 'integer', nativeType: 'int4' })).toMatchObject({ udtName: 'int4', dataType: 'int4' });
  });
});
