import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { AppDeps } from '../app-deps.ts';
import { errorResponses, serviceUnavailable } from './errors.ts';

const Health = Type.Object({ status: Type.String() });

/** Liveness, readiness (checks the database) and Prometheus metrics; no API key. */
export function opsRoutes(deps: Pick<AppDeps, 'db' | 'metrics'>): FastifyPluginAsync {
  return async (app) => {
    const common = { config: { auth: false }, schema: { hide: true } } as const;
    app.get('/healthz', { ...common, schema: { hide: true, response: { 200: Health } } }, async () => ({
      status: 'ok',
    }));
    app.get(
      '/readyz',
      { ...common, schema: { hide: true, response: { 200: Health, ...errorResponses(503) } } },
      async () => {
        try {
          await deps.db.ping();
        } catch {
          throw serviceUnavailable('Database unavailable');
        }
        return { status: 'ready' };
      },
    );
    app.get('/metrics', common, async (_req, reply) => {
      reply.type(deps.metrics.registry.contentType);
      return deps.metrics.registry.metrics();
    });
  };
}
