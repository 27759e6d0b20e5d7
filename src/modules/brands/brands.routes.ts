import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps } from '../../app.ts';

/** Brand routes (filled in by the brands module work). */
export function brandsRoutes(_deps: AppDeps): FastifyPluginAsync {
  return async () => {};
}
