import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createHttpMetrics, DURATION_BUCKETS } from './http-metrics.ts';

type Observation = [method: string, route: string, status: number, seconds: number];

/** The same metrics made by prom-client's own Counter and Histogram: the oracle. */
async function byPromClient(observations: Observation[]): Promise<string> {
  const registry = new Registry();
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
    buckets: [...DURATION_BUCKETS],
    registers: [registry],
  });
  for (const [method, route, status, seconds] of observations) {
    requests.inc({ method, route, status: String(status) });
    duration.observe({ method, route }, seconds);
  }
  return registry.metrics();
}

async function byUs(observations: Observation[]): Promise<string> {
  const registry = new Registry();
  const metrics = createHttpMetrics(registry);
  for (const o of observations) metrics.observe(...o);
  return registry.metrics();
}

describe('createHttpMetrics', () => {
  it('writes what prom-client writes for the same requests', async () => {
    const observations: Observation[] = [
      ['GET', '/v1/brands/:brandId', 200, 0.0004],
      ['GET', '/v1/brands/:brandId', 304, 0.001],
      ['POST', '/v1/brands', 201, 0.012],
      ['GET', '/v1/brands/:brandId', 200, 7.5],
      ['GET', 'unmatched', 404, 0.0025],
      ['GET', '/v1/a "quoted\\ route\n', 500, 0.3],
    ];
    expect(await byUs(observations)).toBe(await byPromClient(observations));
  });

  it('writes nothing but the headers before the first request', async () => {
    expect(await byUs([])).toBe(await byPromClient([]));
  });

  it('matches prom-client for any requests (fast-check)', async () => {
    const observation = fc.tuple(
      fc.constantFrom('GET', 'POST', 'DELETE', 'HEAD'),
      fc.constantFrom('/v1/brands', '/v1/brands/:brandId', 'unmatched', '/v1/scenes/:sceneId'),
      fc.constantFrom(200, 201, 304, 400, 404, 429, 500),
      fc.oneof(fc.constantFrom(...DURATION_BUCKETS, 0, 10), fc.double({ min: 0, max: 20, noNaN: true })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(observation, { maxLength: 60 }), async (observations) => {
        expect(await byUs(observations)).toBe(await byPromClient(observations));
      }),
      { numRuns: 200 },
    );
  });
});
