import { EngineError, ErrorText, type ExtractionRequest, type SchemaSnapshot } from '../index';
import { MemoryConnectionStore } from '../memory';
import { aWorldWith, OTHER_TENANT, TENANT } from '../testing/engine-fixture';
import { ExtractionPlanner } from './extraction-planner';

const SCHEMA: SchemaSnapshot = {
  configName: 'crm',
  tables: [
    {
      name: 'users',
      fields: ['id', 'name', 'email', 'born', 'created_at', 'active', 'ref', 'score', 'photo', 'natural_person.mother_name', 'oid', 'untyped'],
      columns: [
        { name: 'id', kind: 'integer', nativeType: 'int8' },
        { name: 'name', kind: 'string', nativeType: 'text' },
        { name: 'email', kind: 'string', nativeType: 'text' },
        { name: 'born', kind: 'date', nativeType: 'date' },
        { name: 'created_at', kind: 'datetime', nativeType: 'timestamptz' },
        { name: 'active', kind: 'boolean', nativeType: 'bool' },
        { name: 'ref', kind: 'uuid', nativeType: 'uuid' },
        { name: 'score', kind: 'decimal', nativeType: 'numeric' },
        { name: 'photo', kind: 'binary', nativeType: 'bytea' },
        { name: 'oid', kind: 'objectId', nativeType: 'objectId' },
      ],
    },
    { name: 'orders', fields: ['id', 'total'] },
  ],
};

const world = (names = ['crm'], options = {}) => aWorldWith(names, options, { schema: SCHEMA });

describe(ExtractionPlanner.name, () => {
  it('builds sorted steps with sorted tables and fields, copies metadata and takes ids from the tenant', async () => {
    const { engine } = await world(['crm', 'erp']);
    const metadata = { source: 'api', nested: { a: 1 } };
    const plan = await engine.planExtraction(
      { tenantId: 'acme', requestId: 'req-1' },
      { mappedFields: { erp: { users: ['name', 'id'] }, crm: { users: ['name', 'id', 'id'], orders: ['total'] } }, metadata },
    );
    expect(plan).toEqual({
      tenantId: 'acme',
      requestId: 'req-1',
      mode: 'auto',
      limits: engine.limits(),
      metadata,
      steps: [
        { ordinal: 0, configName: 'crm', tables: ['orders', 'users'], fields: { orders: ['total'], users: ['id', 'name'] } },
        { ordinal: 1, configName: 'erp', tables: ['users'], fields: { users: ['id', 'name'] } },
      ],
    });
    expect(plan.metadata).not.toBe(metadata);
    expect(plan.metadata?.nested).not.toBe(metadata.nested);
  });

  it('expands "*" to every field of the table, sorted', async () => {
    const { engine } = await world();
    const plan = await engine.planExtraction(TENANT, { mappedFields: { crm: { orders: ['*'], users: ['*', 'id'] } } });
    expect(plan.steps[0].fields).toEqual({ orders: ['id', 'total'], users: [...SCHEMA.tables[0].fields].sort() });
  });

  describe('gates', () => {
    it.each<[string, unknown, EngineError]>([
      ['a request that is not an object', 'select *', new EngineError('validation', ErrorText.invalidRequest)],
      ['mappedFields that is not an object', { mappedFields: ['crm'] }, new EngineError('validation', ErrorText.invalidRequest)],
      ['empty mappedFields', { mappedFields: {} }, new EngineError('validation', ErrorText.noMappedFields)],
      ['a datasource with zero tables', { mappedFields: { crm: {} } }, new EngineError('validation', ErrorText.noTables)],
      ['a datasource that is not an object', { mappedFields: { crm: ['users'] } }, new EngineError('validation', ErrorText.invalidRequest)],
      ['a field list that is not a string list', { mappedFields: { crm: { users: 'id' } } }, new EngineError('validation', ErrorText.invalidRequest)],
      ['an empty field list', { mappedFields: { crm: { users: [] } } }, new EngineError('validation', ErrorText.noFields)],
      ['metadata that is not an object', { mappedFields: { crm: { users: ['id'] } }, metadata: 'x' }, new EngineError('validation', ErrorText.invalidRequest)],
      ['metadata that cannot be copied', { mappedFields: { crm: { users: ['id'] } }, metadata: { f: () => 1 } }, new EngineError('validation', ErrorText.invalidRequest)],
      ['overrides that are not an object', { mappedFields: { crm: { users: ['id'] } }, overrides: 5 }, new EngineError('validation', ErrorText.invalidRequest)],
      ['a blank config name', { mappedFields: { ' ': { users: ['id'] } } }, new EngineError('validation', ErrorText.blankConfigName)],
      ['an unknown datasource', { mappedFields: { ghost: { users: ['id'] } } }, new EngineError('not_found', `${ErrorText.unknownDatasource}: ghost`)],
      ['an unknown table', { mappedFields: { crm: { invoices: ['id'] } } }, new EngineError('validation', 'extraction request failed schema validation: table not found in datasource schema: crm.invoices')],
      ['a blank field name', { mappedFields: { crm: { users: [' '] } } }, new EngineError('validation', ErrorText.blankName)],
    ])('refuses %s', async (_name, request, expected) => {
      const { engine } = await world();
      await expect(engine.planExtraction(TENANT, request as ExtractionRequest)).rejects.toEqual(expected);
    });

    it("treats another tenant's datasource as unknown", async () => {
      const { engine } = await world();
      await expect(engine.planExtraction(OTHER_TENANT, { mappedFields: { crm: { users: ['id'] } } })).rejects.toEqual(
        new EngineError('not_found', `${ErrorText.unknownDatasource}: crm`),
      );
    });

    it('refuses a datasource deleted between the probe and schema validation as not_found', async () => {
      const store = new MemoryConnectionStore();
      const { engine } = await aWorldWith(['crm'], { connectionStore: store }, { schema: SCHEMA });
      const find = store.findConnection.bind(store);
      let lookups = 0;
      // The probe's lookup finds the connection; schema validation's lookup no longer does.
      store.findConnection = async (t, name) => (++lookups === 1 ? find(t, name) : undefined);
      const error = (await engine.planExtraction(TENANT, { mappedFields: { crm: { users: ['id'] } } }).catch((e: unknown) => e)) as EngineError;
      expect(error.category).toBe('not_found');
      expect(error).toEqual(new EngineError('not_found', `${ErrorText.unknownDatasource}: crm`));
      expect(error.cause).toEqual({ valid: false, failures: [expect.objectContaining({ type: 'datasource_not_found', configName: 'crm' })] });
      expect(lookups).toBe(2);
    });

    it('names each failure in the message and carries the validation report as the hidden cause', async () => {
      const { engine } = await world();
      const request = { mappedFields: { crm: { users: ['nope', 'id'], invoices: ['id'] } }, filters: { crm: { users: { colour: { eq: ['red'] } } } } };
      const error = (await engine.planExtraction(TENANT, request).catch((e: unknown) => e)) as EngineError;
      expect(error).toEqual(
        new EngineError(
          'validation',
          'extraction request failed schema validation: table not found in datasource schema: crm.invoices; ' +
            'field not found in table schema: crm.users.nope; filter references a field not found in table schema: crm.users.colour',
        ),
      );
      expect(error.cause).toEqual({ valid: false, failures: expect.arrayContaining([expect.objectContaining({ type: 'field_not_found', field: 'nope' })]) });
      expect(JSON.parse(JSON.stringify(error))).toEqual({ name: 'EngineError', category: 'validation', message: error.message });
    });

    it('names the first ten failures and counts the rest', async () => {
      const { engine } = await world();
      const fields = Array.from({ length: 12 }, (_, i) => `f${String(i).padStart(2, '0')}`);
      const error = (await engine.planExtraction(TENANT, { mappedFields: { crm: { users: fields } } }).catch((e: unknown) => e)) as EngineError;
      expect(error.message).toMatch(/crm\.users\.f09; and 2 more$/);
      expect(error.message).not.toContain('f10');
    });

    it('surfaces count-limit breaches as validation (quirk kept)', async () => {
      const { engine } = await world(['crm'], { limits: { maxFieldsPerTable: 2 } });
      await expect(engine.planExtraction(TENANT, { mappedFields: { crm: { users: ['id', 'name', 'email'] } } })).rejects.toEqual(
        new EngineError('validation', 'extraction request failed schema validation: field count exceeds the configured limit: crm.users'),
      );
      // "*" counts as one field.
      await expect(engine.planExtraction(TENANT, { mappedFields: { crm: { users: ['*'] } } })).resolves.toBeDefined();
    });

    it('probes at most maxDatasources + 1 names, in sorted order, before the count check', async () => {
      const store = new MemoryConnectionStore();
      const { engine } = await aWorldWith(['a', 'b', 'c', 'd'], { connectionStore: store, limits: { maxDatasources: 2 } }, { schema: SCHEMA });
      const probed: string[] = [];
      const find = store.findConnection.bind(store);
      store.findConnection = async (t, name) => {
        probed.push(name);
        return find(t, name);
      };
      const mapped = Object.fromEntries(['d', 'c', 'b', 'a'].map((n) => [n, { users: ['id'] }]));
      await expect(engine.planExtraction(TENANT, { mappedFields: mapped })).rejects.toEqual(new EngineError('validation', ErrorText.tooManyDatasources));
      expect(probed).toEqual(['a', 'b', 'c']);
      const unknownFirst = { ...mapped, '0ghost': { users: ['id'] } };
      await expect(engine.planExtraction(TENANT, { mappedFields: unknownFirst })).rejects.toEqual(
        new EngineError('not_found', `${ErrorText.unknownDatasource}: 0ghost`),
      );
    });
  });

  describe('overrides', () => {
    it('lowers limits, inherits for values <= 0, and refuses anything above the engine', async () => {
      const { engine } = await world();
      const mappedFields = { crm: { users: ['id'] } };
      const plan = await engine.planExtraction(TENANT, { mappedFields, overrides: { maxConcurrency: 2, timeoutMs: 0, maxResultBytes: -1 } });
      expect(plan.limits).toEqual({ ...engine.limits(), maxConcurrency: 2 });
      await expect(engine.planExtraction(TENANT, { mappedFields, overrides: { timeoutMs: 300_001 } })).rejects.toEqual(
        new EngineError('validation', 'limit override exceeds the configured maximum: limits.timeout'),
      );
      await expect(engine.planExtraction(TENANT, { mappedFields, overrides: { maxDatasources: 11 } })).rejects.toEqual(
        new EngineError('validation', 'limit override exceeds the configured maximum: limits.maxDatasources'),
      );
      await expect(engine.planExtraction(TENANT, { mappedFields, overrides: { maxFieldsPerTable: '5' } as never })).rejects.toEqual(
        new EngineError('validation', 'limit override is invalid: limits.maxFieldsPerTable'),
      );
      await expect(engine.planExtraction(TENANT, { mappedFields, overrides: JSON.parse('{"connectorHardLimits":{}}') as never })).rejects.toEqual(
        new EngineError('validation', 'limit override is invalid: limits.connectorHardLimits'),
      );
      await expect(engine.planExtraction(TENANT, { mappedFields, overrides: { maxRows: 1 } as never })).rejects.toEqual(
        new EngineError('validation', ErrorText.invalidRequest),
      );
    });

    it('validates with the effective limits', async () => {
      const { engine } = await world();
      await expect(
        engine.planExtraction(TENANT, { mappedFields: { crm: { users: ['id', 'name'] } }, overrides: { maxFieldsPerTable: 1 } }),
      ).rejects.toEqual(new EngineError('validation', 'extraction request failed schema validation: field count exceeds the configured limit: crm.users'));
    });
  });

  describe('filters', () => {
    const plan = async (filters: unknown, tables: Record<string, string[]> = { users: ['id'] }) =>
      (await world()).engine.planExtraction(TENANT, { mappedFields: { crm: tables }, filters } as ExtractionRequest);

    it('copies the conditions per table', async () => {
      const filters = { crm: { users: { id: { gte: [1], in: [1, 2] } }, orders: { total: { gt: ['5'] } } } };
      const planned = await plan(filters, { users: ['id'], orders: ['id'] });
      expect(planned.steps[0].filters).toEqual({ users: { id: { gte: [1], in: [1, 2] } }, orders: { total: { gt: ['5'] } } });
      expect(planned.steps[0].filters?.users.id.in).not.toBe(filters.crm.users.id.in);
    });

    it.each<[string, unknown, string]>([
      ['not an object', 'id=1', 'filters must be an object of datasources'],
      ['a list', [1], 'filters must be an object of datasources'],
      ['a config that is a string', { crm: 'x' }, "filter on datasource 'crm': must be an object of tables"],
      ['a table that is a list', { crm: { users: [] } }, "filter on table 'crm.users': must be an object of fields"],
      ['a condition that is a string', { crm: { users: { id: 'ignored' } } }, "filter on 'crm.users.id': must be an object of operators (eq, gt, gte, lt, lte, between, in, nin, ne, like)"],
      ['a table that is not mapped', { crm: { orders: { total: { gt: [5] } } } }, "filter on table 'crm.orders': the table is not in mappedFields of datasource 'crm'"],
      ['a datasource that is not mapped', { erp: { users: { id: { eq: [1] } } } }, "filter on datasource 'erp': the datasource is not in mappedFields"],
      ['between with one value', { crm: { users: { id: { between: [5] } } } }, "filter on 'crm.users.id': operator 'between' needs exactly 2 values, got 1"],
      ['an unknown operator', { crm: { users: { id: { greater: [5] } } } }, "filter on 'crm.users.id': unknown operator 'greater' (use one of eq, gt, gte, lt, lte, between, in, nin, ne, like)"],
    ])('refuses filters whose shape is %s, rather than extracting unfiltered', async (_name, filters, problem) => {
      await expect(plan(filters)).rejects.toEqual(new EngineError('validation', `invalid filter: ${problem}`));
    });

    it('still validates the names of filter fields', async () => {
      await expect(plan({ crm: { users: { missing: { eq: [1] } } } })).rejects.toEqual(
        new EngineError('validation', 'extraction request failed schema validation: filter references a field not found in table schema: crm.users.missing'),
      );
    });

    it.each<[string, Record<string, unknown>]>([
      ['integer', { id: { eq: ['12'], in: [1, 2n, '-3'] } }],
      ['date', { born: { between: ['2020-01-01', '2020-12-31'] } }],
      ['datetime', { created_at: { gte: ['2026-01-01T00:00:00Z'] } }],
      ['boolean', { active: { eq: ['true'] } }],
      ['uuid', { ref: { in: ['0f8fad5b-d9cb-469f-a165-70867728950e'] } }],
      ['decimal', { score: { lt: ['99.5'] } }],
      ['binary', { photo: { eq: ['AQID'] } }],
      ['objectId', { oid: { eq: ['507f1f77bcf86cd799439011'] } }],
      ['a column without a kind (other)', { untyped: { eq: [5] } }],
      ['a dotted parent (other)', { natural_person: { like: ['%a%'] } }],
      ['null in single-value eq and ne', { name: { eq: [null] }, email: { ne: [null] } }],
      ['like on any column', { id: { like: ['1%'] } }],
    ])('accepts %s values', async (_name, conditions) => {
      await expect(plan({ crm: { users: conditions } })).resolves.toBeDefined();
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['a word for an integer', { id: { eq: ['one'] } }, 'filter value does not match the column type: crm.users.id'],
      ['a bad date', { born: { eq: ['2026-02-30'] } }, 'filter value does not match the column type: crm.users.born'],
      ['a bad uuid', { ref: { eq: ['123'] } }, 'filter value does not match the column type: crm.users.ref'],
      ['null among many values', { name: { in: ['a', null] } }, 'filter value does not match the column type: crm.users.name'],
      ['null in gt', { id: { gt: [null] } }, 'filter value does not match the column type: crm.users.id'],
      ['an object value', { name: { eq: [{ $ne: 1 }] } }, 'filter value does not match the column type: crm.users.name'],
      ['two values for gt', { id: { gt: [1, 2] } }, "invalid filter: filter on 'crm.users.id': operator 'gt' needs exactly 1 value, got 2"],
      ['no value for lte', { id: { lte: [] } }, "invalid filter: filter on 'crm.users.id': operator 'lte' needs exactly 1 value, got 0"],
      ['an empty list', { id: { in: [] } }, "invalid filter: filter on 'crm.users.id': operator 'in' needs at least one value, got none"],
      ['a scalar instead of a list', { id: { eq: 5 } }, "invalid filter: filter on 'crm.users.id': operator 'eq' needs a list of values"],
      ['an unknown operator', { id: { equals: [5] } }, "invalid filter: filter on 'crm.users.id': unknown operator 'equals' (use one of eq, gt, gte, lt, lte, between, in, nin, ne, like)"],
    ])('refuses %s', async (_name, conditions, message) => {
      await expect(plan({ crm: { users: conditions } })).rejects.toEqual(new EngineError('validation', message));
    });
  });
});
