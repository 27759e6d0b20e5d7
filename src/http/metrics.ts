import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { createJobMetrics } from '../jobs/job-metrics.ts';

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
  const longPollHeld = new Gauge({
    name: 'atelier_long_poll_held',
    help: 'GET requests held by Prefer: wait (long-poll) right now',
    registers: [registry],
  });
  const longPollRefused = new Counter({
    name: 'atelier_long_poll_refused_total',
    help: 'Prefer: wait requests answered at once because a cap was reached (process, key) or the app was closing',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  // Jobs: what this process runs (the drivers report to jobs.observer) and the queues' depth.
  const jobs = createJobMetrics(registry);
  return { registry, requests, duration, longPollHeld, longPollRefused, jobs };
}

export type Metrics = ReturnType<typeof createMetrics>;

export function installMetrics(app: FastifyInstance, m: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, never the raw URL, so ids do not explode the label set.
    const route = request.routeOptions.url ?? 'unmatched';
    m.requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    m.duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    done();
  });
}
