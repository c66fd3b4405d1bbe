import { randomUUID } from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- an integration spec, not app code: it runs the in-process Mongo test server
import { startMongoTestServer, type MongoTestServer } from '@fetcher/mongo-test-server';
import { FaultProxy } from '@fetcher/platform/testing';
import { startTenantManagerTestServer, type TenantManagerTestServer, type TenantRecord } from '@fetcher/tenant-manager-test-server';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import { loadManagerConfig } from '../../config/manager.config';
import { createManagerApp } from '../../http/http-app';
import { aSigningKey, aTenantToken, managerTestEnv, type TestSigningKey } from '../../testing';

interface Readyz {
  readonly status: number;
  readonly checks: Record<string, { status: string }>;
}

/**
 * The Manager in multi-tenant mode started while the tenant-events Redis refuses every dial (a fault
 * proxy in front of it). It starts and serves tenants all the same, reports `multi_tenant_redis` down,
 * and once Redis answers it subscribes: a suspension event then takes effect at once, not when the
 * tenant's cached config expires.
 */
describe('the Manager in multi-tenant mode with the tenant-events Redis down at startup', () => {
  const suffix = randomUUID().slice(0, 8);
  const tenant = `acme${suffix}`;
  const apiKey = `key-${suffix}`;
  const redis = new FaultProxy(6379);
  let mongo: MongoTestServer;
  let tm: TenantManagerTestServer;
  let key: TestSigningKey;
  let app: NestFastifyApplication;
  let base: string;

  const record = (status: TenantRecord['status']): TenantRecord => ({
    name: tenant, status,
    services: { fetcher: { id: tenant, tenantSlug: tenant, databases: { fetcher: { mongodb: { uri: mongo.uri, database: `mt_${suffix}` } } } } },
  });

  beforeAll(async () => {
    await redis.start();
    await redis.refuse();
    mongo = await startMongoTestServer();
    tm = await startTenantManagerTestServer({ tenants: { apiKey, tenants: { [tenant]: record('active') } } });
    key = await aSigningKey(`redis-down-${suffix}`);
    const config = loadManagerConfig(managerTestEnv(mongo.uri, {
      ENV_NAME: 'staging',
      MULTI_TENANT_ENABLED: 'true',
      MULTI_TENANT_URL: tm.url,
      MULTI_TENANT_SERVICE_API_KEY: apiKey,
      MULTI_TENANT_ALLOW_INSECURE_HTTP: 'true',
      MULTI_TENANT_REDIS_HOST: '127.0.0.1',
      MULTI_TENANT_REDIS_PORT: String(redis.port),
      MULTI_TENANT_JWT_PUBLIC_KEY: Buffer.from(key.publicPem).toString('base64'),
    }));
    app = await createManagerApp(config, { logger: false, redisKeyPrefix: `redis-down:${suffix}:` });
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  });

  afterAll(async () => {
    await app?.close();
    await tm?.close();
    await mongo?.close();
    await redis.close();
  });

  const readyz = async (): Promise<Readyz> => {
    const res = await fetch(`${base}/readyz`);
    return { status: res.status, checks: ((await res.json()) as { checks: Readyz['checks'] }).checks };
  };
  const listConnections = async () => (await fetch(`${base}/v1/management/connections`, {
    headers: { authorization: `Bearer ${await aTenantToken(key, tenant)}`, 'x-product-name': 'reporter' },
  })).status;

  it('serves tenants with multi_tenant_redis down, then subscribes once Redis is back and acts on a suspension at once', async () => {
    expect(await listConnections()).toBe(200); // the tenant's config is cached now, for 120 s
    const down = await readyz();
    expect(down.status).toBe(503);
    expect(down.checks.multi_tenant_redis).toMatchObject({ status: 'down' });

    await redis.heal();
    const deadline = Date.now() + 30_000;
    let up = await readyz();
    while (up.checks.multi_tenant_redis?.status !== 'up' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      up = await readyz();
    }
    expect(up.checks.multi_tenant_redis).toMatchObject({ status: 'up' });

    tm.putTenant(tenant, record('suspended'));
    const publisher = new Redis({ host: '127.0.0.1', port: 6379 });
    try {
      expect(await publisher.publish('tenant-events:staging:', JSON.stringify({
        event_id: randomUUID(), event_type: 'tenant.service.suspended', tenant_id: tenant, timestamp: new Date().toISOString(), payload: { service_name: 'fetcher' },
      }))).toBeGreaterThanOrEqual(1);
    } finally {
      publisher.disconnect();
    }
    // Without the subscription the cached config would keep admitting the tenant; bounded wait for the listener.
    const until = Date.now() + 10_000;
    let status = await listConnections();
    while (status === 200 && Date.now() < until) status = await listConnections();
    expect(status).toBe(403);
  });
});
