import { Counter, type Metric, type Registry } from 'prom-client';

/** Latency buckets (seconds): the API answers in well under a millisecond to a few hundred. */
export const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
] as const;

/**
 * One (route pattern, method)'s answered requests: counts by status and a latency histogram, kept as
 * plain numbers. Recording one costs a few additions; prom-client's own counters hash their labels
 * and validate them on every call, a measurable share of a cached response. prom-client reads
 * these figures only when /metrics is scraped (see registerRequestSeries).
 */
export class RequestSeries {
  readonly byStatus = new Map<number, number>();
  /** per bucket, not cumulative; the last one is above the largest bound (+Inf only) */
  readonly buckets: number[] = new Array<number>(LATENCY_BUCKETS.length + 1).fill(0);
  sum = 0;
  count = 0;

  constructor(
    readonly route: string,
    readonly method: string,
  ) {}

  observe(status: number, seconds: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    let bucket = 0;
    // `le` is inclusive, as in prom-client
    while (bucket < LATENCY_BUCKETS.length && seconds > (LATENCY_BUCKETS[bucket] ?? 0)) bucket++;
    this.buckets[bucket] = (this.buckets[bucket] ?? 0) + 1;
    this.sum += seconds;
    this.count++;
  }
}

/** Every (route, method) seen so far, one series each, found by one string key. */
export class RequestSeriesSet {
  private readonly series = new Map<string, RequestSeries>();

  for(route: string, method: string): RequestSeries {
    const key = `${route}\u0000${method}`;
    let found = this.series.get(key);
    if (!found) {
      found = new RequestSeries(route, method);
      this.series.set(key, found);
    }
    return found;
  }

  values(): IterableIterator<RequestSeries> {
    return this.series.values();
  }
}

interface Sample {
  value: number;
  labels: Record<string, string | number>;
  metricName: string;
}

/**
 * Publishes `set` in `registry` as `hub_http_requests_total{route,method,status}` (a prom-client
 * counter filled from the series at each scrape) and `hub_http_request_duration_seconds{route,method}`
 * (a histogram in Prometheus's exposition format, built from the series at each scrape).
 */
export function registerRequestSeries(registry: Registry, set: RequestSeriesSet): void {
  new Counter({
    name: 'hub_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const s of set.values()) {
        for (const [status, n] of s.byStatus)
          this.inc({ route: s.route, method: s.method, status: String(status) }, n);
      }
    },
  });
  const name = 'hub_http_request_duration_seconds';
  const help = 'Time from the request arriving to its response being sent, by route pattern and method';
  const get = () => {
    const values: Sample[] = [];
    for (const s of set.values()) {
      const labels = { route: s.route, method: s.method };
      let cumulative = 0;
      LATENCY_BUCKETS.forEach((le, i) => {
        cumulative += s.buckets[i] ?? 0;
        values.push({ value: cumulative, labels: { ...labels, le }, metricName: `${name}_bucket` });
      });
      values.push({ value: s.count, labels: { ...labels, le: '+Inf' }, metricName: `${name}_bucket` });
      values.push({ value: s.sum, labels, metricName: `${name}_sum` });
      values.push({ value: s.count, labels, metricName: `${name}_count` });
    }
    return Promise.resolve({ name, help, type: 'histogram', values, aggregator: 'sum' });
  };
  // The registry reads a metric through get(); prom-client has no histogram filled from outside.
  const histogram = { name, help, type: 'histogram', aggregator: 'sum', get, reset: () => undefined };
  registry.registerMetric(histogram as unknown as Metric);
}
