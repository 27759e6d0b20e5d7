import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { type ReadinessCheck, runReadiness } from '../adapters/readiness.ts';
import { AppError, errorResponses, unauthorized } from './errors.ts';
import type { Metrics } from './metrics.ts';

const Health = Type.Object({ status: Type.String() });
const Ready = Type.Object({ status: Type.String(), checks: Type.Record(Type.String(), Type.String()) });

/**
 * Who may read `/metrics` where these routes are served: anyone (the metrics listener of its own,
 * metrics-listener.ts), the holder of ATELIER_METRICS_TOKEN (the API port when it is set), or
 * nobody: not served (the API port by default).
 */
export type MetricsAccess = 'open' | 'off' | { token: string };

/** What the ops routes read: the node's dependency checks and its metrics registry. */
export interface OpsRoutesDeps {
  /** What `/readyz` checks (database, Redis in the scaled mode, the object store). */
  readiness: ReadinessCheck[];
  metrics: Metrics;
}

/**
 * Liveness, readiness and Prometheus metrics; no API key. Readiness runs every dependency check
 * of the node (deps.readiness: database, Redis, object store) and names each: 200 when all are
 * `ok`, else 503 in the error body with the failed ones in the message and every result in
 * `details.checks`.
 */
export function opsRoutes(deps: OpsRoutesDeps, metrics: MetricsAccess): FastifyPluginAsync {
  const allowed = metrics === 'open' || metrics === 'off' ? () => true : tokenCheck(metrics.token);
  return async (app) => {
    const common = { config: { auth: false }, schema: { hide: true } } as const;
    app.get('/healthz', { ...common, schema: { hide: true, response: { 200: Health } } }, async () => ({
      status: 'ok',
    }));
    app.get(
      '/readyz',
      { ...common, schema: { hide: true, response: { 200: Ready, ...errorResponses(503) } } },
      async () => {
        const checks = await runReadiness(deps.readiness);
        const failed = Object.entries(checks).filter(([, r]) => r !== 'ok');
        if (failed.length > 0) {
          throw new AppError(
            503,
            'SERVICE_UNAVAILABLE',
            `Not ready: ${failed.map(([n, r]) => `${n} (${r})`).join('; ')}`,
            {
              checks,
            },
          );
        }
        return { status: 'ready', checks };
      },
    );
    if (metrics === 'off') return;
    app.get('/metrics', common, async (request, reply) => {
      if (!allowed(request)) throw unauthorized('/metrics needs the metrics token: Authorization: Bearer <token>');
      reply.type(deps.metrics.registry.contentType);
      return deps.metrics.registry.metrics();
    });
  };
}

/** Whether a request carries the token (compared as digests, in constant time). */
function tokenCheck(token: string): (request: FastifyRequest) => boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  const expected = digest(token);
  return (request) => {
    const given = /^Bearer (\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    return given !== undefined && timingSafeEqual(digest(given), expected);
  };
}
