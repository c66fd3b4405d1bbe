import { TemplateConnector } from '@fetcher/engine/memory';
import type { TenantManagerClient } from '@fetcher/platform';
import { ConnectorCache } from '../jobs/connector-cache';
import { TenantResources } from './tenant-resources';

describe(TenantResources.name, () => {
  it('closes a removed tenant\'s kept datasource connections with its other resources, and no other tenant\'s', async () => {
    const invalidated: string[] = [];
    const client = {
      getTenantConfig: () => Promise.reject(new Error('not used')),
      invalidate: (tenantId: string) => void invalidated.push(tenantId),
      close: () => undefined,
    } as unknown as TenantManagerClient;
    const datasources = new ConnectorCache({ idleMs: 30_000, maxIdle: 8 }, () => Promise.resolve());
    const sut = new TenantResources({ client, maxTenants: 4, idleTimeoutMs: 60_000, defaultAmqpTls: false, datasources, sweepIntervalMs: 0 });
    const descriptor = { configName: 'crm', type: 'memory', host: 'h', port: 1, databaseName: 'd', userName: 'u' };
    const [gone, kept] = [new TemplateConnector(), new TemplateConnector()];
    await datasources.give('gone', descriptor, gone);
    await datasources.give('kept', descriptor, kept);

    await sut.release('gone');

    expect([gone.closeCount, kept.closeCount]).toEqual([1, 0]);
    expect(invalidated).toEqual(['gone']);
    await sut.close();
    await datasources.close();
  });
});
