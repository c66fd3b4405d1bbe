import { createTenantAmqpPool, createTenantMongoPool } from '@fetcher/platform';
import { startTenantManagerTestServer, type TenantManagerTestServer, type TenantRecord } from '@fetcher/tenant-manager-test-server';
import type { ManagerMultiTenancy } from '../../config/manager.config';
import { ManagerTenantReadiness } from './multi-tenant.providers';
import { TenantDatabases } from './tenant-databases';
import { tenantManagerClientFrom } from './tenant-manager.provider';

const API_KEY = 'readiness-key';
const tenant = (id: string, status: TenantRecord['status'] = 'active'): TenantRecord => ({
  name: id, status, services: { fetcher: { id, tenantSlug: id, databases: { fetcher: { mongodb: { database: `db_${id}`, uri: 'mongodb://127.0.0.1:1' } } } } },
});

/** `/readyz/tenant/:id` before any probe runs: what the tenant-manager says decides the answer. */
describe('ManagerTenantReadiness against the tenant-manager test server', () => {
  let server: TenantManagerTestServer;
  beforeAll(async () => {
    server = await startTenantManagerTestServer({ tenants: { apiKey: API_KEY, tenants: { acme: tenant('acme'), paused: tenant('paused', 'suspended') } } });
  });
  afterAll(() => server.close());

  function readiness() {
    const tenancy = {
      tenantManager: { url: server.url, apiKey: API_KEY, timeoutMs: 1_000, cacheTtlSec: 60, allowInsecureHttp: true, breaker: { threshold: 2, openSec: 30 } },
    } as unknown as ManagerMultiTenancy;
    const client = tenantManagerClientFrom(tenancy);
    const configOf = (id: string) => client.getTenantConfig(id, 'fetcher');
    const databases = new TenantDatabases(createTenantMongoPool({ configOf, maxTenants: 2, idleTimeoutMs: 60_000, sweepIntervalMs: 0 }));
    const amqp = createTenantAmqpPool({ configOf, maxTenants: 2, idleTimeoutMs: 60_000, sweepIntervalMs: 0, defaultTls: false });
    return new ManagerTenantReadiness(client, databases, amqp);
  }
  const signal = new AbortController().signal;

  it('answers 404 for a tenant that is unknown, suspended or purged, and the two probes for an active one', async () => {
    const sut = readiness();
    expect(await sut.resolve('nobody', signal)).toEqual({ status: 404, body: { error: 'tenant not found', tenant_id: 'nobody' } });
    expect(await sut.resolve('paused', signal)).toEqual({ status: 404, body: { error: 'tenant not found', tenant_id: 'paused' } });
    const resolved = await sut.resolve('acme', signal);
    expect('probes' in resolved && resolved.probes.map((p) => p.name)).toEqual(['mongodb', 'rabbitmq']);
  });

  it('answers 503 while the tenant-manager fails, then the breaker body once its breaker opened', async () => {
    const sut = readiness();
    server.failWith(500);
    try {
      expect(await sut.resolve('acme', signal)).toEqual({ status: 503, body: { error: 'tenant manager unreachable: server_error' } });
      expect(await sut.resolve('acme', signal)).toEqual({ status: 503, body: { error: 'tenant manager unreachable: server_error' } });
      expect(await sut.resolve('acme', signal)).toEqual({ status: 503, body: { error: 'tenant manager circuit breaker open' } });
    } finally {
      server.failWith(undefined);
    }
  });
});
