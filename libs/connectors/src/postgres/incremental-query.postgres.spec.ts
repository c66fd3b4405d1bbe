import type { IncrementalQuery } from '@fetcher/engine';
import type { DiscoveredColumn, IncrementalTablePlan } from '../sql/discovered-schema';
import { keysetClause, literalKeyset } from './incremental-query.postgres';

const col = (name: string, kind: DiscoveredColumn['kind']): DiscoveredColumn => ({ name, catalogName: name, kind, nativeType: kind });
const plan = (query: Partial<IncrementalQuery>): IncrementalTablePlan => ({
  query: { cursorField: 'Updated At', cursorKind: 'datetime', tieBreaker: 'id', tieBreakerKind: 'integer', ...query },
  cursor: col('Updated At', query.cursorKind ?? 'datetime'),
  tieBreaker: col('id', 'integer'),
});

describe(keysetClause.name, () => {
  it('orders by (cursor, tie-breaker) and has no bound without after', () => {
    expect(keysetClause(plan({}), 1, 'crm.t')).toEqual({ where: '', params: [], tail: ' ORDER BY "Updated At" NULLS LAST, "id"' });
  });

  it('binds a row comparison after the filter parameters, with the limit', () => {
    expect(keysetClause(plan({ after: { value: '2026-01-01T00:00:00.5Z', key: 12n }, limit: 500 }), 3, 'crm.t')).toEqual({
      where: '("Updated At", "id") > ($3, $4)',
      params: ['2026-01-01T00:00:00.5Z', '12'],
      tail: ' ORDER BY "Updated At" NULLS LAST, "id" LIMIT 500',
    });
  });

  it('compares text under COLLATE "C" and reads the rest of the NULLs first with nulls "first"', () => {
    const text = plan({ cursorField: 'name', cursorKind: 'string', nulls: 'first', after: { value: null, key: 7n } });
    expect(keysetClause({ ...text, cursor: col('name', 'string') }, 1, 'crm.t')).toEqual({
      where: '(("name" COLLATE "C" IS NULL AND "id" > $1) OR "name" COLLATE "C" IS NOT NULL)',
      params: ['7'],
      tail: ' ORDER BY "name" COLLATE "C" NULLS FIRST, "id"',
    });
  });

  it('binds only the window start of a lag window, after the filter parameters', () => {
    expect(keysetClause(plan({ after: { value: '2026-01-01T00:00:00.5Z', key: 12n }, from: '2026-01-01T00:00:00Z', limit: 5 }), 2, 'crm.t')).toEqual({
      where: '"Updated At" >= $2',
      params: ['2026-01-01T00:00:00Z'],
      tail: ' ORDER BY "Updated At" NULLS LAST, "id" LIMIT 5',
    });
  });
});

describe(literalKeyset.name, () => {
  it('writes engine-normalised bounds as quoted literals, cursor value before key', () => {
    expect(literalKeyset(plan({ after: { value: '2026-01-01T00:00:00.5Z', key: 9007199254740993n }, limit: 5 }), 'crm.t')).toEqual({
      where: `("Updated At", "id") > ('2026-01-01T00:00:00.5Z', '9007199254740993')`,
      tail: ' ORDER BY "Updated At" NULLS LAST, "id" LIMIT 5',
    });
    expect(literalKeyset(plan({ cursorKind: 'float', after: { value: -1.5e-7, key: 1n }, from: -2.5 }), 'crm.t')?.where).toBe(`"Updated At" >= '-2.5'`);
    expect(literalKeyset(plan({}), 'crm.t')).toEqual({ where: '', tail: ' ORDER BY "Updated At" NULLS LAST, "id"' });
  });

  it('qualifies the columns by the table, so ORDER BY never resolves to a selected text conversion', () => {
    expect(literalKeyset(plan({ from: '2026-01-01T00:00:00Z' }), 'crm.t', '"s"."t"')).toEqual({
      where: `"s"."t"."Updated At" >= '2026-01-01T00:00:00Z'`,
      tail: ' ORDER BY "s"."t"."Updated At" NULLS LAST, "s"."t"."id"',
    });
  });

  it('answers undefined when a bound would need quoting or escaping', () => {
    const text = (value: string) => literalKeyset({ ...plan({ cursorField: 'name', cursorKind: 'string', after: { value, key: 1n } }), cursor: col('name', 'string') }, 'crm.t');
    expect(text('plain text-1.5')).toBeDefined();
    for (const value of ["o'clock", 'back\\slash', 'semi;colon', 'é', '']) expect(text(value)).toBeUndefined();
  });
});
