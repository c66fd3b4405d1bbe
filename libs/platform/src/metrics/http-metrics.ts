import type { Metric, Registry } from 'prom-client';

/** What prom-client's registry reads from a metric when it is scraped (its own types for this are not exported). */
interface ScrapedValue {
  readonly labels: Readonly<Record<string, string | number>>;
  readonly value: number;
  readonly metricName?: string;
}
interface ScrapedMetric {
  readonly name: string;
  readonly help: string;
  readonly type: 'histogram' | 'counter';
  readonly values: ScrapedValue[];
  readonly aggregator: 'sum';
}

/** The route label of requests no route matched (bounded cardinality: never the URL). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Upper bounds of `http_request_duration_seconds`, in seconds. */
export const HTTP_DURATION_BUCKETS: readonly number[] = Object.freeze([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]);

type HttpLabel = 'method' | 'route' | 'status_code';
type HttpLabels = Readonly<Record<HttpLabel, string>>;

/** One label set: counts per bucket (not cumulative), sum and count. */
interface Series {
  readonly labels: HttpLabels;
  readonly buckets: number[];
  sum: number;
  count: number;
}

/**
 * `http_request_duration_seconds` (histogram) and `http_requests_total` (counter), by method, route
 * template and status. Every answer is recorded here, so recording is a map lookup and three
 * additions; the exposition is built when `/metrics` is scraped, in prom-client's own format.
 * (prom-client's `observe()` and `inc()` validate and hash the label set on every call, which cost a
 * measurable part of a fast request.)
 */
export class HttpRequestMetrics {
  readonly #series = new Map<string, Series>();

  record(method: string, route: string, statusCode: number, seconds: number): void {
    const key = `${method} ${statusCode} ${route}`;
    let series = this.#series.get(key);
    if (series === undefined) {
      series = { labels: { method, route, status_code: String(statusCode) }, buckets: HTTP_DURATION_BUCKETS.map(() => 0), sum: 0, count: 0 };
      this.#series.set(key, series);
    }
    series.sum += seconds;
    series.count += 1;
    const bucket = bucketOf(seconds);
    if (bucket < HTTP_DURATION_BUCKETS.length) series.buckets[bucket] += 1;
  }

  /** Adds both metrics to `registry` (prom-client asks each registered metric for its values when scraped). */
  registerIn(registry: Registry): void {
    registry.registerMetric(scrapedMetric('http_request_duration_seconds', 'HTTP request duration in seconds.', 'histogram', () => this.#durationValues(), () => this.reset()));
    registry.registerMetric(scrapedMetric('http_requests_total', 'HTTP requests answered.', 'counter', () => this.#countValues(), () => this.reset()));
  }

  reset(): void {
    this.#series.clear();
  }

  /** Per label set: the cumulative buckets, `+Inf`, sum and count, as prom-client lists a histogram. */
  #durationValues(): ScrapedValue[] {
    const name = 'http_request_duration_seconds';
    const values: ScrapedValue[] = [];
    for (const series of this.#series.values()) {
      let cumulative = 0;
      HTTP_DURATION_BUCKETS.forEach((le, i) => {
        cumulative += series.buckets[i];
        values.push({ labels: { le, ...series.labels }, value: cumulative, metricName: `${name}_bucket` });
      });
      values.push({ labels: { le: '+Inf', ...series.labels }, value: series.count, metricName: `${name}_bucket` });
      values.push({ labels: { ...series.labels }, value: series.sum, metricName: `${name}_sum` });
      values.push({ labels: { ...series.labels }, value: series.count, metricName: `${name}_count` });
    }
    return values;
  }

  #countValues(): ScrapedValue[] {
    return [...this.#series.values()].map((series) => ({ labels: { ...series.labels }, value: series.count }));
  }
}

/**
 * A metric as prom-client's registry uses it: a name, its values when scraped, and a reset. (The
 * registry's Metric type lists prom-client's own classes only.)
 */
function scrapedMetric(name: string, help: string, type: ScrapedMetric['type'], values: () => ScrapedValue[], reset: () => void): Metric {
  const metric = { name, help, type, aggregator: 'sum', get: (): Promise<ScrapedMetric> => Promise.resolve({ name, help, type, values: values(), aggregator: 'sum' }), reset };
  return metric as unknown as Metric;
}

/** Index of the first bucket whose upper bound holds `seconds` (the bucket count when none does). */
function bucketOf(seconds: number): number {
  let i = 0;
  while (i < HTTP_DURATION_BUCKETS.length && seconds > HTTP_DURATION_BUCKETS[i]) i += 1;
  return i;
}
