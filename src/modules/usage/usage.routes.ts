import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { principalOf } from '../access/access.auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { Type } from 'typebox';
import { FEATURES, type Feature, type PlanCatalog, POOLS, type Pool } from './plans.ts';
import { FeatureUsageResponse } from './usage.schemas.ts';
import type { UsageService } from './usage.service.ts';

const Cap = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]);
const PlanView = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  features: Type.Object(
    Object.fromEntries(FEATURES.map((f) => [f, Type.Boolean()])) as Record<Feature, ReturnType<typeof Type.Boolean>>,
  ),
  /** Units per billing period; null when unlimited. */
  pools: Type.Object(Object.fromEntries(POOLS.map((p) => [p, Cap])) as Record<Pool, typeof Cap>),
});
const PlansResponse = Type.Object({
  /** The organization's plan slug. */
  current: Type.String(),
  /** Every plan of the catalog, in its order (the console names the ones that unlock a feature). */
  data: Type.Array(PlanView),
});

export interface UsageRoutesDeps {
  /** Feature usage (usage.service.ts). */
  usage: UsageService;
  plans: PlanCatalog;
}

/**
 * GET /organizations/current/feature-usage: any role of the organization may read it.
 * GET /organizations/current/plans (console only, hidden): the plan catalog, so the console can
 * show a feature the plan lacks as such, with the plans that include it.
 */
export function usageRoutes(deps: UsageRoutesDeps): FastifyPluginAsync {
  const service = deps.usage;
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
    app.withTypeProvider<TypeBoxTypeProvider>().get(
      '/organizations/current/plans',
      {
        config: { surface: 'console', permission: 'read' },
        schema: {
          hide: true,
          summary: 'The plan catalog and the organization’s plan (console only)',
          tags: ['console'],
          response: { 200: PlansResponse, ...errorResponses(401, 403, 429) },
        },
      },
      async (request) => ({
        current: principalOf(request).org.planSlug,
        data: deps.plans.slugs().flatMap((slug) => {
          const plan = deps.plans.get(slug);
          return plan ? [{ slug, name: plan.name, features: plan.features, pools: plan.pools }] : [];
        }),
      }),
    );
  };
}
