import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { EnhancementsService } from './enhancements.service.ts';
import { principalOf } from '../access/access.auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { BrandIdParams, BrandParams } from '../generation/generation.schemas.ts';
import { CreateSceneEnhancementBody, SceneEnhancement } from './enhancements.schemas.ts';

export interface EnhancementsRoutesDeps {
  enhancements: EnhancementsService;
}

/** POST/GET /brands/{brandId}/scene-forge-prompt-enhancements. */
export function enhancementsRoutes(deps: EnhancementsRoutesDeps): FastifyPluginAsync {
  const service = deps.enhancements;
  const tags = ['prompt-enhancements'];
  const base = '/brands/:brandId/scene-forge-prompt-enhancements';
  return async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      base,
      {
        config: { permission: 'generate' },
        schema: {
          summary: 'Enhance a scene prompt',
          description:
            'Rewrites the prompt into a full scene description from the products, the environment, the active Brand DNA and the partner. ' +
            'Poll the GET until `completed`, then send `optimizedPrompt` as a forge’s blendingPrompt with promptIsEnhanced true ' +
            '(or `originalPrompt` with false to undo). Uses one `prompt_enhancements` unit.',
          tags,
          params: BrandParams,
          body: CreateSceneEnhancementBody,
          response: {
            202: { ...SceneEnhancement, description: 'The pending enhancement' },
            ...errorResponses(400, 401, 403, 404, 413, 415, 422, 429, 500),
          },
        },
      },
      async (request, reply) =>
        reply.code(202).send(await service.createScene(principalOf(request), request.params.brandId, request.body)),
    );
    app.get(
      `${base}/:id`,
      {
        config: { longPoll: { kind: 'scene_prompt_enhancement', param: 'id' } },
        schema: {
          summary: 'Get a scene prompt enhancement',
          description:
            'Once completed, `optimizedPrompt` is the brief to send to a scene forge with `promptIsEnhanced: true`; `originalPrompt` is kept to undo. Supports `Prefer: wait=N`.',
          tags,
          params: BrandIdParams,
          response: { 200: SceneEnhancement, ...errorResponses(400, 401, 403, 404, 429, 500) },
        },
      },
      async (request) => service.getScene(principalOf(request), request.params.brandId, request.params.id),
    );
  };
}
