import { MemoryConnectorFactory, MemoryConnectorRegistry, TemplateConnector } from '@fetcher/engine/memory';
import { ConnectorCache } from './connector-cache';
import { JobConnectors } from './job-connectors';

describe(JobConnectors.name, () => {
  const descriptor = { configName: 'crm', type: 'memory', host: 'h', port: 1, databaseName: 'd', userName: 'u' };
  const setup = (behavior: ConstructorParameters<typeof TemplateConnector>[0]) => {
    const template = new TemplateConnector(behavior);
    const factory = new MemoryConnectorFactory(template);
    const sut = new JobConnectors(new MemoryConnectorRegistry().register('memory', factory), [descriptor]);
    return { sut, factory, template };
  };

  it('builds one connector per datasource, ignores the engine closing it, and closes it once at the end', async () => {
    const { sut, factory, template } = setup({ rows: { a: [{ id: 1 }] } });
    const first = sut.connector('memory')?.build(descriptor);
    const second = sut.connector('memory')?.build(descriptor);
    await first?.close();
    await second?.close();
    expect(factory.buildCount).toBe(1);
    expect(template.closeCount).toBe(0);
    await sut.closeAll();
    expect(template.closeCount).toBe(1);
    expect(await sut.findConnection({ tenantId: 't' }, 'crm')).toBe(descriptor);
    await expect(sut.create()).rejects.toThrow('the worker does not change connections');
  });

  it('counts rows and finished tables as the cursor is read', async () => {
    const { sut } = setup({ rows: { a: [{ id: 1 }, { id: 2 }], b: [{ id: 3 }], c: [] } });
    const connector = sut.connector('memory')!.build(descriptor);
    await connector.testConnection(AbortSignal.timeout(1_000));
    const cursor = await connector.queryStream({ configName: 'crm', tables: { a: ['id'], b: ['id'], c: ['id'] } }, AbortSignal.timeout(1_000));
    await cursor.next();
    await cursor.next();
    expect(sut.progress).toMatchObject({ rows: 2, tablesDone: 0 });
    await cursor.next();
    expect(sut.progress).toMatchObject({ rows: 3, tablesDone: 1 });
    expect(await cursor.next()).toBeNull();
    expect(sut.progress).toMatchObject({ rows: 3, tablesDone: 3 });
    await cursor.close();
  });

  it('declares incremental support exactly when the real connector does', () => {
    expect(setup({ rows: {} }).sut.connector('memory')!.build(descriptor).supportsIncremental).toBe(true);
    expect(setup({ rows: {}, supportsIncremental: false }).sut.connector('memory')!.build(descriptor).supportsIncremental).toBe(false);
  });

  describe('with reuse', () => {
    const withCache = (cache: ConnectorCache) => {
      const factory = new MemoryConnectorFactory(new TemplateConnector({ rows: { a: [{ id: 1 }] } }));
      const registry = new MemoryConnectorRegistry().register('memory', factory);
      const job = () => new JobConnectors(registry, [descriptor], null, { cache, tenantId: 't1' });
      return { factory, job };
    };

    it('gives the connectors of a job that succeeded back, and the next job takes them instead of building', async () => {
      const cache = new ConnectorCache({ idleMs: 30_000, maxIdle: 4 }, () => Promise.resolve());
      const { factory, job } = withCache(cache);
      const first = job();
      await first.prepare(AbortSignal.timeout(1_000));
      first.connector('memory')!.build(descriptor);
      await first.closeAll(true);
      expect(cache.size).toBe(1);
      const second = job();
      await second.prepare(AbortSignal.timeout(1_000));
      second.connector('memory')!.build(descriptor);
      expect(factory.buildCount).toBe(1);
      expect(factory.built[0].closeCount).toBe(0);
      await second.closeAll(false);
      expect(factory.built[0].closeCount).toBe(1);
      expect(cache.size).toBe(0);
    });

    it('closes a job\'s connectors when it did not succeed', async () => {
      const cache = new ConnectorCache({ idleMs: 30_000, maxIdle: 4 }, () => Promise.resolve());
      const { factory, job } = withCache(cache);
      const run = job();
      await run.prepare(AbortSignal.timeout(1_000));
      run.connector('memory')!.build(descriptor);
      await run.closeAll();
      expect(factory.built[0].closeCount).toBe(1);
      expect(cache.size).toBe(0);
    });
  });
});
