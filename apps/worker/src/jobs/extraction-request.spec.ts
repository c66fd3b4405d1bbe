import { extractionRequest, schemaScope } from './extraction-request';

describe(extractionRequest.name, () => {
  it('normalises table keys per type, upper-cases Oracle fields and merges tables that collide', () => {
    const request = extractionRequest(
      {
        mappedFields: {
          pg: { 'public.users': ['id', 'name'], users: ['name', 'email'], 'sales.orders': ['*'] },
          ora: { 'hr.emp': ['id', 'name'] },
          unknown: { 'x.y': ['a'] },
        },
        filters: { pg: { 'public.users': { id: { eq: [1] } } }, ora: { 'hr.emp': { name: { like: ['A%'] } } }, odd: 'not an object' },
      },
      { source: 'reporter' },
      new Map([['pg', 'POSTGRESQL'], ['ora', 'oracle']]),
    );
    expect(request.mappedFields).toEqual({
      pg: { users: ['id', 'name', 'email'], 'sales.orders': ['*'] },
      ora: { 'HR.EMP': ['ID', 'NAME'] },
      unknown: { 'x.y': ['a'] },
    });
    expect(request.filters).toEqual({ pg: { users: { id: { eq: [1] } } }, ora: { 'HR.EMP': { NAME: { like: ['A%'] } } }, odd: 'not an object' });
    expect(request.metadata).toEqual({ source: 'reporter' });
  });
});

describe(`${extractionRequest.name} with names of Object.prototype members`, () => {
  it('keeps __proto__ and constructor as ordinary table and field keys', () => {
    const stored = JSON.parse(
      '{"mappedFields":{"pg":{"__proto__":["id"],"constructor":["a"]}},"filters":{"pg":{"__proto__":{"constructor":{"eq":[1]}}}}}',
    ) as Parameters<typeof extractionRequest>[0];
    const request = extractionRequest(stored, { source: 'r' }, new Map([['pg', 'POSTGRESQL']]));
    expect(Object.keys(request.mappedFields.pg)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(request.mappedFields.pg, '__proto__')?.value).toEqual(['id']);
    expect(Object.getOwnPropertyDescriptor(request.filters!.pg, '__proto__')?.value).toEqual({ constructor: { eq: [1] } });
  });
});

describe(schemaScope.name, () => {
  it.each([
    ['POSTGRESQL', ['users', 'sales.orders', 'db.audit.log'], ['public', 'sales', 'audit']],
    ['POSTGRESQL', ['sales.orders'], ['sales']],
    ['SQL_SERVER', ['orders'], ['dbo']],
    ['ORACLE', ['hr.emp'], ['HR']],
    ['MYSQL', ['shop.orders'], []],
    ['MONGODB', ['a.b'], []],
  ])('%s %j -> %j', (type, keys, scope) => expect(schemaScope(type, keys)).toEqual(scope));
});
