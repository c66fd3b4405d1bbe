import { randomUUID } from 'node:crypto';
import { FaultProxy } from '@fetcher/platform/testing';
import { Redis } from 'ioredis';
import { type MultiTenantWorld, startMultiTenantWorld } from '../testing/multi-tenant-world';
import { TenantConsumers } from './tenant-consumers';

interface Readyz {
  readonly status: number;
  readonly checks: Record<string, { status: string; error?: string }>;
}

/**
 * The Worker in multi-tenant mode started while the tenant-events Redis refuses every dial (a fault
 * proxy in front of it). It starts and consumes for every active tenant all the same, reports
 * `multi_tenant_redis` down meanwhile, and once Redis answers it subscribes and acts on tenant events.
 */
describe('the Worker in multi-tenant mode with the tenant-events Redis down at startup', () => {
  const suffix = randomUUID().slice(0, 6);
  const acme = `acme${suffix}`;
  const beta = `beta${suffix}`;
  const redis = new FaultProxy(6379);
  let w: MultiTenantWorld;

  beforeAll(async () => {
    await redis.start();
    await redis.refuse();
    w = await startMultiTenantWorld([acme, beta], ['rows'], { MULTI_TENANT_REDIS_PORT: String(redis.port) });
  });

  afterAll(async () => {
    await w?.close();
    await redis.close();
  });

  const readyz = async (): Promise<Readyz> => {
    const res = await fetch(`http://127.0.0.1:${w.port}/readyz`);
    return { status: res.status, checks: ((await res.json()) as { checks: Readyz['checks'] }).checks };
  };

  it('starts and consumes for every tenant, with multi_tenant_redis down; subscribes once Redis is back and stops a suspended tenant', async () => {
    const consumers = w.app.get(TenantConsumers);
    expect(consumers.consuming().sort()).toEqual([acme, beta].sort());
    const down = await readyz();
    expect(down.status).toBe(503);
    expect(down.checks.multi_tenant_redis).toMatchObject({ status: 'down' });
    expect(down.checks.tenant_manager).toMatchObject({ status: 'up' });

    await redis.heal();
    // Readiness is polled as a probe would: it turns up once the listener has subscribed.
    const deadline = Date.now() + 30_000;
    let up = await readyz();
    while (up.checks.multi_tenant_redis?.status !== 'up' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      up = await readyz();
    }
    expect(up).toMatchObject({ status: 200, checks: { multi_tenant_redis: { status: 'up' } } });

    const stopped = consumers.whenStopped(acme);
    w.tm.putTenant(acme, { ...w.record(acme), status: 'suspended' });
    const publisher = new Redis({ host: '127.0.0.1', port: 6379 });
    try {
      expect(await publisher.publish('tenant-events:staging:', JSON.stringify({ event_type: 'tenant.suspended', tenant_id: acme, timestamp: new Date().toISOString() }))).toBeGreaterThanOrEqual(1);
    } finally {
      publisher.disconnect();
    }
    await stopped;
    expect(consumers.consuming()).toEqual([beta]);
  });
});
