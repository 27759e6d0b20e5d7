import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps } from '../../app.ts';

/** GET /organizations/current/feature-usage (filled in by the usage module work). */
export function usageRoutes(_deps: AppDeps): FastifyPluginAsync {
  return async () => {};
}
