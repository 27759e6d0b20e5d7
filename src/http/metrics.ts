import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** Prometheus metrics of one app instance (its own registry, so tests do not share counters). */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'atelier_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'atelier_http_request_duration_seconds',
    help: 'HTTP request duration by method and route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return { registry, requests, duration };
}

export type Metrics = ReturnType<typeof createMetrics>;

export function installMetrics(app: FastifyInstance, m: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, never the raw URL, so ids do not explode the label set.
    const route = request.routeOptions.url ?? 'unmatched';
    m.requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    m.duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });
}
