import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { createJobMetrics } from '../jobs/job-metrics.ts';
import { createHttpMetrics } from './http-metrics.ts';

/** Prometheus metrics of one app instance (its own registry, so tests do not share counters). */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Requests and their duration by route: counted by http-metrics.ts, written by the registry.
  const http = createHttpMetrics(registry);
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
  return { registry, http, longPollHeld, longPollRefused, jobs };
}

export type Metrics = ReturnType<typeof createMetrics>;

export function installMetrics(app: FastifyInstance, m: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, never the raw URL, so ids do not explode the label set.
    m.http.observe(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
