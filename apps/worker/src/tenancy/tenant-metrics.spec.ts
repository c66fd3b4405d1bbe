import type { TenantPoolStats } from '@fetcher/platform';
import { Registry } from 'prom-client';
import { TenantConsumerMetrics } from './tenant-metrics';

describe(TenantConsumerMetrics.name, () => {
  const stats = (size: number, lru: number, idle: number, evicted: number): TenantPoolStats =>
    ({ size, opened: size + lru + idle + evicted, disposed: { lru, idle, evicted, closed: 3 } });

  it('reports each pool\'s size and its evictions by reason at scrape time, without a tenant label', async () => {
    const registry = new Registry();
    let mongo = stats(8, 5, 1, 0);
    new TenantConsumerMetrics(registry, () => 20, { mongodb: { stats: () => mongo }, rabbitmq: { stats: () => stats(20, 0, 0, 2) } });

    const first = await registry.metrics();
    expect(first).toContain('worker_tenant_consumer_active 20');
    expect(first).toContain('worker_tenant_pool_size{pool="mongodb"} 8');
    expect(first).toContain('worker_tenant_pool_size{pool="rabbitmq"} 20');
    expect(first).toContain('worker_tenant_pool_evictions_total{pool="mongodb",reason="lru"} 5');
    expect(first).toContain('worker_tenant_pool_evictions_total{pool="mongodb",reason="idle"} 1');
    expect(first).toContain('worker_tenant_pool_evictions_total{pool="rabbitmq",reason="evicted"} 2');
    expect(first).not.toContain('reason="closed"');

    mongo = stats(7, 9, 1, 0);
    const second = await registry.metrics();
    expect(second).toContain('worker_tenant_pool_evictions_total{pool="mongodb",reason="lru"} 9');
    expect(second).toContain('worker_tenant_pool_size{pool="mongodb"} 7');
  });
});
