import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { startTenantManagerTestServer, type TenantManagerTestServer, type TenantsFile } from '@fetcher/tenant-manager-test-server';
import { MetricsRegistry } from '../metrics/metrics-registry';
import { TenantManagerClient } from './tenant-manager-client';
import type { TenantManagerClientOptions } from './tenant-manager-options';
import { TenantManagerError } from './tenant-manager-error';

const API_KEY = `key-${randomUUID()}`;
const config = (id: string) => ({
  id, tenantSlug: id,
  databases: { fetcher: { mongodb: { uri: 'mongodb://127.0.0.1:27017', database: `${id}_db` } } },
  messaging: { rabbitmq: { host: '127.0.0.1', port: 5672, vhost: id, username: 'u', password: 'p' } },
});
const FILE: TenantsFile = {
  apiKey: API_KEY,
  tenants: {
    acme: { name: 'Acme', status: 'active', services: { fetcher: config('acme'), ledger: { id: 'acme', databases: { crm: { mongodb: { database: 'crm' } } } } } },
    beta: { name: 'Beta', status: 'active', services: { fetcher: config('beta') } },
    paused: { name: 'Paused', status: 'suspended', services: { fetcher: config('paused') } },
    gone: { name: 'Gone', status: 'purged', services: { fetcher: config('gone') } },
  },
};

/** Rejects with the TenantManagerError a call fails with, or fails the test. */
async function failureOf(call: Promise<unknown>): Promise<TenantManagerError> {
  const error = await call.then(() => undefined, (caught: unknown) => caught);
  if (!(error instanceof TenantManagerError)) throw new Error(`expected a TenantManagerError, got ${String(error)}`);
  return error;
}

describe('TenantManagerClient against the tenant-manager test server', () => {
  let server: TenantManagerTestServer;
  let now: number;
  const clients: TenantManagerClient[] = [];
  const client = (overrides: Partial<TenantManagerClientOptions> = {}) => {
    const sut = new TenantManagerClient({ url: server.url, apiKey: API_KEY, allowInsecureHttp: true, now: () => now, ...overrides });
    clients.push(sut);
    return sut;
  };
  const calls = (path: string) => server.requests().filter((r) => r.url === path).length;

  beforeAll(async () => {
    server = await startTenantManagerTestServer({ tenants: FILE });
  });
  beforeEach(() => {
    now = 1_000_000;
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await server?.close();
  });

  it('reads a tenant config with the API key and serves it from cache until the TTL has passed', async () => {
    const sut = client({ cacheTtlMs: 120_000, name: `ttl-${randomUUID()}` });
    const path = '/v1/tenants/acme/associations/fetcher/connections';
    const before = calls(path);
    const first = await sut.getTenantConfig('acme', 'fetcher');
    expect(first).toEqual(config('acme'));
    expect(Object.isFrozen(first.databases)).toBe(true);
    expect(server.requests().at(-1)).toEqual({ method: 'GET', url: path, apiKeyValid: true });

    now += 119_999;
    expect(await sut.getTenantConfig('acme', 'fetcher')).toBe(first);
    expect(calls(path)).toBe(before + 1);

    now += 1;
    expect(await sut.getTenantConfig('acme', 'fetcher')).toEqual(config('acme'));
    expect(calls(path)).toBe(before + 2);
  });

  it('asks again after invalidate() and for skipCache, and keeps services apart', async () => {
    const sut = client();
    const path = '/v1/tenants/acme/associations/ledger/connections';
    const before = calls(path);
    expect(await sut.getTenantConfig('acme', 'ledger')).toEqual({ id: 'acme', databases: { crm: { mongodb: { database: 'crm' } } } });
    await sut.getTenantConfig('acme', 'ledger');
    expect(calls(path)).toBe(before + 1);
    sut.invalidate('acme', 'ledger');
    await sut.getTenantConfig('acme', 'ledger');
    await sut.getTenantConfig('acme', 'ledger', { skipCache: true });
    expect(calls(path)).toBe(before + 3);
  });

  it('shares one request between concurrent misses for the same tenant and service', async () => {
    const sut = client();
    const path = '/v1/tenants/beta/associations/fetcher/connections';
    const before = calls(path);
    const results = await Promise.all(Array.from({ length: 5 }, () => sut.getTenantConfig('beta', 'fetcher')));
    expect(new Set(results).size).toBe(1);
    expect(calls(path)).toBe(before + 1);
  });

  it('fails with typed errors for suspended, purged, unknown tenants and a wrong key, and caches none of them', async () => {
    const sut = client();
    expect(await failureOf(sut.getTenantConfig('paused', 'fetcher'))).toMatchObject({
      reason: 'tenant_suspended', category: 'forbidden', tenantStatus: 'suspended', tenantId: 'paused', tenantInactive: true,
    });
    expect(await failureOf(sut.getTenantConfig('gone', 'fetcher'))).toMatchObject({ reason: 'tenant_purged', tenantStatus: 'purged' });
    expect(await failureOf(sut.getTenantConfig('nobody', 'fetcher'))).toMatchObject({ reason: 'tenant_not_found', category: 'not_found' });
    const wrongKey = client({ apiKey: 'wrong' });
    expect(await failureOf(wrongKey.getTenantConfig('acme', 'fetcher'))).toMatchObject({ reason: 'unexpected_status', httpStatus: 401 });

    const before = calls('/v1/tenants/paused/associations/fetcher/connections');
    await failureOf(sut.getTenantConfig('paused', 'fetcher'));
    expect(calls('/v1/tenants/paused/associations/fetcher/connections')).toBe(before + 1);
    expect(sut.breakerState).toBe('closed');
  });

  it('sees a tenant suspended at runtime once its cached config is bypassed or expired', async () => {
    const id = `t-${randomUUID()}`;
    server.putTenant(id, { name: id, status: 'active', services: { fetcher: config(id) } });
    const sut = client();
    await sut.getTenantConfig(id, 'fetcher');
    server.putTenant(id, { name: id, status: 'suspended', services: { fetcher: config(id) } });
    expect(await sut.getTenantConfig(id, 'fetcher')).toEqual(config(id));
    expect(await failureOf(sut.getTenantConfig(id, 'fetcher', { skipCache: true }))).toMatchObject({ reason: 'tenant_suspended' });
    // A failed read does not keep serving the old config either.
    expect(await failureOf(sut.getTenantConfig(id, 'fetcher'))).toMatchObject({ reason: 'tenant_suspended' });
  });

  it('lists the active tenants of a service, asking every time', async () => {
    const sut = client();
    const path = '/v1/tenants/active?service=fetcher';
    const before = calls(path);
    const list = await sut.getActiveTenants('fetcher');
    expect(list).toEqual(expect.arrayContaining([{ id: 'acme', name: 'Acme', status: 'active' }, { id: 'beta', name: 'Beta', status: 'active' }]));
    expect(list.map((t) => t.id)).not.toContain('paused');
    await sut.getActiveTenants('fetcher');
    expect(calls(path)).toBe(before + 2);
  });

  it('opens the breaker after the threshold of 5xx answers, fails fast without calling, and closes again on recovery', async () => {
    const sut = client({ breakerThreshold: 3, breakerTimeoutMs: 10_000 });
    await sut.getTenantConfig('acme', 'fetcher');
    server.failWith(503);
    try {
      for (let i = 0; i < 3; i++) expect(await failureOf(sut.getTenantConfig('beta', 'fetcher'))).toMatchObject({ reason: 'server_error', category: 'unavailable' });
      expect(sut.breakerState).toBe('open');
      const sent = server.requests().length;
      expect(await failureOf(sut.getTenantConfig('beta', 'fetcher'))).toMatchObject({ reason: 'circuit_open', category: 'unavailable' });
      expect(await failureOf(sut.getActiveTenants('fetcher'))).toMatchObject({ reason: 'circuit_open' });
      expect(server.requests().length).toBe(sent);
      // Cached configs are still served while the breaker is open.
      expect(await sut.getTenantConfig('acme', 'fetcher')).toEqual(config('acme'));
    } finally {
      server.failWith(undefined);
    }
    now += 10_000;
    expect(sut.breakerState).toBe('half-open');
    expect(await sut.getTenantConfig('beta', 'fetcher')).toEqual(config('beta'));
    expect(sut.breakerState).toBe('closed');
  });

  it('counts metrics per outcome when given a registry', async () => {
    const metrics = new MetricsRegistry({ defaultMetrics: false });
    const sut = client({ metrics, name: 'resolver' });
    await sut.getTenantConfig('acme', 'fetcher');
    await failureOf(sut.getTenantConfig('nobody', 'fetcher'));
    const text = await metrics.metrics();
    expect(text).toContain('tenant_manager_requests_total{client="resolver",endpoint="connections",outcome="ok"} 1');
    expect(text).toContain('tenant_manager_requests_total{client="resolver",endpoint="connections",outcome="tenant_not_found"} 1');
    expect(text).toContain('tenant_manager_request_duration_seconds_count{client="resolver",endpoint="connections"} 2');
  });

  it('refuses a body over the size cap', async () => {
    const sut = client({ maxResponseBytes: 64 });
    expect(await failureOf(sut.getTenantConfig('acme', 'fetcher'))).toMatchObject({ reason: 'bad_response' });
    expect(sut.breakerState).toBe('closed');
  });

  it('fails every call with closed after close()', async () => {
    const sut = client();
    sut.close();
    expect(await failureOf(sut.getTenantConfig('acme', 'fetcher'))).toMatchObject({ reason: 'closed' });
  });
});

describe('TenantManagerClient when the tenant-manager goes away', () => {
  let server: TenantManagerTestServer | undefined;
  let silent: Server | undefined;
  afterAll(async () => {
    await server?.close();
    silent?.closeAllConnections();
    await new Promise((resolve) => (silent ? silent.close(resolve) : resolve(undefined)));
  });

  it('opens the breaker when the server is down and recovers, without a new client, once it is back', async () => {
    server = await startTenantManagerTestServer({ tenants: FILE });
    const { port, url } = server;
    let now = 0;
    const sut = new TenantManagerClient({ url, apiKey: API_KEY, allowInsecureHttp: true, breakerThreshold: 5, breakerTimeoutMs: 30_000, now: () => now });
    expect(await sut.getTenantConfig('acme', 'fetcher')).toEqual(config('acme'));
    await server.close();

    for (let i = 0; i < 5; i++) expect(await failureOf(sut.getTenantConfig('beta', 'fetcher'))).toMatchObject({ reason: 'unreachable', category: 'unavailable' });
    expect(sut.breakerState).toBe('open');
    expect(await failureOf(sut.getActiveTenants('fetcher'))).toMatchObject({ reason: 'circuit_open' });

    server = await startTenantManagerTestServer({ tenants: FILE, port });
    // Still open: the cool-down counts from the last failure, and nothing is sent meanwhile.
    now += 29_999;
    expect(await failureOf(sut.getTenantConfig('beta', 'fetcher'))).toMatchObject({ reason: 'circuit_open' });
    expect(server.requests()).toEqual([]);
    now += 1;
    expect(await sut.getActiveTenants('fetcher')).toHaveLength(2);
    expect(sut.breakerState).toBe('closed');
    expect(await sut.getTenantConfig('beta', 'fetcher')).toEqual(config('beta'));
    sut.close();
  });

  it('gives up on a server that does not answer in time, as a timeout', async () => {
    silent = createServer(() => undefined); // accepts, never answers
    await new Promise<void>((resolve) => silent!.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    const sut = new TenantManagerClient({ url: `http://127.0.0.1:${address.port}`, apiKey: API_KEY, allowInsecureHttp: true, timeoutMs: 200 });
    expect(await failureOf(sut.getTenantConfig('acme', 'fetcher'))).toMatchObject({ reason: 'timeout', category: 'unavailable' });
    sut.close();
  });
});
