import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppDeps } from '../../app-deps.ts';
import { principalOf } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { FeatureUsageResponse } from './usage.schemas.ts';
import { createUsageService } from './usage.service.ts';

/** GET /organizations/current/feature-usage: any role of the organization may read it. */
export function usageRoutes(deps: Pick<AppDeps, 'usage' | 'plans'>): FastifyPluginAsync {
  const service = createUsageService(deps);
  return async (app) => {
    app.withTypeProvider<TypeBoxTypeProvider>().get(
      '/organizations/current/feature-usage',
      {
        schema: {
          summary: 'Feature usage of the calling organization',
          description:
            'Per pool: units used this billing period (calendar month, UTC), the cap (-1 when unlimited) and what is left, with whether the plan or an override sets the cap; the pool closest to its cap; and which plan features are enabled.',
          tags: ['usage'],
          response: { 200: FeatureUsageResponse, ...errorResponses(401, 429, 500) },
        },
      },
      async (request) => ({ status: 'success' as const, data: await service.featureUsage(principalOf(request).org) }),
    );
  };
}
