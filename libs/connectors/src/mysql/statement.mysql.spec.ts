import { MYSQL_DIALECT } from '../sql/dialect';
import { EXACT_NAMES, planTableQuery, type DiscoveredTable } from '../sql/discovered-schema';
import { mysqlKeyset } from './incremental-query.mysql';
import { mysqlDateTimeLiteral, mysqlParam, mysqlStatement } from './statement.mysql';

const TABLE: DiscoveredTable = {
  key: 'odd`name',
  table: 'odd`name',
  columns: [
    { name: 'Doc', catalogName: 'Doc', kind: 'json', nativeType: 'longtext' },
    { name: 'Price', catalogName: 'Price', kind: 'decimal', nativeType: 'decimal(10,2)' },
    { name: 'se`l', catalogName: 'se`l', kind: 'integer', nativeType: 'int(11)' },
    { name: 'At', catalogName: 'At', kind: 'datetime', nativeType: 'datetime(6)' },
  ],
};

describe('MySQL statements', () => {
  it('quotes with backticks, doubles embedded ones, and marks JSON columns', () => {
    const plan = planTableQuery([TABLE], MYSQL_DIALECT, EXACT_NAMES, { configName: 'c', tables: { 'odd`name': ['Doc', 'se`l'] } }, 'odd`name');
    const statement = mysqlStatement(plan);
    expect(statement.sql).toBe('SELECT `Doc`, `se``l` FROM `odd``name`');
    expect(statement.values).toEqual([]);
    expect([...statement.jsonColumns]).toEqual(['Doc']);
  });

  it('adds the incremental keyset after the filters: (c > ? OR (c = ? AND k > ?)), ORDER BY c, k, LIMIT', () => {
    const incremental = { cursorField: 'At', cursorKind: 'datetime' as const, tieBreaker: 'se`l', tieBreakerKind: 'integer' as const, limit: 50 };
    const request = (after?: { value: string | null; key: bigint }) => ({
      configName: 'c',
      tables: { 'odd`name': ['Price'] },
      filters: { 'odd`name': { Price: { gt: ['1'] } } },
      incremental: { 'odd`name': { ...incremental, ...(after ? { after } : {}) } },
    });
    const plan = (after?: { value: string | null; key: bigint }) => planTableQuery([TABLE], MYSQL_DIALECT, EXACT_NAMES, request(after), 'odd`name');
    const statement = (after?: { value: string | null; key: bigint }) => mysqlStatement(plan(after), mysqlKeyset(plan(after).incremental!, 'c.odd`name'));
    expect(statement().sql).toBe('SELECT `Price` FROM `odd``name` WHERE `Price` > ? ORDER BY `At`, `se``l` LIMIT 50');
    const bounded = statement({ value: '2024-01-01T10:00:00.5Z', key: 7n });
    expect(bounded.sql).toBe('SELECT `Price` FROM `odd``name` WHERE `Price` > ? AND (`At` > ? OR (`At` = ? AND `se``l` > ?)) ORDER BY `At`, `se``l` LIMIT 50');
    expect(bounded.values.slice(1)).toEqual(['2024-01-01 10:00:00.5', '2024-01-01 10:00:00.5', 7n]);
    const inNulls = statement({ value: null, key: 7n });
    expect(inNulls.sql).toContain('WHERE `Price` > ? AND ((`At` IS NULL AND `se``l` > ?) OR `At` IS NOT NULL) ORDER BY');
    expect(inNulls.values.slice(1)).toEqual([7n]);
    const unfiltered = planTableQuery([TABLE], MYSQL_DIALECT, EXACT_NAMES, { ...request({ value: '2024-01-01T10:00:00Z', key: 1n }), filters: {} }, 'odd`name');
    expect(mysqlStatement(unfiltered, mysqlKeyset(unfiltered.incremental!, 'p')).sql).toBe(
      'SELECT `Price` FROM `odd``name` WHERE (`At` > ? OR (`At` = ? AND `se``l` > ?)) ORDER BY `At`, `se``l` LIMIT 50',
    );
  });

  it('binds filters through ? in field order', () => {
    const plan = planTableQuery(
      [TABLE],
      MYSQL_DIALECT,
      EXACT_NAMES,
      { configName: 'c', tables: { 'odd`name': ['Price'] }, filters: { 'odd`name': { Price: { gt: ['10.50'] }, At: { lt: ['2024-01-01T10:00:00.1234567Z'] } } } },
      'odd`name',
    );
    const statement = mysqlStatement(plan);
    expect(statement.sql).toBe('SELECT `Price` FROM `odd``name` WHERE `At` < ? AND `Price` > ?');
    expect(statement.values[0]).toBe('2024-01-01 10:00:00.123456');
    expect((statement.values[1] as { toSqlString(): string }).toSqlString()).toBe('10.50');
  });

  it('gives each kind the form mysql2 escapes into the right literal', () => {
    expect(mysqlParam({ kind: 'integer', value: 9007199254740993n })).toBe(9007199254740993n);
    expect(mysqlParam({ kind: 'binary', value: new Uint8Array([0xde, 0xad]) })).toEqual(Buffer.from([0xde, 0xad]));
    expect(mysqlParam({ kind: 'date', value: '2024-01-01' })).toBe('2024-01-01');
    expect(mysqlParam({ kind: 'boolean', value: true })).toBe(true);
    expect(mysqlParam({ kind: 'string', value: "x' OR 1=1" })).toBe("x' OR 1=1");
    expect(() => mysqlParam({ kind: 'decimal', value: '1; DROP TABLE t' })).toThrow('decimal filter value is not numeric');
    expect(mysqlDateTimeLiteral('2024-01-01T00:00:00Z')).toBe('2024-01-01 00:00:00');
  });
});
