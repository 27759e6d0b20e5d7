import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { AppDeps } from '../app-deps.ts';
import { runReadiness } from '../adapters/readiness.ts';
import { AppError, errorResponses } from './errors.ts';

const Health = Type.Object({ status: Type.String() });
const Ready = Type.Object({ status: Type.String(), checks: Type.Record(Type.String(), Type.String()) });

/**
 * Liveness, readiness and Prometheus metrics; no API key. Readiness runs every dependency check
 * of the node (AppDeps.readiness: database, Redis, object store) and names each: 200 when all are
 * `ok`, else 503 in the error body with the failed ones in the message and every result in
 * `details.checks`.
 */
export function opsRoutes(deps: Pick<AppDeps, 'readiness' | 'metrics'>): FastifyPluginAsync {
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
    app.get('/metrics', common, async (_req, reply) => {
      reply.type(deps.metrics.registry.contentType);
      return deps.metrics.registry.metrics();
    });
  };
}
