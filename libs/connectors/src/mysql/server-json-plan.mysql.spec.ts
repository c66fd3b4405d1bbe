import type { DiscoveredColumn, TableQueryPlan } from '../sql/discovered-schema';
import { serverJsonRefusal, serverJsonStatement } from './server-json-plan.mysql';
import { lowerCaseHexEscapes } from './server-json-source.mysql';

const column = (name: string, kind: DiscoveredColumn['kind'], nativeType: string): DiscoveredColumn => ({ name, catalogName: name, kind, nativeType });

const plan = (columns: DiscoveredColumn[]): TableQueryPlan => ({
  table: { key: 't', table: 't', columns },
  columns,
  where: { sql: '', params: [] },
  filtered: false,
});

describe('the server-built JSON plan', () => {
  it('refuses a table with a column of unknown kind, naming it, so that it takes the row path', () => {
    const columns = [column('id', 'integer', 'int(11)'), column('tag', 'other', 'uuid')];
    expect(serverJsonRefusal(columns)).toBe('column tag (uuid) has no server rendering');
    expect(serverJsonStatement(plan(columns))).toBeUndefined();
  });

  it('accepts every kind it renders', () => {
    const kinds: [DiscoveredColumn['kind'], string][] = [
      ['integer', 'bigint(20)'], ['boolean', 'bit(1)'], ['decimal', 'decimal(10,2)'], ['string', 'varchar(10)'], ['time', 'time'],
      ['binary', 'blob'], ['date', 'date'], ['datetime', 'datetime(6)'], ['float', 'double'], ['json', 'longtext'],
    ];
    expect(serverJsonRefusal(kinds.map(([kind, native], i) => column(`c${i}`, kind, native)))).toBeUndefined();
  });

  it('builds segments around the client-rendered columns, keys in canonical order, each once', () => {
    const statement = serverJsonStatement(plan([column('b', 'float', 'double'), column('a', 'integer', 'int(11)'), column('b', 'float', 'double'), column('j', 'json', 'longtext')]))!;
    expect(statement.clientValues).toBe(2);
    expect([...statement.jsonColumns]).toEqual(['v1']);
    const hex = (text: string) => `X'${Buffer.from(text).toString('hex')}'`;
    expect(statement.sql).toBe(
      `SELECT CONCAT(${hex('{"a":')}, IFNULL(\`a\` + 0, 'null'), ${hex(',"b":')}) AS s0, \`b\` AS v0, ` +
        `CONCAT(${hex(',"j":')}) AS s1, \`j\` AS v1, CONCAT(${hex('}')}) AS s2 FROM \`t\``,
    );
  });

  it('trims the fraction only of date-times that have one', () => {
    const withFraction = serverJsonStatement(plan([column('t', 'datetime', 'datetime(3)')]))!.sql;
    const without = serverJsonStatement(plan([column('t', 'datetime', 'timestamp')]))!.sql;
    expect(withFraction).toContain("TRIM(TRAILING '0'");
    expect(without).not.toContain('TRIM(');
  });
});

describe('lowerCaseHexEscapes', () => {
  it.each([
    ['"\\u001F"', '"\\u001f"'],
    ['"\\\\u001F"', '"\\\\u001F"'], // an escaped backslash followed by the text u001F
    ['"\\\\\\u000B"', '"\\\\\\u000b"'],
    ['"a","\\u001E\\u0001"', '"a","\\u001e\\u0001"'],
    ['"plain"', '"plain"'],
  ])('%s -> %s', (input, expected) => {
    expect(lowerCaseHexEscapes(Buffer.from(input)).toString()).toBe(expected);
  });
});
