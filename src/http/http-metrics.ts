import type { Registry } from 'prom-client';

/** The request duration histogram's upper bounds (seconds). */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] as const;

const REQUESTS = {
  name: 'atelier_http_requests_total',
  help: 'HTTP requests by method, route and status',
};
const DURATION = {
  name: 'atelier_http_request_duration_seconds',
  help: 'HTTP request duration by method and route',
};

/** One method on one route: its answers by status, and its durations. */
interface Series {
  readonly method: string;
  readonly route: string;
  readonly byStatus: Map<number, number>;
  /** Observations per bucket (not cumulative); the last one is +Inf. */
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

interface MetricValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

export interface HttpMetrics {
  /** One answered request: its method, route pattern ('unmatched' when none), status and duration. */
  observe(method: string, route: string, status: number, seconds: number): void;
}

/**
 * The HTTP request metrics, `atelier_http_requests_total` (method, route, status) and
 * `atelier_http_request_duration_seconds` (method, route), registered on `registry` and written by
 * it like prom-client's own Counter and Histogram, to the byte (http-metrics.test.ts compares
 * them). They are counted here because prom-client's build a label string and hash it at every
 * observation, which was a tenth of an authenticated GET's own work (bench/http); here a request
 * costs three map lookups. The registry reads them through `get()`, the shape prom-client's metrics
 * give it (its MetricObjectWithValues).
 */
export function createHttpMetrics(registry: Registry): HttpMetrics {
  const byRoute = new Map<string, Map<string, Series>>();
  // First-seen order, as prom-client lists label sets.
  const seriesInOrder: Series[] = [];
  const statusesInOrder: [Series, number][] = [];

  const seriesOf = (method: string, route: string): Series => {
    let methods = byRoute.get(route);
    if (!methods) {
      methods = new Map();
      byRoute.set(route, methods);
    }
    let series = methods.get(method);
    if (!series) {
      series = {
        method,
        route,
        byStatus: new Map(),
        buckets: new Float64Array(DURATION_BUCKETS.length + 1),
        sum: 0,
        count: 0,
      };
      methods.set(method, series);
      seriesInOrder.push(series);
    }
    return series;
  };

  const register = (metric: { name: string; help: string; type: string; values: () => MetricValue[] }) => {
    const { values, ...head } = metric;
    // prom-client's Registry takes any object with a name and get(); its type names its own classes.
    registry.registerMetric({ ...head, get: async () => ({ ...head, aggregator: 'sum', values: values() }) } as never);
  };

  register({
    ...REQUESTS,
    type: 'counter',
    values: () =>
      statusesInOrder.map(([s, status]) => ({
        labels: { method: s.method, route: s.route, status: String(status) },
        value: s.byStatus.get(status)!,
      })),
  });

  register({
    ...DURATION,
    type: 'histogram',
    values: () =>
      seriesInOrder.flatMap((s) => {
        const labels = { method: s.method, route: s.route };
        let acc = 0;
        const buckets = DURATION_BUCKETS.map((le, i) => {
          acc += s.buckets[i]!;
          return { labels: { le, ...labels }, value: acc, metricName: `${DURATION.name}_bucket` };
        });
        return [
          ...buckets,
          { labels: { le: '+Inf', ...labels }, value: s.count, metricName: `${DURATION.name}_bucket` },
          { labels, value: s.sum, metricName: `${DURATION.name}_sum` },
          { labels, value: s.count, metricName: `${DURATION.name}_count` },
        ];
      }),
  });

  return {
    observe(method, route, status, seconds) {
      const series = seriesOf(method, route);
      const n = series.byStatus.get(status);
      if (n === undefined) statusesInOrder.push([series, status]);
      series.byStatus.set(status, (n ?? 0) + 1);
      let i = 0;
      while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]!) i++;
      series.buckets[i]!++;
      series.sum += seconds;
      series.count++;
    },
  };
}
