import type { QueryRequest } from '@fetcher/engine';
import { MYSQL_DIALECT } from './dialect';
import { EXACT_NAMES, planTableQuery, toSnapshot, type DiscoveredSchema } from './discovered-schema';

const SCHEMA: DiscoveredSchema = [
  {
    key: 'users',
    table: 'users',
    columns: [
      { name: 'id', catalogName: 'id', kind: 'integer', nativeType: 'bigint' },
      { name: 'name', catalogName: 'name', kind: 'string', nativeType: 'varchar(20)' },
    ],
  },
  { key: 'X', schema: 'A', table: 'x', columns: [{ name: 'C', catalogName: 'c', kind: 'string', nativeType: 'VARCHAR2' }] },
  { key: 'X', schema: 'A', table: 'X', columns: [{ name: 'D', catalogName: 'D', kind: 'date', nativeType: 'DATE' }] },
];
const request = (tables: QueryRequest['tables'], filters?: QueryRequest['filters']): QueryRequest => ({ configName: 'c', tables, ...(filters ? { filters } : {}) });

describe('discovered schema', () => {
  it('reports one snapshot entry per key, fields sorted, without catalog spellings', () => {
    expect(toSnapshot('c', SCHEMA)).toEqual({
      configName: 'c',
      tables: [
        {
          name: 'users',
          fields: ['id', 'name'],
          columns: [
            { name: 'id', kind: 'integer', nativeType: 'bigint' },
            { name: 'name', kind: 'string', nativeType: 'varchar(20)' },
          ],
        },
        {
          name: 'X',
          fields: ['C', 'D'],
          columns: [
            { name: 'C', kind: 'string', nativeType: 'VARCHAR2' },
            { name: 'D', kind: 'date', nativeType: 'DATE' },
          ],
        },
      ],
    });
  });

  it('expands * to every column and marks unfiltered reads', () => {
    const plan = planTableQuery(SCHEMA, MYSQL_DIALECT, EXACT_NAMES, request({ users: ['*'] }), 'users');
    expect(plan.columns.map((c) => c.name)).toEqual(['id', 'name']);
    expect(plan.filtered).toBe(false);
    expect(plan.where).toEqual({ sql: '', params: [] });
  });

  it('compiles the filters of the table with the column kinds', () => {
    const plan = planTableQuery(SCHEMA, MYSQL_DIALECT, EXACT_NAMES, request({ users: ['name'] }, { users: { id: { gt: ['5'] } } }), 'users');
    expect(plan.filtered).toBe(true);
    expect(plan.where).toEqual({ sql: '`id` > ?', params: [{ kind: 'integer', value: 5n }] });
  });

  it('compares exactly when asked to', () => {
    expect(() => planTableQuery(SCHEMA, MYSQL_DIALECT, EXACT_NAMES, request({ USERS: ['id'] }), 'USERS')).toThrow(expect.objectContaining({ category: 'validation', message: 'extraction request failed schema validation: not found in datasource schema: c.USERS' }));
  });

  it.each([
    ['an unknown field', request({ users: ['nope'] }), 'not found in datasource schema: c.users.nope'],
    ['no fields', request({ users: [] }), 'no columns selected: c.users'],
    ['a filter on an unknown field', request({ users: ['id'] }, { users: { nope: { eq: [1] } } }), 'not found in datasource schema: c.users.nope'],
  ])('refuses %s, naming it', (_label, req, what) => {
    expect(() => planTableQuery(SCHEMA, MYSQL_DIALECT, EXACT_NAMES, req, 'users')).toThrow(expect.objectContaining({ category: 'validation', message: `extraction request failed schema validation: ${what}` }));
  });
});
