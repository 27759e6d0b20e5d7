import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../access/access.auth.ts';
import { errorResponses } from '../../http/errors.ts';
import {
  BrandParams,
  CreateVersionBody,
  DetailEnvelope,
  LegacyEnvelope,
  ListEnvelope,
  RerunBody,
  SummaryEnvelope,
  UpdateVersionBody,
  VersionParams,
} from './brand-dna.schemas.ts';
import type { BrandDnaService } from './brand-dna.service.ts';

const ok = <T>(data: T) => ({ status: 'success' as const, data });
const NoContent = Type.Null({ description: 'Done; no body' });

export interface BrandDnaRoutesDeps {
  brandDna: BrandDnaService;
}

/**
 * The Brand DNA endpoints under /brands/{brandId}/brand-dna and the legacy GET /brands/{brandId}/dna.
 * Every route needs the plan feature `brand_dna` (403 otherwise, reads included); writes need the
 * `brand-dna:write` permission.
 */
export function brandDnaRoutes(deps: BrandDnaRoutesDeps): FastifyPluginAsync {
  const service = deps.brandDna;
  const read = { feature: 'brand_dna' } as const;
  const write = { feature: 'brand_dna', permission: 'brand-dna:write' } as const;
  const tags = ['brand-dna'];
  const base = '/brands/:brandId/brand-dna';

  return async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    // A create or rerun sent without a body names no sources: NO_SOURCES rather than "body is required".
    const emptyBodyIsNoSources = async (request: { body: unknown }) => {
      request.body ??= {};
    };

    app.get(
      `${base}/versions`,
      {
        config: read,
        schema: {
          summary: 'List Brand DNA versions',
          description: 'Newest first (highest versionNumber), without the DNA payload.',
          tags,
          params: BrandParams,
          response: { 200: ListEnvelope, ...errorResponses(400, 401, 403, 404, 429, 500) },
        },
      },
      async (request) => ok(await service.list(principalOf(request), request.params.brandId)),
    );

    app.post(
      `${base}/versions`,
      {
        config: write,
        preValidation: emptyBodyIsNoSources,
        schema: {
          summary: 'Create a Brand DNA version',
          description:
            'Extracts a Brand DNA from URLs and complete assets. Returns the version `pending`; poll it until `ready` or `failed`. ' +
            'Uses one unit of `brand_dna_extractions`.',
          tags,
          params: BrandParams,
          body: CreateVersionBody,
          response: { 200: SummaryEnvelope, ...errorResponses(400, 401, 403, 404, 413, 415, 422, 429, 500) },
        },
      },
      async (request) => ok(await service.create(principalOf(request), request.params.brandId, request.body)),
    );

    app.get(
      `${base}/active`,
      {
        config: read,
        schema: {
          summary: 'Get the active Brand DNA version',
          description: '`dna` is null while the active version is `pending` or `extracting` (a rerun).',
          tags,
          params: BrandParams,
          response: { 200: DetailEnvelope, ...errorResponses(400, 401, 403, 404, 429, 500) },
        },
      },
      async (request) => ok(await service.getActive(principalOf(request), request.params.brandId)),
    );

    app.get(
      `${base}/versions/:versionId`,
      {
        config: {
          ...read,
          longPoll: {
            kind: 'brand_dna_version',
            param: 'versionId',
            status: (body) => (body as { data?: { status?: string } }).data?.status,
          },
        },
        schema: {
          summary: 'Get a Brand DNA version',
          description:
            '`pending` → `extracting` → `ready` or `failed`; once ready, the DNA (palette, typography, imagery, voice, values) with the sources each fact came from. Supports `Prefer: wait=N`.',
          tags,
          params: VersionParams,
          response: { 200: DetailEnvelope, ...errorResponses(400, 401, 403, 404, 429, 500) },
        },
      },
      async (request) => ok(await service.get(principalOf(request), request.params.brandId, request.params.versionId)),
    );

    app.put(
      `${base}/versions/:versionId`,
      {
        config: write,
        schema: {
          summary: 'Update a Brand DNA version',
          description:
            'Send `updatedAt` as last returned (409 STALE_UPDATE otherwise) and `name`, `dna` or both. `dna` replaces the ' +
            'whole payload (only on `ready` versions) and recomputes `preview`; confidenceScore and missingFields do not change.',
          tags,
          params: VersionParams,
          body: UpdateVersionBody,
          response: { 200: SummaryEnvelope, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 500) },
        },
      },
      async (request) =>
        ok(await service.update(principalOf(request), request.params.brandId, request.params.versionId, request.body)),
    );

    app.delete(
      `${base}/versions/:versionId`,
      {
        config: write,
        schema: {
          summary: 'Delete a Brand DNA version',
          description: 'Any version but the active one; a running extraction is stopped and its unit given back.',
          tags,
          params: VersionParams,
          response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409, 429, 500) },
        },
      },
      async (request, reply) => {
        await service.remove(principalOf(request), request.params.brandId, request.params.versionId);
        return reply.code(204).send(null);
      },
    );

    app.post(
      `${base}/versions/:versionId/activate`,
      {
        config: write,
        schema: {
          summary: 'Activate a Brand DNA version',
          description: 'Only `ready` versions; activating the active version again changes nothing.',
          tags,
          params: VersionParams,
          response: { 200: SummaryEnvelope, ...errorResponses(400, 401, 403, 404, 409, 429, 500) },
        },
      },
      async (request) =>
        ok(await service.activate(principalOf(request), request.params.brandId, request.params.versionId)),
    );

    app.post(
      `${base}/versions/:versionId/cancel`,
      {
        config: write,
        schema: {
          summary: 'Cancel a Brand DNA extraction',
          description: 'Deletes a `pending` or `extracting` version; the running extraction stops.',
          tags,
          params: VersionParams,
          response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409, 429, 500) },
        },
      },
      async (request, reply) => {
        await service.cancel(principalOf(request), request.params.brandId, request.params.versionId);
        return reply.code(204).send(null);
      },
    );

    app.post(
      `${base}/versions/:versionId/rerun`,
      {
        config: write,
        preValidation: emptyBodyIsNoSources,
        schema: {
          summary: 'Rerun a Brand DNA extraction',
          description:
            'On a `ready` or `failed` version: replaces its sources and extracts again, keeping versionNumber and isActive. ' +
            'Poll the version until `ready`. Uses one unit of `brand_dna_extractions`.',
          tags,
          params: VersionParams,
          body: RerunBody,
          response: { 202: SummaryEnvelope, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 500) },
        },
      },
      async (request, reply) => {
        const data = await service.rerun(
          principalOf(request),
          request.params.brandId,
          request.params.versionId,
          request.body,
        );
        return reply.code(202).send(ok(data));
      },
    );

    app.get(
      '/brands/:brandId/dna',
      {
        config: read,
        schema: {
          summary: 'Get the Brand DNA (legacy view)',
          description:
            'The active version as `{ brandId, status, version, brandDna, sourceAssetIds }`; `status` is `none` without one.',
          tags,
          params: BrandParams,
          response: { 200: LegacyEnvelope, ...errorResponses(400, 401, 403, 404, 429, 500) },
        },
      },
      async (request) => ok(await service.legacy(principalOf(request), request.params.brandId)),
    );
  };
}
