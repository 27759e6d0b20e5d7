import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Database } from '../../adapters/db/database.ts';
import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import type { Clock } from '../../clock.ts';
import { principalOf } from '../access/access.auth.ts';
import { errorResponses, fieldError } from '../../http/errors.ts';
import { Deleted, textProblem } from '../../http/schemas.ts';
import {
  AssetIdParams,
  AssetListResponse,
  AssetSchema,
  BrandIdParams,
  CancelUploadResponse,
  MAX_TAG_FILTERS,
  ConfirmUploadBody,
  InitiateUploadBody,
  InitiateUploadResponse,
  ListAssetsQuery,
  UploadIdParams,
} from './assets.schemas.ts';
import type { AssetsService } from './assets.service.ts';
import { deleteAsset } from './assets.delete.ts';

export interface AssetsRoutesDeps {
  db: Database;
  storage: ObjectStorage;
  clock: Clock;
  assets: AssetsService;
}

/** The spec's upload flow and asset reads, and asset deletion (console-only: API keys get 403). */
export function assetsRoutes(deps: AssetsRoutesDeps): FastifyPluginAsync {
  const service = deps.assets;
  return async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    const tags = ['assets'];

    app.post(
      '/assets/initiate-upload',
      {
        config: { permission: 'assets:write' },
        schema: {
          summary: 'Start uploading files: returns one upload link per file',
          description:
            'Send each file with `uploadMethod` to `uploadUrl` with `uploadHeaders` and no API key, then call confirm-upload.',
          tags,
          body: InitiateUploadBody,
          response: { 201: InitiateUploadResponse, ...errorResponses(400, 401, 403, 404, 413, 415, 429, 500) },
        },
      },
      async (request, reply) => {
        const result = await service.initiateUpload(principalOf(request), request.body);
        return reply.code(201).send(result);
      },
    );

    app.post(
      '/assets/confirm-upload',
      {
        config: { permission: 'assets:write' },
        schema: {
          summary: 'Confirm an upload: checks the bytes and starts processing',
          description:
            'Call once the bytes were PUT to the `uploadUrl` of initiate-upload. The stored object is checked against the declared size and type, then processed (dimensions, thumbnail, cut-out readiness): the asset goes `processing` → `complete` or `failed`. Poll GET /assets/{assetId} (or `Prefer: wait=N`).',
          tags,
          body: ConfirmUploadBody,
          response: { 200: AssetSchema, ...errorResponses(400, 401, 403, 404, 429, 500) },
        },
      },
      async (request) => service.confirmUpload(principalOf(request), request.body),
    );

    app.post(
      '/assets/cancel-upload/:uploadId',
      {
        config: { permission: 'assets:write' },
        schema: {
          summary: 'Cancel an upload and remove its temporary data',
          description:
            'For an upload that was initiated but not confirmed: the asset becomes `canceled` and any bytes already stored are removed. A confirmed upload cannot be canceled (409).',
          tags,
          params: UploadIdParams,
          response: { 200: CancelUploadResponse, ...errorResponses(400, 401, 403, 404, 429, 500) },
        },
      },
      async (request) => service.cancelUpload(principalOf(request), request.params.uploadId),
    );

    app.get(
      '/assets/:assetId',
      {
        config: { longPoll: { kind: 'asset', param: 'assetId' } },
        schema: {
          summary: 'Read an asset (fresh signed links on every read)',
          description:
            'Status, metadata (type, dimensions, duration, tags) and short-lived signed `url`/`thumbnailUrl` links, fresh on every read. Supports `Prefer: wait=N` while the asset is processing.',
          tags,
          params: AssetIdParams,
          response: { 200: AssetSchema, ...errorResponses(400, 401, 404, 429, 500) },
        },
      },
      async (request) => service.get(principalOf(request), request.params.assetId),
    );

    app.delete(
      '/assets/:assetId',
      {
        config: { surface: 'console', permission: 'assets:delete' },
        schema: {
          summary: 'Delete an asset and its stored files (console only)',
          tags: ['console'],
          params: AssetIdParams,
          response: {
            204: Deleted,
            ...errorResponses(400, 401, 403, 404, 409, 429, 500),
          },
        },
      },
      async (request, reply) => {
        await deleteAsset(
          deps.db,
          deps.storage,
          principalOf(request).org.id,
          request.params.assetId,
          deps.clock().toISOString(),
        );
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/brands/:brandId/assets',
      {
        schema: {
          summary: "List a brand's assets, grouped by category",
          description: 'Repeat `tags` (`?tags=a&tags=b`) or separate them with commas; an asset must carry every tag.',
          tags,
          params: BrandIdParams,
          querystring: ListAssetsQuery,
          response: { 200: AssetListResponse, ...errorResponses(400, 401, 404, 429, 500) },
        },
      },
      async (request) => {
        const q = request.query;
        const tagList = q.tags
          ?.flatMap((t) => t.split(','))
          .map((t) => t.trim())
          .filter(Boolean);
        if (tagList && tagList.length > MAX_TAG_FILTERS) {
          throw fieldError('query.tags', `must NOT have more than ${MAX_TAG_FILTERS} tags`);
        }
        if (tagList?.some((t) => [...t].length > 100))
          throw fieldError('query.tags', 'must NOT have a tag over 100 characters');
        const problem = tagList?.map((t) => textProblem(t)).find(Boolean);
        if (problem) throw fieldError('query.tags', problem);
        return service.list(principalOf(request), request.params.brandId, {
          ...q,
          ...(tagList ? { tags: tagList } : {}),
        });
      },
    );
  };
}
