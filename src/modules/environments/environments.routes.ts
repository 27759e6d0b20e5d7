import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { EnvironmentsService } from './environments.service.ts';
import { principalOf } from '../access/access.auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { BrandParams, IdParams } from '../generation/generation.schemas.ts';
import { CreateEnvironmentBody, EnvironmentGeneration } from './environments.schemas.ts';

export interface EnvironmentsRoutesDeps {
  environments: EnvironmentsService;
}

/**
 * POST /brands/{brandId}/environment-generations and GET /environment-generations/{id} (the spec
 * leaves both paths open; docs/decisions/generation.md records them).
 */
export function environmentsRoutes(deps: EnvironmentsRoutesDeps): FastifyPluginAsync {
  const service = deps.environments;
  const tags = ['environments'];
  return async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/brands/:brandId/environment-generations',
      {
        config: { permission: 'generate' },
        schema: {
          summary: 'Generate an environment',
          description:
            'Makes a backdrop image (no product) from the prompt and the brand’s palette. Poll GET /environment-generations/{id}; ' +
            'once completed, `generatedAsset` is a complete asset of type `environment` to use as a scene forge’s environmentAssetId. ' +
            'Uses one `environment_generations` unit.',
          tags,
          params: BrandParams,
          body: CreateEnvironmentBody,
          response: {
            202: { ...EnvironmentGeneration, description: 'The pending run' },
            ...errorResponses(400, 401, 403, 404, 413, 415, 429, 500),
          },
        },
      },
      async (request, reply) =>
        reply.code(202).send(await service.create(principalOf(request), request.params.brandId, request.body)),
    );
    app.get(
      '/environment-generations/:id',
      {
        config: { longPoll: { kind: 'environment_generation', param: 'id' } },
        schema: {
          summary: 'Get an environment generation',
          description:
            '`pending` → `processing` → `completed` or `failed`; once completed, `generatedAsset` is the backdrop image (an asset of type environment) to pass to a scene forge as `environmentAssetId`. Supports `Prefer: wait=N`.',
          tags,
          params: IdParams,
          response: { 200: EnvironmentGeneration, ...errorResponses(400, 401, 403, 404, 429, 500) },
        },
      },
      async (request) => service.get(principalOf(request), request.params.id),
    );
  };
}
