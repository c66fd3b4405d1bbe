import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { FaultProxy } from '../testing';
import type { TenantEventHandler } from './tenant-event-dispatcher';
import { TenantEventListener } from './tenant-event-listener';

/** A handler that records the tenants removed, and resolves a waiter per tenant. */
function recordingHandler() {
  const removed: string[] = [];
  const waiters = new Map<string, () => void>();
  const handler: TenantEventHandler = {
    ownsTenant: () => true,
    removeTenant: (tenantId) => {
      removed.push(tenantId);
      waiters.get(tenantId)?.();
      return Promise.resolve();
    },
    addTenant: () => Promise.resolve(),
    reloadTenant: () => Promise.resolve(),
    refreshTenant: () => Promise.resolve(),
  };
  const removal = (tenantId: string) => new Promise<void>((resolve) => waiters.set(tenantId, resolve));
  return { handler, removed, removal };
}

/**
 * The tenant-event listener with Redis behind a fault proxy that refuses every dial when the
 * listener starts. It must not fail the start, must say it is not subscribed meanwhile (readiness),
 * and must subscribe, and hear events, once Redis answers again.
 */
describe('TenantEventListener when Redis is unreachable at startup', () => {
  // A channel of its own: `staging` and `production` channels are shared with the other suites.
  const environment = `it${randomUUID().slice(0, 8)}`;
  const channel = `tenant-events:${environment}:`;
  const proxy = new FaultProxy(6379);
  let publisher: Redis;

  beforeAll(async () => {
    await proxy.start();
    publisher = new Redis({ host: '127.0.0.1', port: 6379 });
  });

  afterAll(async () => {
    publisher?.disconnect();
    await proxy.close();
  });

  const suspend = (tenantId: string) =>
    publisher.publish(channel, JSON.stringify({ event_id: randomUUID(), event_type: 'tenant.suspended', tenant_id: tenantId, timestamp: new Date().toISOString() }));

  it('starts anyway, reports itself unsubscribed, then subscribes once Redis is back and handles events', async () => {
    await proxy.refuse();
    const { handler, removed, removal } = recordingHandler();
    let subscribedLate: () => void = () => undefined;
    const late = new Promise<void>((resolve) => (subscribedLate = resolve));
    const sut = new TenantEventListener({
      redis: { host: '127.0.0.1', port: proxy.port }, environment, handler, onSubscribed: () => subscribedLate(),
      logger: { log: () => undefined, warn: () => undefined },
    });
    try {
      expect(await sut.start()).toBe(false);
      expect(sut.subscribed).toBe(false);
      await expect(sut.ping()).rejects.toThrow('not subscribed to tenant events');
      // Nothing published while it is away reaches it (Pub/Sub keeps nothing): this one is lost.
      await suspend('missed');

      await proxy.heal();
      await late;
      expect(sut.subscribed).toBe(true);
      await expect(sut.ping()).resolves.toBe('PONG');
      const heard = removal('acme');
      expect(await suspend('acme')).toBeGreaterThanOrEqual(1);
      await heard;
      expect(removed).toEqual(['acme']);
    } finally {
      await sut.close();
    }
  });

  it('subscribes again after losing the connection, and says so', async () => {
    await proxy.heal();
    const { handler, removal } = recordingHandler();
    let resubscribed: () => void = () => undefined;
    const again = new Promise<void>((resolve) => (resubscribed = resolve));
    const sut = new TenantEventListener({
      redis: { host: '127.0.0.1', port: proxy.port }, environment, handler, onSubscribed: () => resubscribed(),
      logger: { log: () => undefined, warn: () => undefined },
    });
    try {
      expect(await sut.start()).toBe(true);
      expect(sut.subscribed).toBe(true);
      proxy.cut();
      proxy.restore();
      await again;
      const heard = removal('globex');
      await suspend('globex');
      await heard;
    } finally {
      await sut.close();
    }
  });

  it('closes cleanly while still trying to subscribe', async () => {
    await proxy.refuse();
    const { handler } = recordingHandler();
    const sut = new TenantEventListener({
      redis: { host: '127.0.0.1', port: proxy.port }, environment, handler, logger: { log: () => undefined, warn: () => undefined },
    });
    expect(await sut.start()).toBe(false);
    // Resolves although the subscribe waits for a Redis that is not there (QUIT would wait with it).
    await sut.close();
    await proxy.heal();
    expect(sut.subscribed).toBe(false);
    await expect(sut.ping()).rejects.toThrow('not subscribed to tenant events');
  });
});
