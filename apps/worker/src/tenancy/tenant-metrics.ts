import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ReconcileResult } from './tenant-reconciler';

/** The reconciler's metrics; no tenant label, so their size does not grow with the tenant count. */
export class TenantConsumerMetrics {
  readonly #passes: Counter<'service' | 'result'>;
  readonly #duration: Histogram;

  constructor(registry: Registry, consuming: () => number) {
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
  }

  recordPass(result: ReconcileResult, durationSec: number): void {
    this.#passes.inc({ service: 'fetcher', result });
    this.#duration.observe(durationSec);
  }
}
