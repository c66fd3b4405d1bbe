import { EngineError, type ColumnInfo, type FilterCondition } from '@fetcher/engine';
import { MYSQL_DIALECT, ORACLE_DIALECT, POSTGRES_DIALECT, SQLSERVER_DIALECT, type SqlDialect } from './dialect';
import { compileWhere } from './where';

const COLUMNS: ReadonlyMap<string, ColumnInfo> = new Map(
  (
    [
      ['id', 'integer'],
      ['name', 'string'],
      ['price', 'decimal'],
      ['ratio', 'float'],
      ['active', 'boolean'],
      ['uid', 'uuid'],
      ['born', 'date'],
      ['created_at', 'datetime'],
      ['payload', 'binary'],
      ['width', 'integer'],
      ['valid_until', 'date'],
      ['grid', 'string'],
    ] as const
  ).map(([name, kind]): [string, ColumnInfo] => [name, { name, kind, nativeType: kind }]),
);

const compile = (conditions: Record<string, FilterCondition>, dialect: SqlDialect = POSTGRES_DIALECT) =>
  compileWhere(dialect, conditions, COLUMNS, 'crm.users');

function thrown(action: () => unknown): EngineError {
  try {
    action();
  } catch (error) {
    if (error instanceof EngineError) return error;
    throw error;
  }
  throw new Error('expected an EngineError');
}

describe('compileWhere', () => {
  const plain = (p: string) => p;
  const oracleTimestamp = (p: string) => `TO_TIMESTAMP_TZ(${p}, 'YYYY-MM-DD"T"HH24:MI:SS.FF9TZH:TZM')`;
  describe.each([
    [POSTGRES_DIALECT, '"', ['$1', '$2', '$3'], plain],
    [MYSQL_DIALECT, '`', ['?', '?', '?'], plain],
    [SQLSERVER_DIALECT, '[', ['@p1', '@p2', '@p3'], plain],
    [ORACLE_DIALECT, '"', [':1', ':2', ':3'], oracleTimestamp],
  ] as const)('in the %s dialect', (dialect, open, [p1, p2, p3], timestamp) => {
    const close = open === '[' ? ']' : open;
    const id = `${open}id${close}`;
    const name = `${open}name${close}`;
    const created = `${open}created_at${close}`;

    it('eq with one value binds it', () => {
      expect(compile({ id: { eq: [7] } }, dialect)).toEqual({ sql: `${id} = ${p1}`, params: [{ kind: 'integer', value: 7n }] });
    });

    it('eq with null is IS NULL and binds nothing', () => {
      expect(compile({ id: { eq: [null] } }, dialect)).toEqual({ sql: `${id} IS NULL`, params: [] });
    });

    it('eq with several values is IN', () => {
      expect(compile({ id: { eq: [1, '2', 3] } }, dialect)).toEqual({
        sql: `${id} IN (${p1}, ${p2}, ${p3})`,
        params: [1n, 2n, 3n].map((value) => ({ kind: 'integer', value })),
      });
    });

    it.each([
      ['gt', '>'],
      ['gte', '>='],
      ['lt', '<'],
      ['lte', '<='],
    ] as const)('%s is %s', (op, sqlOp) => {
      expect(compile({ id: { [op]: [10] } }, dialect)).toEqual({ sql: `${id} ${sqlOp} ${p1}`, params: [{ kind: 'integer', value: 10n }] });
    });

    it('between is an inclusive range', () => {
      expect(compile({ id: { between: [1, 9] } }, dialect)).toEqual({
        sql: `${id} >= ${p1} AND ${id} <= ${p2}`,
        params: [
          { kind: 'integer', value: 1n },
          { kind: 'integer', value: 9n },
        ],
      });
    });

    it('between with a date-only upper value on a datetime column ends before the next day', () => {
      expect(compile({ created_at: { between: ['2024-01-01', '2024-01-31'] } }, dialect)).toEqual({
        sql: `${created} >= ${timestamp(p1)} AND ${created} < ${timestamp(p2)}`,
        params: [
          { kind: 'datetime', value: '2024-01-01T00:00:00Z' },
          { kind: 'datetime', value: '2024-02-01T00:00:00Z' },
        ],
      });
    });

    it('in and nin list their values', () => {
      expect(compile({ id: { in: [1, 2] } }, dialect).sql).toBe(`${id} IN (${p1}, ${p2})`);
      expect(compile({ id: { nin: [1, 2] } }, dialect).sql).toBe(`${id} NOT IN (${p1}, ${p2})`);
    });

    it('ne with one value, with null, and with several values', () => {
      expect(compile({ id: { ne: [1] } }, dialect).sql).toBe(`${id} <> ${p1}`);
      expect(compile({ id: { ne: [null] } }, dialect)).toEqual({ sql: `${id} IS NOT NULL`, params: [] });
      expect(compile({ id: { ne: [1, 2, 3] } }, dialect).sql).toBe(`${id} <> ${p1} AND ${id} <> ${p2} AND ${id} <> ${p3}`);
    });

    it('like binds the first string value', () => {
      expect(compile({ name: { like: ['Jo%', 'ignored'] } }, dialect)).toEqual({
        sql: `${name} LIKE ${p1}`,
        params: [{ kind: 'string', value: 'Jo%' }],
      });
    });

    it('ANDs several operators and fields, fields in UTF-8 order', () => {
      const where = compile({ name: { like: ['a%'] }, id: { gte: [1], lt: [5] } }, dialect);
      expect(where.sql).toBe(`${id} >= ${p1} AND ${id} < ${p2} AND ${name} LIKE ${p3}`);
      expect(where.params.map((p) => p.value)).toEqual([1n, 5n, 'a%']);
    });
  });

  it('binds Oracle dates and date-times through explicit formats, other kinds bare', () => {
    const where = compileWhere(
      ORACLE_DIALECT,
      { BORN: { eq: ['2024-01-01'] }, AT: { gt: ['2024-01-01T10:00:00Z'] }, N: { lt: [5] } },
      new Map<string, ColumnInfo>([
        ['BORN', { name: 'BORN', kind: 'date', nativeType: 'DATE' }],
        ['AT', { name: 'AT', kind: 'datetime', nativeType: 'TIMESTAMP(6)' }],
        ['N', { name: 'N', kind: 'integer', nativeType: 'NUMBER(10,0)' }],
      ]),
      'hr.T',
    );
    expect(where.sql).toBe(
      `"AT" > ${oracleTimestamp(':1')} AND "BORN" = TO_DATE(:2, 'YYYY-MM-DD') AND "N" < :3`,
    );
  });

  it('starts numbering at firstPosition', () => {
    const where = compileWhere(POSTGRES_DIALECT, { id: { in: [1, 2] } }, COLUMNS, 'crm.users', 4);
    expect(where.sql).toBe('"id" IN ($4, $5)');
  });

  it('quotes the column name the snapshot gives (Oracle catalog case), not the requested spelling', () => {
    const columns = new Map<string, ColumnInfo>([['LASTNAME', { name: 'LastName', kind: 'string', nativeType: 'VARCHAR2' }]]);
    expect(compileWhere(ORACLE_DIALECT, { LASTNAME: { eq: ['x'] } }, columns, 'hr.EMP').sql).toBe('"LastName" = :1');
  });

  it('escapes hostile field names through the dialect', () => {
    const where = compileWhere(SQLSERVER_DIALECT, { 'a]; DROP TABLE t; --': { eq: ['x'] } }, new Map(), 'c.t');
    expect(where.sql).toBe('[a]]; DROP TABLE t; --] = @p1');
  });

  it('gives an empty clause for no conditions, empty conditions and empty lists', () => {
    expect(compile({})).toEqual({ sql: '', params: [] });
    expect(compile({ id: {} })).toEqual({ sql: '', params: [] });
    expect(compile({ id: { eq: [], in: [], nin: [], ne: [], like: [] } })).toEqual({ sql: '', params: [] });
  });

  it('ignores between with a count other than two (quirk kept)', () => {
    expect(compile({ id: { between: [1] } })).toEqual({ sql: '', params: [] });
    expect(compile({ id: { between: [1, 2, 3] } })).toEqual({ sql: '', params: [] });
  });

  it('ignores like whose first value is not a string', () => {
    expect(compile({ name: { like: [5, 'x%'] } })).toEqual({ sql: '', params: [] });
  });

  it('ignores operators it does not know', () => {
    expect(compile({ id: { regex: ['x'] } as FilterCondition })).toEqual({ sql: '', params: [] });
  });

  it.each(['gt', 'gte', 'lt', 'lte'] as const)('%s with two values (or none) is a validation error naming the field', (op) => {
    for (const values of [[1, 2], []]) {
      const error = thrown(() => compile({ id: { [op]: values } }));
      expect(error.category).toBe('validation');
      expect(error.message).toBe('filter operator requires exactly one value: crm.users.id');
    }
  });

  it('refuses like on a non-text column', () => {
    const error = thrown(() => compile({ id: { like: ['1%'] } }));
    expect(error.category).toBe('validation');
    expect(error.message).toBe('like requires a text column: crm.users.id');
  });

  it.each([
    ['eq with several values', { eq: [1, null] }],
    ['in', { in: [null] }],
    ['nin', { nin: [1, null] }],
    ['ne with several values', { ne: [null, 1] }],
    ['gt', { gt: [null] }],
    ['between', { between: [null, 3] }],
  ])('refuses null in %s', (_label, condition) => {
    const error = thrown(() => compile({ id: condition }));
    expect(error.category).toBe('validation');
    expect(error.message).toBe('filter value does not match the column type: crm.users.id');
  });

  it('refuses an operator whose values are not a list', () => {
    const error = thrown(() => compile({ id: { eq: 5 } as unknown as FilterCondition }));
    expect(error.message).toBe('filter value does not match the column type: crm.users.id');
  });

  it('keeps a date-only upper bound as it is on a date column', () => {
    expect(compile({ born: { between: ['2024-01-01', '2024-01-31'] } })).toEqual({
      sql: '"born" >= $1 AND "born" <= $2',
      params: [
        { kind: 'date', value: '2024-01-01' },
        { kind: 'date', value: '2024-01-31' },
      ],
    });
  });

  it('keeps a date-time upper bound inclusive on a datetime column', () => {
    const where = compile({ created_at: { between: ['2024-01-01', '2024-01-31T12:00:00+02:00'] } });
    expect(where.sql).toBe('"created_at" >= $1 AND "created_at" <= $2');
    expect(where.params[1]).toEqual({ kind: 'datetime', value: '2024-01-31T10:00:00Z' });
  });

  it('rolls the end-of-day bound over month, year and leap-day ends', () => {
    const upper = (day: string) => compile({ created_at: { between: ['2000-01-01', day] } }).params[1].value;
    expect(upper('2024-02-28')).toBe('2024-02-29T00:00:00Z');
    expect(upper('2024-02-29')).toBe('2024-03-01T00:00:00Z');
    expect(upper('2023-12-31')).toBe('2024-01-01T00:00:00Z');
  });

  it('checks fields named like ids by their kind, not their name', () => {
    expect(compile({ width: { eq: [42] } }).params).toEqual([{ kind: 'integer', value: 42n }]);
    expect(compile({ valid_until: { lte: ['2030-12-31'] } }).params).toEqual([{ kind: 'date', value: '2030-12-31' }]);
    expect(compile({ grid: { eq: ['not-a-uuid'] } }).params).toEqual([{ kind: 'string', value: 'not-a-uuid' }]);
  });

  it('treats a field missing from the columns as kind other', () => {
    const where = compileWhere(MYSQL_DIALECT, { extra: { eq: [12.5] } }, new Map(), 'c.t');
    expect(where).toEqual({ sql: '`extra` = ?', params: [{ kind: 'other', value: '12.5' }] });
  });

  it('names the failing field in a value mismatch', () => {
    const error = thrown(() => compile({ uid: { eq: ['nope'] } }));
    expect(error.category).toBe('validation');
    expect(error.message).toBe('filter value does not match the column type: crm.users.uid');
  });

  it('binds each kind in its documented form', () => {
    const where = compile({
      active: { eq: ['true'] },
      born: { gte: ['2024-05-06T23:30:00-01:00'] },
      payload: { eq: ['AAEC'] },
      price: { gt: [2500.5] },
      ratio: { lt: ['1e3'] },
      uid: { eq: ['3F2504E0-4F89-11D3-9A0C-0305E82C3301'] },
    });
    expect(where.params).toEqual([
      { kind: 'boolean', value: true },
      { kind: 'date', value: '2024-05-07' },
      { kind: 'binary', value: new Uint8Array([0, 1, 2]) },
      { kind: 'decimal', value: '2500.5' },
      { kind: 'float', value: 1000 },
      { kind: 'uuid', value: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' },
    ]);
  });
});
