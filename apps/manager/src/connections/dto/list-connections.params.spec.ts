import { readListParams } from './list-connections.params';

describe(readListParams.name, () => {
  it('defaults to page 1, limit 10, newest first, no filter', () => {
    expect(readListParams({}, 100)).toEqual({ page: 1, limit: 10, sortOrder: 'desc', filter: {} });
  });

  it('reads filters: type upper-cased, metadata keys, dates as a UTC range covering the end day', () => {
    const sut = readListParams({ type: 'mysql', host: 'h', databaseName: 'd', 'metadata.tier': 'gold', startDate: '2026-01-31', endDate: '2026-02-01', sortOrder: 'ASC' }, 100);
    expect(sut).toEqual({
      page: 1,
      limit: 10,
      sortOrder: 'asc',
      filter: {
        type: 'MYSQL',
        host: 'h',
        databaseName: 'd',
        metadata: { tier: 'gold' },
        createdFrom: new Date('2026-01-31T00:00:00Z'),
        createdBefore: new Date('2026-02-02T00:00:00Z'),
      },
    });
  });

  it('takes the first of repeated parameters and honours the configured maximum', () => {
    expect(readListParams({ page: ['2', '3'], limit: '7' }, 7)).toMatchObject({ page: 2, limit: 7 });
    expect(() => readListParams({ limit: '8' }, 7)).toThrow('maximum allowed of 7 items');
  });

  it('checks in the documented order: page before limit before sort before dates', () => {
    expect(() => readListParams({ page: 'x', limit: 'x', sortOrder: 'x', startDate: 'x' }, 100)).toThrow("'page'");
    expect(() => readListParams({ limit: 'x', sortOrder: 'x', startDate: 'x' }, 100)).toThrow("'limit'");
    expect(() => readListParams({ sortOrder: 'x', startDate: 'x' }, 100)).toThrow('sort_order');
  });

  it('refuses leap-day impostors and accepts real leap days', () => {
    expect(() => readListParams({ startDate: '2025-02-29' }, 100)).toThrow('yyyy-mm-dd');
    expect(readListParams({ startDate: '2024-02-29' }, 100).filter.createdFrom).toEqual(new Date('2024-02-29T00:00:00Z'));
  });
});
