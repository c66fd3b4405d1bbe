import type { TenantPoolDisposeReason, TenantPoolStats } from '@fetcher/platform';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ReconcileResult } from './tenant-reconciler';

/** The per-tenant pools, by the `pool` label their metrics carry. */
export type TenantPoolsStats = Readonly<Record<'mongodb' | 'rabbitmq', { stats(): TenantPoolStats }>>;

/** Why a pool let a tenant's resource go, as counted: `closed` (shutdown) is left out. */
const DISPOSE_REASONS: readonly TenantPoolDisposeReason[] = ['lru', 'idle', 'evicted'];

/**
 * The reconciler's metrics, and the occupancy and evictions of the per-tenant pools (read from the
 * pools at scrape time); no tenant label, so their size does not grow with the tenant count.
 */
export class TenantConsumerMetrics {
  readonly #passes: Counter<'service' | 'result'>;
  readonly #duration: Histogram;

  constructor(registry: Registry, consuming: () => number, pools?: TenantPoolsStats) {
    const registers = [registry];
    this.#passes = new Counter({
      name: 'worker_tenant_reconcile_total',
      help: 'Tenant reconcile passes, by result (ok, or tm_unreachable when the active-tenant list failed).',
      labelNames: ['service', 'result'],
      registers,
    });
    this.#duration = new Histogram({
      name: 'worker_tenant_reconcile_duration_seconds',
      help: 'How long a tenant reconcile pass took.',
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10],
      registers,
    });
    new Gauge({
      name: 'worker_tenant_consumer_active',
      help: 'Tenants whose work-queue consumer is running on this Worker.',
      registers,
      collect() {
        this.set(consuming());
      },
    });
    if (pools) registerPoolMetrics(registry, pools);
  }

  recordPass(result: ReconcileResult, durationSec: number): void {
    this.#passes.inc({ service: 'fetcher', result });
    this.#duration.observe(durationSec);
  }
}

function registerPoolMetrics(registry: Registry, pools: TenantPoolsStats): void {
  const registers = [registry];
  const entries = Object.entries(pools);
  new Gauge({
    name: 'worker_tenant_pool_size',
    help: 'Tenants with a database client (pool="mongodb") or vhost connection (pool="rabbitmq") open on this Worker; MULTI_TENANT_MAX_TENANT_POOLS caps it softly.',
    labelNames: ['pool'],
    registers,
    collect() {
      for (const [pool, p] of entries) this.set({ pool }, p.stats().size);
    },
  });
  new Counter({
    name: 'worker_tenant_pool_evictions_total',
    help: 'Tenant database clients and vhost connections closed by their pool, by reason: lru (over the cap), idle (MULTI_TENANT_IDLE_TIMEOUT_SEC), evicted (the tenant was removed).',
    labelNames: ['pool', 'reason'],
    registers,
    collect() {
      // The pools count; a scrape copies their totals, which only ever grow.
      this.reset();
      for (const [pool, p] of entries) {
        const { disposed } = p.stats();
        for (const reason of DISPOSE_REASONS) this.inc({ pool, reason }, disposed[reason]);
      }
    },
  });
}
