import { EngineError, ErrorText, ValidationText, type SchemaSnapshot } from '../index';
import { MemorySchemaCache } from '../memory';
import { aWorldWith, OTHER_TENANT, TENANT } from '../testing/engine-fixture';
import { SchemaOperations } from './schema-operations';

const SNAPSHOT: SchemaSnapshot = {
  configName: 'whatever',
  tables: [
    { name: 'users', fields: ['id', 'name', 'natural_person.mother_name'] },
    { name: 'orders', fields: ['id', 'total'] },
  ],
};

describe(SchemaOperations.name, () => {
  describe('discoverSchema', () => {
    it('discovers through the connector, forces the config name, fills the cache and closes', async () => {
      const cache = new MemorySchemaCache();
      const world = await aWorldWith(['crm'], { schemaCache: cache }, { schema: SNAPSHOT });
      const snapshot = await world.engine.discoverSchema(TENANT, 'crm');
      expect(snapshot).toEqual({ ...SNAPSHOT, configName: 'crm' });
      expect(cache.peek(TENANT, 'crm')).toEqual(snapshot);
      expect(world.template.closeCount).toBe(1);
    });

    it('answers from the cache on a hit, without building a connector', async () => {
      const cache = new MemorySchemaCache();
      const world = await aWorldWith(['crm'], { schemaCache: cache }, { schema: SNAPSHOT });
      await cache.putSchema(TENANT, { configName: 'crm', tables: [{ name: 'cached', fields: ['x'] }] });
      expect((await world.engine.discoverSchema(TENANT, 'crm')).tables[0].name).toBe('cached');
      expect(world.factory.buildCount).toBe(0);
    });

    it('treats cache read and write errors as a miss and as nothing', async () => {
      const cache = new MemorySchemaCache();
      cache.getErr = new Error('redis down');
      cache.putErr = new Error('redis down');
      const world = await aWorldWith(['crm'], { schemaCache: cache }, { schema: SNAPSHOT });
      expect((await world.engine.discoverSchema(TENANT, 'crm')).tables).toHaveLength(2);
      expect([cache.getCount, cache.putCount]).toEqual([1, 1]);
    });

    it('discoverSchemaFresh never reads or writes the cache', async () => {
      const cache = new MemorySchemaCache();
      const world = await aWorldWith(['crm'], { schemaCache: cache }, { schema: SNAPSHOT });
      await world.engine.discoverSchemaFresh(TENANT, 'crm');
      expect([cache.getCount, cache.putCount]).toEqual([0, 0]);
      expect(world.template.discoverCalls).toBe(1);
    });

    it('passes a connect failure through with the fixed text, and maps anything else to unavailable', async () => {
      const world = await aWorldWith(['crm'], {}, { schema: SNAPSHOT });
      world.template.behavior.discoverErr = new EngineError('connect', 'could not reach postgres://u:pw@h');
      await expect(world.engine.discoverSchema(TENANT, 'crm')).rejects.toEqual(new EngineError('connect', ErrorText.connectFailed));
      world.template.behavior.discoverErr = new Error('permission denied for table pg_catalog');
      await expect(world.engine.discoverSchema(TENANT, 'crm')).rejects.toEqual(new EngineError('unavailable', ErrorText.discoverFailed));
      expect(world.factory.built.every((c) => c.closeCount === 1)).toBe(true);
    });

    it('refuses a connector answer that is not a snapshot', async () => {
      const world = await aWorldWith(['crm'], {}, { schema: { configName: 'crm', tables: [{ name: 'users', fields: 'id' }] } as never });
      await expect(world.engine.discoverSchema(TENANT, 'crm')).rejects.toEqual(new EngineError('unavailable', ErrorText.discoverFailed));
    });

    it("is scoped by tenant: another tenant's connection is not found", async () => {
      const world = await aWorldWith(['crm'], {}, { schema: SNAPSHOT });
      await expect(world.engine.discoverSchema(OTHER_TENANT, 'crm')).rejects.toEqual(new EngineError('not_found', ErrorText.connectionNotFound));
    });
  });

  describe('validateSchema', () => {
    const request = (tables: { name: string; fields: string[]; filterFields?: string[] }[], configName = 'crm') => ({
      datasources: [{ configName, tables }],
    });

    it('is valid when every table, field and filter field exists', async () => {
      const world = await aWorldWith(['crm'], {}, { schema: SNAPSHOT });
      const report = await world.engine.validateSchema(TENANT, request([{ name: 'users', fields: ['id', 'name'], filterFields: ['id'] }]));
      expect(report).toEqual({ valid: true, failures: [] });
    });

    it('matches the parent of a dotted column and "*", but not a partial name', async () => {
      const world = await aWorldWith(['crm'], {}, { schema: SNAPSHOT });
      const report = await world.engine.validateSchema(
        TENANT,
        request([{ name: 'users', fields: ['*', 'natural_person', 'natural', 'Name'], filterFields: ['natural_person', 'mother_name'] }]),
      );
      expect(report.failures).toEqual([
        { type: 'field_not_found', configName: 'crm', table: 'users', field: 'Name', message: ValidationText.fieldNotFound },
        { type: 'field_not_found', configName: 'crm', table: 'users', field: 'natural', message: ValidationText.fieldNotFound },
        { type: 'invalid_filter', configName: 'crm', table: 'users', field: 'mother_name', message: ValidationText.invalidFilter },
      ]);
    });

    it('accepts a dotted path below a document field (native type object), for fields and filters', async () => {
      const schema = {
        configName: 'crm',
        tables: [
          {
            name: 'people',
            fields: ['_id', 'address', 'name'],
            columns: [
              { name: '_id', kind: 'objectId' as const, nativeType: 'objectId' },
              { name: 'address', kind: 'other' as const, nativeType: 'object' },
              { name: 'name', kind: 'string' as const, nativeType: 'string' },
            ],
          },
        ],
      };
      const world = await aWorldWith(['crm'], {}, { schema });
      const report = await world.engine.validateSchema(
        TENANT,
        request([{ name: 'people', fields: ['address.city', 'address.geo.lat', 'name.first', 'address.'], filterFields: ['address.zip', 'name.x'] }]),
      );
      expect(report.failures).toEqual([
        { type: 'field_not_found', configName: 'crm', table: 'people', field: 'address.', message: ValidationText.fieldNotFound },
        { type: 'field_not_found', configName: 'crm', table: 'people', field: 'name.first', message: ValidationText.fieldNotFound },
        { type: 'invalid_filter', configName: 'crm', table: 'people', field: 'name.x', message: ValidationText.invalidFilter },
      ]);
      const plan = await world.engine.planExtraction(TENANT, {
        mappedFields: { crm: { people: ['address.city', '_id'] } },
        filters: { crm: { people: { 'address.zip': { eq: ['10115'] } } } },
      });
      expect(plan.steps[0].fields.people).toEqual(['_id', 'address.city']);
    });

    it('reports unknown datasources and tables as entries, sorted by config, table, type and field', async () => {
      const world = await aWorldWith(['crm'], {}, { schema: SNAPSHOT });
      const report = await world.engine.validateSchema(TENANT, {
        datasources: [
          { configName: 'zeta', tables: [{ name: 'a', fields: ['x'] }] },
          { configName: 'crm', tables: [{ name: 'users', fields: ['zz', 'aa'] }, { name: 'invoices', fields: ['id'] }] },
        ],
      });
      expect(report.valid).toBe(false);
      expect(report.failures.map((f) => [f.configName, f.table, f.type, f.field])).toEqual([
        ['crm', 'invoices', 'table_not_found', undefined],
        ['crm', 'users', 'field_not_found', 'aa'],
        ['crm', 'users', 'field_not_found', 'zz'],
        ['zeta', undefined, 'datasource_not_found', undefined],
      ]);
      expect(report.failures[3].message).toBe(ValidationText.datasourceNotFound);
    });

    it('returns only limit failures, touching no connector, when a count limit is breached', async () => {
      const world = await aWorldWith(['crm'], { limits: { maxDatasources: 1, maxTablesPerDatasource: 1, maxFieldsPerTable: 2 } }, { schema: SNAPSHOT });
      const report = await world.engine.validateSchema(TENANT, {
        datasources: [
          { configName: 'crm', tables: [{ name: 'users', fields: ['a', 'b', 'c'], filterFields: ['a', 'b', 'c'] }, { name: 'missing', fields: ['x'] }] },
          { configName: 'other', tables: [] },
        ],
      });
      expect(report.failures).toEqual([
        { type: 'limit_exceeded', message: ValidationText.datasourceLimit },
        { type: 'limit_exceeded', configName: 'crm', message: ValidationText.tableLimit },
        { type: 'limit_exceeded', configName: 'crm', table: 'users', message: ValidationText.fieldLimit },
        { type: 'limit_exceeded', configName: 'crm', table: 'users', message: ValidationText.filterLimit },
      ]);
      expect(world.factory.buildCount).toBe(0);
    });

    it('resolves schemas cache-first', async () => {
      const cache = new MemorySchemaCache();
      const world = await aWorldWith(['crm'], { schemaCache: cache }, { schema: SNAPSHOT });
      await world.engine.validateSchema(TENANT, request([{ name: 'users', fields: ['id'] }]));
      await world.engine.validateSchema(TENANT, request([{ name: 'users', fields: ['id'] }]));
      expect(world.factory.buildCount).toBe(1);
    });

    it('aborts with the connector error when discovery fails', async () => {
      const world = await aWorldWith(['crm'], {}, { schema: SNAPSHOT, discoverErr: new Error('boom') });
      await expect(world.engine.validateSchema(TENANT, request([{ name: 'users', fields: ['id'] }]))).rejects.toEqual(
        new EngineError('unavailable', ErrorText.discoverFailed),
      );
    });

    it('times out at limits.timeoutMs with a connector that waits on the signal', async () => {
      const world = await aWorldWith(['crm'], { limits: { timeoutMs: 1 } }, { schema: SNAPSHOT, blockOnSignal: true });
      await expect(world.engine.validateSchema(TENANT, request([{ name: 'users', fields: ['id'] }]))).rejects.toEqual(
        new EngineError('timeout', ErrorText.deadline),
      );
      expect(world.template.closeCount).toBe(1);
    });

    it.each<[string, unknown, string]>([
      ['no request', undefined, ErrorText.invalidSchemaRequest],
      ['datasources that are not a list', { datasources: {} }, ErrorText.invalidSchemaRequest],
      ['a table without fields', { datasources: [{ configName: 'crm', tables: [{ name: 'users' }] }] }, ErrorText.invalidSchemaRequest],
      ['filter fields that are not strings', { datasources: [{ configName: 'crm', tables: [{ name: 'u', fields: [], filterFields: [1] }] }] }, ErrorText.invalidSchemaRequest],
      ['no datasources', { datasources: [] }, ErrorText.noDatasources],
      ['a blank config name', { datasources: [{ configName: ' ', tables: [] }] }, ErrorText.blankName],
      ['a blank table name', { datasources: [{ configName: 'crm', tables: [{ name: '', fields: [] }] }] }, ErrorText.blankName],
      ['a blank field name', { datasources: [{ configName: 'crm', tables: [{ name: 'u', fields: ['id', ' '] }] }] }, ErrorText.blankName],
      ['a blank filter name', { datasources: [{ configName: 'crm', tables: [{ name: 'u', fields: [], filterFields: [''] }] }] }, ErrorText.blankName],
    ])('refuses %s', async (_name, body, message) => {
      const world = await aWorldWith(['crm'], {}, { schema: SNAPSHOT });
      await expect(world.engine.validateSchema(TENANT, body as never)).rejects.toEqual(new EngineError('validation', message));
    });
  });
});
