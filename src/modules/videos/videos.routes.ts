import { withSort } from '../../http/pagination.ts';
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { VideoEnhancementsService } from './video-enhancements.service.ts';
import type { VideosService } from './videos.service.ts';
import { principalOf } from '../access/access.auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { BrandIdParams, BrandParams } from '../generation/generation.schemas.ts';
import {
  CreateVideoEnhancementBody,
  GeneratedVideosGroup,
  GeneratedVideosGroupList,
  GenerateVideoBody,
  GroupParams,
  ListVideoGroupsQuery,
  VideoEnhancement,
} from './videos.schemas.ts';

export interface VideosRoutesDeps {
  videos: VideosService;
  videoEnhancements: VideoEnhancementsService;
}

/**
 * POST /brands/{brandId}/generate-video, GET /brands/{brandId}/generated-videos-groups,
 * GET /generated-videos-groups/{id}, and POST /brands/{brandId}/image-to-video-prompt-enhancements
 * with its GET …/{id} (the spec leaves that path open; docs/decisions/generation.md records it).
 */
export function videosRoutes(deps: VideosRoutesDeps): FastifyPluginAsync {
  const service = deps.videos;
  const enhancements = deps.videoEnhancements;
  const tags = ['videos'];
  return async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/brands/:brandId/generate-video',
      {
        config: { permission: 'generate' },
        schema: {
          summary: 'Generate videos',
          description:
            'One group with one pending variation per prompt, each rendered by the model’s engine from the start frame ' +
            '(or, for video-model-8, from the references). Poll GET /generated-videos-groups/{id} until completed or failed; ' +
            'each completed variation is a `video` asset of the brand. Reserves `duration` seconds of `video_seconds` per ' +
            'prompt; a failed variation gives its seconds back. Errors: 400 INVALID_REQUEST (body, per-model rules, reference ' +
            'media), 400 invalid_argument (a complete reference video without a measured duration), 403 upgrade_required ' +
            '(over the plan tier; nothing is trimmed), 403 QUOTA_EXCEEDED, 404 BRAND_NOT_FOUND / ASSET_NOT_FOUND, 409 conflict ' +
            '(a reference video still processing), 422 ASSET_NOT_READY / ASSET_NOT_IMAGE.',
          tags,
          params: BrandParams,
          body: GenerateVideoBody,
          response: {
            202: { ...GeneratedVideosGroupList, description: 'The new group, pending' },
            ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 500),
          },
        },
      },
      async (request, reply) =>
        reply.code(202).send(await service.create(principalOf(request), request.params.brandId, request.body)),
    );
    app.get(
      '/brands/:brandId/generated-videos-groups',
      {
        schema: {
          summary: 'List generated video groups',
          description:
            "A brand's video groups (one per generate-video request), newest first, with their variations. Filter by `partner`; sort with `sort` (`createdAt`, `-createdAt`) or the spec's `sortBy`/`sortOrder`.",
          tags,
          params: BrandParams,
          querystring: ListVideoGroupsQuery,
          response: { 200: GeneratedVideosGroupList, ...errorResponses(400, 401, 403, 404, 429, 500) },
        },
      },
      async (request) =>
        service.list(principalOf(request), request.params.brandId, withSort(request.query, request.url)),
    );
    app.get(
      '/generated-videos-groups/:generatedVideosGroupId',
      {
        config: { longPoll: { kind: 'video_group', param: 'generatedVideosGroupId' } },
        schema: {
          summary: 'Get a generated video group',
          description:
            "The group's rolled-up status and one variation per prompt: once completed, `asset.url` is the MP4 and `previewUrl` a short low-resolution preview. Supports `Prefer: wait=N`.",
          tags,
          params: GroupParams,
          response: { 200: GeneratedVideosGroup, ...errorResponses(400, 401, 403, 404, 429, 500) },
        },
      },
      async (request) => service.get(principalOf(request), request.params.generatedVideosGroupId),
    );
    app.post(
      '/brands/:brandId/image-to-video-prompt-enhancements',
      {
        config: { permission: 'generate' },
        schema: {
          summary: 'Enhance an image-to-video prompt',
          description:
            'Rewrites the prompt for a video model: the subject (from the frames or references), one camera move from the ' +
            'vocabulary (dolly, orbit, push-in, pull-out, pan, tilt, crane, static), pacing beats that fit the duration, ' +
            'transitions through intermediate frames, audio cues when enableAudio, and the brand’s tone and palette when ' +
            'useBrandDna. Poll the GET until completed; send enhancedPrompt to generate-video with promptIsEnhanced true. ' +
            'Same per-model frame, reference and tier rules as generate-video (403 upgrade_required over the tier). ' +
            'Uses one `prompt_enhancements` unit.',
          tags,
          params: BrandParams,
          body: CreateVideoEnhancementBody,
          response: {
            202: { ...VideoEnhancement, description: 'The pending enhancement' },
            ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 500),
          },
        },
      },
      async (request, reply) =>
        reply.code(202).send(await enhancements.create(principalOf(request), request.params.brandId, request.body)),
    );
    app.get(
      '/brands/:brandId/image-to-video-prompt-enhancements/:id',
      {
        config: { longPoll: { kind: 'video_prompt_enhancement', param: 'id' } },
        schema: {
          summary: 'Get an image-to-video prompt enhancement',
          description:
            'Once completed, `enhancedPrompt` is the video prompt (subject, one camera move, pacing, audio cues) to send to generate-video with `promptIsEnhanced: true`. Supports `Prefer: wait=N`.',
          tags,
          params: BrandIdParams,
          response: { 200: VideoEnhancement, ...errorResponses(400, 401, 403, 404, 429, 500) },
        },
      },
      async (request) => enhancements.get(principalOf(request), request.params.brandId, request.params.id),
    );
  };
}
