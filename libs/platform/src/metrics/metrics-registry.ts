import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { HttpRequestMetrics } from './http-metrics';

/** Buckets of `readyz_check_duration_ms`, in milliseconds. */
export const READYZ_BUCKETS_MS = Object.freeze([1, 5, 10, 25, 50, 100, 250, 500, 1000, 2000, 5000]);

/**
 * The process's Prometheus registry, served at `/metrics`: readiness metrics, HTTP request metrics and
 * the default process metrics. Apps register their own metrics here (`counter()`, `gauge()`,
 * `histogram()` return the existing metric when asked twice for the same name). A registry per
 * instance, rather than prom-client's global one, keeps test applications in one process apart.
 */
export class MetricsRegistry extends Registry {
  readonly readyzCheckDuration: Histogram<'dep' | 'status'>;
  readonly readyzCheckStatus: Counter<'dep' | 'status'>;
  readonly selfprobeResult: Gauge<'dep'>;
  /** `http_request_duration_seconds` and `http_requests_total`, recorded by the request hooks. */
  readonly http = new HttpRequestMetrics();

  constructor(options: { defaultMetrics?: boolean } = {}) {
    super();
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this });
    this.readyzCheckDuration = this.histogram('readyz_check_duration_ms', 'Duration of readiness checks in milliseconds.', ['dep', 'status'], [...READYZ_BUCKETS_MS]);
    this.readyzCheckStatus = this.counter('readyz_check_status', 'Readiness check results by dependency and status.', ['dep', 'status']);
    this.selfprobeResult = this.gauge('selfprobe_result', 'Startup self-probe result per dependency (1 passed, 0 failed).', ['dep']);
    this.http.registerIn(this);
  }

  counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return (this.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter({ name, help, labelNames, registers: [this] });
  }

  gauge<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Gauge<L> {
    return (this.getSingleMetric(name) as Gauge<L> | undefined) ?? new Gauge({ name, help, labelNames, registers: [this] });
  }

  histogram<L extends string>(name: string, help: string, labelNames: readonly L[] = [], buckets?: number[]): Histogram<L> {
    return (this.getSingleMetric(name) as Histogram<L> | undefined) ?? new Histogram({ name, help, labelNames, registers: [this], ...(buckets ? { buckets } : {}) });
  }
}
