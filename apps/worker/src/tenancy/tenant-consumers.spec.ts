import { TenantConsumers, type TenantQueueConsumer } from './tenant-consumers';

describe(TenantConsumers.name, () => {
  it('starts every tenant past MULTI_TENANT_MAX_TENANT_POOLS, each keeping its connection, and says so once per crossing', async () => {
    const warnings: string[] = [];
    const held = new Set<string>();
    const sut = new TenantConsumers<string>({
      loadConfig: () => Promise.resolve({}),
      acquireConnection: (id) => (held.add(id), Promise.resolve({ tenantId: id, resource: `conn-${id}`, release: () => held.delete(id) })),
      startConsumer: (): Promise<TenantQueueConsumer> => Promise.resolve({ stop: () => Promise.resolve() }),
      releaseTenant: () => Promise.resolve(),
      invalidateConfig: () => undefined,
      logger: { log: () => undefined, warn: (m) => warnings.push(m) },
      connectionCap: 2,
    });
    for (const id of ['a', 'b']) expect(await sut.ensureStarted(id)).toBe(true);
    expect(warnings).toEqual([]);
    for (const id of ['c', 'd']) expect(await sut.ensureStarted(id)).toBe(true);
    expect(sut.consuming().sort()).toEqual(['a', 'b', 'c', 'd']);
    expect([...held].sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('3 tenants consuming, above MULTI_TENANT_MAX_TENANT_POOLS=2');

    // Back under the cap, then over it again: said again.
    await sut.stop('c');
    await sut.stop('d');
    expect([...held].sort()).toEqual(['a', 'b']);
    expect(await sut.ensureStarted('e')).toBe(true);
    expect(warnings).toHaveLength(2);
    await sut.close();
  });
});
