import { type MetricsRegistry } from './metrics-registry';

/** The route label of requests no route matched (bounded cardinality: never the URL). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Counts and times one answered HTTP request, labelled by route template rather than by URL. */
export function recordHttpRequest(metrics: MetricsRegistry, method: string, route: string, statusCode: number, seconds: number): void {
  const labels = { method, route, status_code: String(statusCode) };
  metrics.httpRequestDuration.observe(labels, seconds);
  metrics.httpRequests.inc(labels);
}
