import { createTenantContext, type SchemaValidationReport, type ValidationFailure } from '@fetcher/engine';
import type { ResolvedConnection } from '../../ports/connection-resolver.port';
import { EngineSchemaCheck } from './schema-check.engine';

const tenant = createTenantContext('default', 'req-1');
const connection = (type: string): ResolvedConnection =>
  ({ configName: 'pg-main', internal: false, productName: 'reporter', descriptor: { type, host: 'db', port: 5432, databaseName: 'app', userName: 'u' } }) as unknown as ResolvedConnection;

/** The engine's validateSchema as a recording fake: answers the failures it is given. */
function fakeEngine(failures: ValidationFailure[]) {
  const requests: unknown[] = [];
  return {
    requests,
    engine: {
      validateSchema: async (_tenant: unknown, request: unknown): Promise<SchemaValidationReport> => {
        await Promise.resolve();
        requests.push(request);
        return { valid: failures.length === 0, failures };
      },
      discoverSchema: () => Promise.reject(new Error('not used')),
    },
  };
}

describe('EngineSchemaCheck', () => {
  it('sends the filter fields of extracted tables under their table keys, and not those of tables it does not extract', async () => {
    const { engine, requests } = fakeEngine([]);
    await new EngineSchemaCheck(engine).check(
      tenant,
      connection('POSTGRESQL'),
      new Map([['public.orders', ['id']]]),
      undefined,
      undefined,
      new Map([
        ['orders', ['total', 'id']],
        ['invoices', ['x']],
      ]),
    );
    expect(requests).toEqual([{ datasources: [{ configName: 'pg-main', tables: [{ name: 'orders', fields: ['id'], filterFields: ['total', 'id'] }] }] }]);
  });

  it('reports a missing filter field as FIELD_NOT_FOUND in filters, naming the table as the filter spelled it', async () => {
    const { engine } = fakeEngine([
      { type: 'invalid_filter', configName: 'pg-main', table: 'orders', field: 'tint', message: 'filter references a field not found in table schema' },
    ]);
    const problems = await new EngineSchemaCheck(engine).check(
      tenant,
      connection('POSTGRESQL'),
      new Map([['orders', ['id']]]),
      undefined,
      undefined,
      new Map([['public.orders', ['tint']]]),
    );
    expect(problems).toEqual([{ type: 'FIELD_NOT_FOUND', dataSourceId: 'pg-main', table: 'public.orders', field: 'tint', in: 'filters' }]);
  });

  it('reports a field both selected and filtered on once, as the selected field', async () => {
    const { engine } = fakeEngine([
      { type: 'field_not_found', configName: 'pg-main', table: 'orders', field: 'tint', message: 'field not found in table schema' },
      { type: 'invalid_filter', configName: 'pg-main', table: 'orders', field: 'tint', message: 'filter references a field not found in table schema' },
    ]);
    const problems = await new EngineSchemaCheck(engine).check(tenant, connection('POSTGRESQL'), new Map([['orders', ['tint']]]), undefined, undefined, new Map([['orders', ['tint']]]));
    expect(problems).toEqual([{ type: 'FIELD_NOT_FOUND', dataSourceId: 'pg-main', table: 'orders', field: 'tint' }]);
  });

  it('upper-cases Oracle filter fields for the lookup and names them as sent', async () => {
    const { engine, requests } = fakeEngine([
      { type: 'invalid_filter', configName: 'pg-main', table: 'ORDERS', field: 'TINT', message: 'filter references a field not found in table schema' },
    ]);
    const problems = await new EngineSchemaCheck(engine).check(tenant, connection('ORACLE'), new Map([['orders', ['id']]]), undefined, undefined, new Map([['orders', ['tint']]]));
    expect(requests).toEqual([{ datasources: [{ configName: 'pg-main', tables: [{ name: 'ORDERS', fields: ['ID'], filterFields: ['TINT'] }] }] }]);
    expect(problems).toEqual([{ type: 'FIELD_NOT_FOUND', dataSourceId: 'pg-main', table: 'orders', field: 'tint', in: 'filters' }]);
  });
});
