import { filterProblems } from './filter-problems';

describe(filterProblems.name, () => {
  const mapped = { pg: { transactions: ['id', 'amount'] } };

  it('has nothing to say about absent or well-formed filters, also on a field the table does not return', () => {
    expect(filterProblems(mapped, undefined)).toEqual([]);
    expect(filterProblems(mapped, null)).toEqual([]);
    const filters = { pg: { transactions: { status: { eq: ['done'] }, amount: { between: [1, 9], in: [1, 2, 3] }, id: { like: ['1%'] } } } };
    expect(filterProblems(mapped, filters)).toEqual([]);
  });

  it('names the datasource, table, field and operator of each problem, in sorted order', () => {
    const filters = {
      pg: {
        transactions: { amount: { between: [5], greater: [1] }, id: { gt: 3, lt: [] } },
        invoices: { total: { eq: [1] } },
      },
      other: { t: { f: { eq: [1] } } },
    };
    expect(filterProblems(mapped, filters)).toEqual([
      { configName: 'other', message: "filter on datasource 'other': the datasource is not in mappedFields" },
      { configName: 'pg', table: 'invoices', message: "filter on table 'pg.invoices': the table is not in mappedFields of datasource 'pg'" },
      {
        configName: 'pg', table: 'transactions', field: 'amount', operator: 'between',
        message: "filter on 'pg.transactions.amount': operator 'between' needs exactly 2 values, got 1",
      },
      {
        configName: 'pg', table: 'transactions', field: 'amount', operator: 'greater',
        message: "filter on 'pg.transactions.amount': unknown operator 'greater' (use one of eq, gt, gte, lt, lte, between, in, nin, ne, like)",
      },
      { configName: 'pg', table: 'transactions', field: 'id', operator: 'gt', message: "filter on 'pg.transactions.id': operator 'gt' needs a list of values" },
      { configName: 'pg', table: 'transactions', field: 'id', operator: 'lt', message: "filter on 'pg.transactions.id': operator 'lt' needs exactly 1 value, got 0" },
    ]);
  });

  it('refuses levels that are not objects', () => {
    expect(filterProblems(mapped, [])).toEqual([{ message: 'filters must be an object of datasources' }]);
    expect(filterProblems(mapped, { pg: 1 })).toEqual([{ configName: 'pg', message: "filter on datasource 'pg': must be an object of tables" }]);
    expect(filterProblems(mapped, { pg: { transactions: [] } }).map((p) => p.message)).toEqual(["filter on table 'pg.transactions': must be an object of fields"]);
    expect(filterProblems(mapped, { pg: { transactions: { id: 5 } } }).map((p) => p.field)).toEqual(['id']);
  });

  it('refuses an empty value list of a many-valued operator: dropping it would widen the extraction', () => {
    expect(filterProblems(mapped, { pg: { transactions: { id: { in: [] } } } }).map((p) => p.message)).toEqual([
      "filter on 'pg.transactions.id': operator 'in' needs at least one value, got none",
    ]);
  });

  it('takes a key such as __proto__ as a name like any other', () => {
    const filters = JSON.parse('{"pg":{"__proto__":{"id":{"eq":[1]}}}}') as unknown;
    expect(filterProblems(mapped, filters).map((p) => p.table)).toEqual(['__proto__']);
  });

  it('compares table keys through the host normaliser, and names them as sent', () => {
    const dropDefault = (_config: string, table: string) => table.replace(/^public\./i, '');
    const filters = { pg: { 'public.transactions': { id: { eq: [1] } }, 'PUBLIC.invoices': { id: { eq: [1] } } } };
    expect(filterProblems(mapped, filters, dropDefault).map((p) => p.table)).toEqual(['PUBLIC.invoices']);
  });
});
