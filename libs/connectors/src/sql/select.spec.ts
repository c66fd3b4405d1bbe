import { MYSQL_DIALECT, POSTGRES_DIALECT } from './dialect';
import { buildSelect } from './select';
import { NO_WHERE } from './where';

describe('buildSelect', () => {
  it('reads the whole table without ORDER BY or LIMIT', () => {
    expect(buildSelect(MYSQL_DIALECT, '`users`', ['`id`', '`Name`'], NO_WHERE)).toBe('SELECT `id`, `Name` FROM `users`');
  });

  it('appends the compiled clause after WHERE', () => {
    const where = { sql: '"id" > $1', params: [{ kind: 'integer' as const, value: 1n }] };
    expect(buildSelect(POSTGRES_DIALECT, '"s"."t"', ['"id"'], where)).toBe('SELECT "id" FROM "s"."t" WHERE "id" > $1');
  });
});
