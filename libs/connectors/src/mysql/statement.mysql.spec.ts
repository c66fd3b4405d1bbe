import { MYSQL_DIALECT } from '../sql/dialect';
import { EXACT_NAMES, planTableQuery, type DiscoveredTable } from '../sql/discovered-schema';
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
