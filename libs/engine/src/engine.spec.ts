import { createEngine, DEFAULT_LIMITS, EngineError, ErrorText, type Engine, type EngineOptions } from './index';
import { MemoryConnectionStore, MemoryConnectorRegistry, MemoryExecutionStore, MemoryResultSink, MemorySchemaCache } from './memory';
import { anInput, aWorld, aWorldWith, RecordingObservability, TENANT } from './testing/engine-fixture';

const registry = new MemoryConnectorRegistry();
const build = (options: unknown): Engine => createEngine(options as EngineOptions);

describe(createEngine.name, () => {
  describe('construction', () => {
    it.each([undefined, null, 42, 'engine', {}, { connectorRegistry: null }])('requires a connector registry (%p)', (options) => {
      expect(() => build(options)).toThrow(expect.objectContaining({ category: 'validation', message: ErrorText.registryRequired }));
    });

    it.each<[string, string, Record<string, unknown>]>([
      ['connectorRegistry', 'connector registry', { lookup: () => undefined }],
      ['credentialProtector', 'credential protector', { protect: async () => ({}) }],
      ['connectionStore', 'connection store', { findConnection: async () => undefined }],
      ['schemaCache', 'schema cache', { getSchema: async () => undefined }],
      ['resultSink', 'result sink', { open: async () => undefined }],
      ['executionStore', 'execution store', { save: async () => undefined }],
      ['activeExecutionChecker', 'active execution checker', { hasActiveExecutions: 'yes' }],
      ['observability', 'observability', {}],
    ])('fails at construction when %s is missing a method', (option, name, half) => {
      const options = { connectorRegistry: registry, [option]: half };
      expect(() => build(options)).toThrow(expect.objectContaining({ category: 'validation', message: `${name} is misconfigured` }));
    });

    it('rejects a port that is not an object at all', () => {
      expect(() => build({ connectorRegistry: registry, connectionStore: 'mongodb://localhost' })).toThrow(expect.objectContaining({ category: 'validation', message: 'connection store is misconfigured' }));
    });

    it('requires a credential protector for encrypted persistence', () => {
      expect(() => build({ connectorRegistry: registry, encryptedPersistence: true })).toThrow(expect.objectContaining({ category: 'validation', message: ErrorText.protectorRequired }));
      expect(() => build({ connectorRegistry: registry, encryptedPersistence: true, credentialProtector: null })).toThrow(expect.objectContaining({ category: 'validation', message: ErrorText.protectorRequired }));
      expect(() => build({ connectorRegistry: registry, encryptedPersistence: 'yes' })).toThrow(expect.objectContaining({ category: 'validation', message: ErrorText.encryptedFlagInvalid }));
    });

    it.each([0, -1, 1.5, Number.NaN, Infinity, '10', 2 ** 53])('refuses a limit of %p', (value) => {
      expect(() => build({ connectorRegistry: registry, limits: { maxConcurrency: value } })).toThrow(expect.objectContaining({ category: 'validation', message: 'limits.maxConcurrency must be a positive integer' }));
    });

    it('refuses limits that are not an object, unknown limit names and a clock that is not a function', () => {
      expect(() => build({ connectorRegistry: registry, limits: 5 })).toThrow(expect.objectContaining({ category: 'validation', message: ErrorText.limitsInvalid }));
      expect(() => build({ connectorRegistry: registry, limits: { maxRows: 5 } })).toThrow(expect.objectContaining({ category: 'validation', message: ErrorText.limitsInvalid }));
      expect(() => build({ connectorRegistry: registry, clock: 'now' })).toThrow(expect.objectContaining({ category: 'validation', message: ErrorText.clockInvalid }));
    });

    it('merges given limits over the defaults and hands out copies', () => {
      const engine = build({ connectorRegistry: registry, limits: { maxConcurrency: 2, connectorHardLimits: { rows: 5 } } });
      const limits = engine.limits();
      expect(limits).toEqual({ ...DEFAULT_LIMITS, maxConcurrency: 2, connectorHardLimits: { rows: 5 } });
      expect(() => ((limits as { maxConcurrency: number }).maxConcurrency = 99)).toThrow(TypeError);
      expect(engine.limits().maxConcurrency).toBe(2);
    });

    it('has the documented defaults', () => {
      expect(build({ connectorRegistry: registry }).limits()).toEqual({
        maxDatasources: 10,
        maxTablesPerDatasource: 20,
        maxFieldsPerTable: 50,
        maxConcurrency: 4,
        timeoutMs: 300_000,
        maxResultBytes: 256 * 1024 * 1024,
      });
    });

    it('accepts every optional port as absent (undefined or null) and as fully wired', () => {
      const full: EngineOptions = {
        connectorRegistry: registry,
        connectionStore: new MemoryConnectionStore(),
        schemaCache: new MemorySchemaCache(),
        resultSink: new MemoryResultSink(),
        executionStore: new MemoryExecutionStore(),
        activeExecutionChecker: { hasActiveExecutions: async () => false },
        observability: new RecordingObservability(),
        credentialProtector: { protect: async () => ({ ciphertext: 'x', keyVersion: 1 }), reveal: async () => 'x' },
        encryptedPersistence: true,
      };
      expect(() => build(full)).not.toThrow();
      const nulls = Object.fromEntries(Object.keys(full).map((k) => [k, null]));
      expect(() => build({ ...nulls, connectorRegistry: registry, encryptedPersistence: false })).not.toThrow();
    });
  });

  describe('without a connection store', () => {
    const engine = build({ connectorRegistry: registry });
    const plan = { tenantId: 'acme', steps: [], limits: DEFAULT_LIMITS, mode: 'auto' as const };
    it.each<[string, () => Promise<unknown>]>([
      ['createConnection', () => engine.createConnection(TENANT, anInput())],
      ['getConnection', () => engine.getConnection(TENANT, 'crm')],
      ['listConnections', () => engine.listConnections(TENANT)],
      ['getConnectionById', () => engine.getConnectionById(TENANT, 'id')],
      ['listConnectionsPaged', () => engine.listConnectionsPaged(TENANT, {})],
      ['updateConnection', () => engine.updateConnection(TENANT, 'crm', {})],
      ['deleteConnection', () => engine.deleteConnection(TENANT, 'crm')],
      ['updateConnectionById', () => engine.updateConnectionById(TENANT, 'id', {})],
      ['deleteConnectionById', () => engine.deleteConnectionById(TENANT, 'id')],
      ['checkActiveExecutions', () => engine.checkActiveExecutions(TENANT, 'crm')],
      ['testConnection', () => engine.testConnection(TENANT, 'crm')],
      ['discoverSchema', () => engine.discoverSchema(TENANT, 'crm')],
      ['discoverSchemaFresh', () => engine.discoverSchemaFresh(TENANT, 'crm')],
      ['validateSchema', () => engine.validateSchema(TENANT, { datasources: [] })],
      ['planExtraction', () => engine.planExtraction(TENANT, { mappedFields: {} })],
      ['executeExtraction', () => engine.executeExtraction(plan)],
    ])('%s fails with "connection store is not configured"', async (_name, call) => {
      await expect(call()).rejects.toEqual(new EngineError('validation', ErrorText.storeNotConfigured));
    });

    it('still authorizes access, which needs only the tenant', async () => {
      await expect(engine.authorizeConnectionAccess(TENANT)).resolves.toBeUndefined();
    });
  });

  describe('tenant re-check', () => {
    const { engine } = aWorld();
    const badTenants = [undefined, null, 'acme', {}, { tenantId: '' }, { tenantId: ' acme' }, { tenantId: 'a/b' }, { tenantId: 7 }, { tenantId: 'x'.repeat(257) }, { tenantId: 'acme', requestId: 5 }];
    const operations: [string, (t: never) => Promise<unknown>][] = [
      ['createConnection', (t) => engine.createConnection(t, anInput())],
      ['getConnection', (t) => engine.getConnection(t, 'crm')],
      ['listConnections', (t) => engine.listConnections(t)],
      ['getConnectionById', (t) => engine.getConnectionById(t, 'id')],
      ['listConnectionsPaged', (t) => engine.listConnectionsPaged(t, {})],
      ['updateConnection', (t) => engine.updateConnection(t, 'crm', {})],
      ['deleteConnection', (t) => engine.deleteConnection(t, 'crm')],
      ['updateConnectionById', (t) => engine.updateConnectionById(t, 'id', {})],
      ['deleteConnectionById', (t) => engine.deleteConnectionById(t, 'id')],
      ['checkActiveExecutions', (t) => engine.checkActiveExecutions(t, 'crm')],
      ['authorizeConnectionAccess', (t) => engine.authorizeConnectionAccess(t)],
      ['testConnection', (t) => engine.testConnection(t, 'crm')],
      ['discoverSchema', (t) => engine.discoverSchema(t, 'crm')],
      ['discoverSchemaFresh', (t) => engine.discoverSchemaFresh(t, 'crm')],
      ['validateSchema', (t) => engine.validateSchema(t, { datasources: [{ configName: 'crm', tables: [] }] })],
      ['planExtraction', (t) => engine.planExtraction(t, { mappedFields: { crm: { users: ['id'] } } })],
    ];
    it.each(operations)('%s refuses a hand-built tenant with a bad id', async (_name, call) => {
      for (const tenant of badTenants) {
        await expect(call(tenant as never)).rejects.toEqual(new EngineError('validation', ErrorText.tenantRequired));
      }
    });
  });

  describe('operation options', () => {
    it.each([5, 'signal', { signal: 'abort' }, { signal: {} }])('refuses %p as options', async (options) => {
      const { engine } = await aWorldWith();
      await expect(engine.getConnection(TENANT, 'crm', options as never)).rejects.toEqual(
        new EngineError('validation', ErrorText.invalidOperationOptions),
      );
    });
  });

  describe('observability', () => {
    it('opens one span per operation, with the nested validate span inside plan, and ends each with its outcome', async () => {
      const observability = new RecordingObservability();
      const { engine } = await aWorldWith(['crm'], { observability });
      await engine.getConnection(TENANT, 'crm');
      await engine.getConnection(TENANT, 'nope').catch(() => undefined);
      const plan = await engine.planExtraction(TENANT, { mappedFields: { crm: { users: ['id'] } } });
      await engine.executeExtraction(plan);
      expect(observability.spans.map((s) => [s.name, s.ended])).toEqual([
        ['engine.connection.create', 'ok'],
        ['engine.connection.get', 'ok'],
        ['engine.connection.get', 'not_found'],
        ['engine.extraction.plan', 'ok'],
        ['engine.schema.validate', 'ok'],
        ['engine.extraction.execute', 'ok'],
      ]);
      expect(observability.spans[0].attributes).toEqual({ 'tenant.id': 'acme' });
    });

    it.each([
      ['createConnection', 'engine.connection.create'],
      ['listConnections', 'engine.connection.list'],
      ['getConnectionById', 'engine.connection.get_by_id'],
      ['listConnectionsPaged', 'engine.connection.list_paged'],
      ['updateConnection', 'engine.connection.update'],
      ['deleteConnection', 'engine.connection.delete'],
      ['updateConnectionById', 'engine.connection.update_by_id'],
      ['deleteConnectionById', 'engine.connection.delete_by_id'],
      ['checkActiveExecutions', 'engine.connection.check_active_executions'],
      ['authorizeConnectionAccess', 'engine.connection.authorize_access'],
      ['testConnection', 'engine.connection.test'],
      ['discoverSchema', 'engine.schema.discover'],
      ['discoverSchemaFresh', 'engine.schema.discover_fresh'],
      ['validateSchema', 'engine.schema.validate'],
    ])('%s opens the span %s', async (operation, span) => {
      const observability = new RecordingObservability();
      const { engine } = aWorld({ observability });
      const call = (engine as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[operation];
      await call.call(engine, TENANT, 'x', {}).catch(() => undefined);
      expect(observability.spans.map((s) => s.name)).toEqual([span]);
    });

    it('never fails an operation because the observability port throws', async () => {
      const { engine } = aWorld({ observability: { startSpan: () => { throw new Error('exporter down'); } } });
      await expect(engine.listConnections(TENANT)).resolves.toEqual([]);
      const ending = aWorld({ observability: { startSpan: () => ({ end: () => { throw new Error('exporter down'); } }) } });
      await expect(ending.engine.listConnections(TENANT)).resolves.toEqual([]);
    });
  });
});
