import { createTenantContext } from '@fetcher/engine';
import { type TenantConfig, TenantManagerError, type TenantManagerClient } from '@fetcher/platform';
import { v5 as uuidv5 } from 'uuid';
import { INTERNAL_DATASOURCE_NAMESPACE } from '../config/internal-datasources.env';
import { ledgerDatasources, TenantInternalDatasources } from './internal-datasources.tenant';

const ledger = {
  id: 'acme',
  tenantSlug: 'acme',
  databases: {
    onboarding: { postgresql: { host: 'pg.acme', port: 5432, database: 'onboarding', username: 'u', password: 'p', sslmode: 'require' } },
    transaction: { postgresql: { host: 'pg.acme', port: 5432 } }, // no database: skipped
    crm: { mongodb: { host: 'mongo.acme', port: 27017, database: 'crm', username: 'm', password: 'q', uri: 'mongodb://x/crm?tls=true&authSource=admin' } },
  },
} as unknown as TenantConfig;

function clientAnswering(answer: TenantConfig | Error): TenantManagerClient {
  return { getTenantConfig: (_id: string, service: string) => (service === 'ledger' ? (answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer)) : Promise.reject(new Error('wrong service'))) } as unknown as TenantManagerClient;
}

describe('internal datasources from the tenant-manager ledger association', () => {
  it('maps the registry modules it finds, PostgreSQL as given and MongoDB with its TLS and authSource from the uri, skipping unusable ones', () => {
    const found = ledgerDatasources(ledger);
    expect(found.map((d) => [d.configName, d.type, d.host, d.databaseName, d.sslMode, d.metadata])).toEqual([
      ['midaz_onboarding', 'POSTGRESQL', 'pg.acme', 'onboarding', 'require', {}],
      ['plugin_crm', 'MONGODB', 'mongo.acme', 'crm', 'enable', { authSource: 'admin' }],
    ]);
  });

  it('gives ids of tenantId/configName, so each tenant\'s datasource has its own id, with the password kept off the listed object', async () => {
    const list = await new TenantInternalDatasources(clientAnswering(ledger)).list(createTenantContext('acme'));
    expect(list[0]?.id).toBe(uuidv5('acme/midaz_onboarding', INTERNAL_DATASOURCE_NAMESPACE));
    expect(list[0]?.descriptor.hostAttributes).toMatchObject({ internal: true });
    expect(JSON.stringify(list)).not.toContain('"p"');
  });

  it('has none for a tenant without a ledger association, and rejects when the tenant-manager cannot answer', async () => {
    const tenant = createTenantContext('acme');
    await expect(new TenantInternalDatasources(clientAnswering(new TenantManagerError('tenant_not_found', { tenantId: 'acme' }))).list(tenant)).resolves.toEqual([]);
    await expect(new TenantInternalDatasources(clientAnswering(new TenantManagerError('unreachable', { tenantId: 'acme' }))).list(tenant)).rejects.toMatchObject({ reason: 'unreachable' });
  });
});
