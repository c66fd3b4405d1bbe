import { Counter, Histogram, Registry } from 'prom-client';
import { HTTP_DURATION_BUCKETS, HttpRequestMetrics } from './http-metrics';

const LABELS = ['method', 'route', 'status_code'] as const;

/** The same answers, recorded the way prom-client records them and the way HttpRequestMetrics does. */
const ANSWERS: [string, string, number, number][] = [
  ['GET', '/v1/fetcher/:id', 200, 0.0004],
  ['GET', '/v1/fetcher/:id', 200, 0.012],
  ['GET', '/v1/fetcher/:id', 404, 0.005],
  ['POST', '/v1/fetcher', 202, 0.3],
  ['GET', 'unmatched', 404, 31],
  ['GET', '/v1/fetcher/:id', 200, 2.5],
];

describe(HttpRequestMetrics.name, () => {
  it('writes the exposition prom-client writes for a histogram and a counter with the same answers', async () => {
    const expected = new Registry();
    const histogram = new Histogram({ name: 'http_request_duration_seconds', help: 'HTTP request duration in seconds.', labelNames: LABELS, buckets: [...HTTP_DURATION_BUCKETS], registers: [expected] });
    const counter = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered.', labelNames: LABELS, registers: [expected] });
    const actual = new Registry();
    const metrics = new HttpRequestMetrics();
    metrics.registerIn(actual);

    for (const [method, route, status, seconds] of ANSWERS) {
      const labels = { method, route, status_code: String(status) };
      histogram.observe(labels, seconds);
      counter.inc(labels);
      metrics.record(method, route, status, seconds);
    }

    expect(await actual.metrics()).toBe(await expected.metrics());
  });

  it('starts again from nothing when the registry is reset', async () => {
    const registry = new Registry();
    const metrics = new HttpRequestMetrics();
    metrics.registerIn(registry);
    metrics.record('GET', '/health', 200, 0.001);
    registry.resetMetrics();
    expect(await registry.metrics()).not.toContain('route="/health"');
  });
});
