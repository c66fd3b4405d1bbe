import { arityOf, filterValues, jobRequestOf, operatorsFor, valueOf } from '../src/extraction/request-builder';

describe('the New extraction request builder', () => {
  it('offers the operators that fit a column kind', () => {
    expect(operatorsFor('decimal')).toEqual(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'between', 'in', 'nin']);
    expect(operatorsFor('string')).toContain('like');
    expect(operatorsFor('boolean')).toEqual(['eq', 'ne']);
    expect(operatorsFor('uuid')).not.toContain('gt');
    expect(operatorsFor('json')).toEqual([]);
    // A connector that reports no type: everything, and the Worker refuses what does not fit.
    expect(operatorsFor('')).toHaveLength(10);
  });

  it('sends numbers as numbers, booleans as booleans and local date-times as UTC', () => {
    expect(valueOf(' 12.5 ', 'decimal')).toBe(12.5);
    expect(valueOf('9007199254740993', 'integer')).toBe('9007199254740993');
    expect(valueOf('abc', 'integer')).toBe('abc');
    expect(valueOf('true', 'boolean')).toBe(true);
    expect(valueOf('2026-01-31T10:15', 'datetime')).toBe('2026-01-31T10:15:00Z');
    expect(valueOf('2026-01-31', 'date')).toBe('2026-01-31');
  });

  it('takes one, two or a comma-separated list of values by operator', () => {
    expect(arityOf('between')).toBe(2);
    expect(filterValues({ table: 't', field: 'f', kind: 'integer', operator: 'in', values: ['1, 2,,3'] })).toEqual([1, 2, 3]);
    expect(filterValues({ table: 't', field: 'f', kind: 'integer', operator: 'between', values: ['1', '5', '9'] })).toEqual([1, 5]);
  });

  it('builds the exact job body: "*" for a table without chosen fields, filters only when complete', () => {
    const body = jobRequestOf({
      datasource: 'pg-main',
      source: ' reporter ',
      tables: { orders: ['id', 'total'], customers: [] },
      filters: [
        { table: 'orders', field: 'total', kind: 'decimal', operator: 'gte', values: ['100'] },
        { table: 'orders', field: '', kind: '', operator: 'eq', values: [''] },
      ],
    });
    expect(body).toEqual({
      dataRequest: {
        mappedFields: { 'pg-main': { orders: ['id', 'total'], customers: ['*'] } },
        filters: { 'pg-main': { orders: { total: { gte: [100] } } } },
      },
      metadata: { source: 'reporter' },
    });
    expect(jobRequestOf({ datasource: 'pg-main', source: 'r', tables: { orders: [] }, filters: [] })).toEqual({
      dataRequest: { mappedFields: { 'pg-main': { orders: ['*'] } } },
      metadata: { source: 'r' },
    });
  });
});
