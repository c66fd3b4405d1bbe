import type { Counter, Histogram } from 'prom-client';
import type { MetricsRegistry } from '../metrics/metrics-registry';

/** Calls to the tenant-manager per client, endpoint and outcome (`ok` or an error reason). */
export class TenantManagerMetrics {
  readonly #requests: Counter<'client' | 'endpoint' | 'outcome'>;
  readonly #duration: Histogram<'client' | 'endpoint'>;

  constructor(registry: MetricsRegistry, private readonly client: string) {
    this.#requests = registry.counter('tenant_manager_requests_total', 'Calls to the tenant-manager by client, endpoint and outcome.', ['client', 'endpoint', 'outcome']);
    this.#duration = registry.histogram('tenant_manager_request_duration_seconds', 'Duration of tenant-manager calls that were sent, in seconds.', ['client', 'endpoint']);
  }

  /** `seconds` is absent for calls the breaker refused: nothing was sent. */
  record(endpoint: string, outcome: string, seconds?: number): void {
    this.#requests.inc({ client: this.client, endpoint, outcome });
    if (seconds !== undefined) this.#duration.observe({ client: this.client, endpoint }, seconds);
  }
}
