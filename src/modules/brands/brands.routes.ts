import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../adapters/db/database.ts';
import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import { errorResponses } from '../../http/errors.ts';
import { Deleted } from '../../http/schemas.ts';
import { principalOf } from '../access/access.auth.ts';
import {
  Brand,
  BrandList,
  BrandParams,
  CreateBrandBody,
  IfMatchHeaders,
  ListBrandsQuery,
  UpdateBrandBody,
} from './brands.schemas.ts';
import type { BrandsService } from './brands.service.ts';
import { deleteBrand } from './brands.delete.ts';
import { ifNoneMatchHit } from '../../http/etag.ts';
import { serializedOnce } from '../../http/serialized-once.ts';
import { pageLinks } from '../../http/pagination.ts';

/** Brand reads are per-user and change often: caches must revalidate (ETag) every time. */
const CACHE_CONTROL = 'private, no-cache';

const etagHeader = { ETag: Type.String({ description: 'Strong entity tag of the representation' }) };
const cacheHeader = { 'Cache-Control': Type.String({ description: CACHE_CONTROL }) };

export interface BrandsRoutesDeps {
  brands: BrandsService;
  /** What a brand's deletion reads and removes (brands.delete.ts). */
  db: Database;
  storage: ObjectStorage;
  /** The API's public base URL (Location headers). */
  config: { publicUrl: string };
}

/** POST/GET/PUT /brands, and DELETE (console-only: API keys get 403). */
export function brandsRoutes(deps: BrandsRoutesDeps): FastifyPluginAsync {
  const service = deps.brands;
  const brandsUrl = `${deps.config.publicUrl}/v1/brands`;
  const sendBrand = serializedOnce();

  return async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/brands',
      {
        config: { permission: 'brands:write' },
        schema: {
          summary: 'Create a brand',
          description:
            'A brand holds its assets, Brand DNA and generations. `name`, `industry` and `description` are required; tone words come from a fixed list. Answers 201 with the brand, its `version` (send it back as `If-Match` when updating) and a `Location` header.',
          tags: ['brands'],
          body: CreateBrandBody,
          response: {
            201: {
              ...Brand,
              description: 'The created brand',
              headers: { Location: Type.String({ format: 'uri' }), ...etagHeader },
            },
            ...errorResponses(400, 401, 403, 413, 415, 422, 429, 500),
          },
        },
      },
      async (request, reply) => {
        const { brand, etag } = await service.create(principalOf(request), request.body);
        reply.code(201).header('location', `${brandsUrl}/${brand.id}`).header('etag', etag);
        return brand;
      },
    );

    app.get(
      '/brands',
      {
        schema: {
          summary: 'List brands',
          description:
            'The brands of your organization, newest first by default, `limit` to a page with `links` to the next and previous pages. `sort` takes `name`, `createdAt` and their `-` (descending) forms; `industry` filters by exact industry, case-insensitive.',
          tags: ['brands'],
          querystring: ListBrandsQuery,
          response: {
            200: { ...BrandList, description: 'One page of brands', headers: cacheHeader },
            ...errorResponses(400, 401, 403, 429, 500),
          },
        },
      },
      async (request, reply) => {
        const q = request.query;
        const { data, pagination } = await service.list(principalOf(request), q);
        const links = pageLinks(
          brandsUrl,
          {
            all_organizations: q.all_organizations ? 'true' : undefined,
            sort: q.sort,
            industry: q.industry,
          },
          pagination,
        );
        reply.header('cache-control', CACHE_CONTROL);
        return { data, pagination, links };
      },
    );

    app.get(
      '/brands/:brandId',
      {
        schema: {
          summary: 'Get a brand',
          description: 'Send If-None-Match with an earlier ETag to get 304 when the brand is unchanged.',
          tags: ['brands'],
          params: BrandParams,
          response: {
            200: { ...Brand, description: 'The brand', headers: { ...etagHeader, ...cacheHeader } },
            304: { type: 'null', description: 'Not modified: the If-None-Match ETag is current' },
            ...errorResponses(400, 401, 403, 404, 429, 500),
          },
        },
      },
      async (request, reply) => {
        const { brand, etag } = await service.get(principalOf(request), request.params.brandId);
        reply.header('etag', etag).header('cache-control', CACHE_CONTROL);
        if (ifNoneMatchHit(request.headers['if-none-match'], etag)) return reply.code(304).send(null);
        return sendBrand(reply, brand);
      },
    );

    app.put(
      '/brands/:brandId',
      {
        config: { permission: 'brands:write' },
        schema: {
          summary: 'Update a brand',
          description:
            'Requires If-Match with the ETag of an earlier get or update (or *). Members left out are unchanged; ' +
            'null on name, industry or description leaves them unchanged, null mission is "", null values, tone ' +
            'or voice is [], null logoAssetId removes the logo.',
          tags: ['brands'],
          params: BrandParams,
          headers: IfMatchHeaders,
          body: UpdateBrandBody,
          response: {
            200: { ...Brand, description: 'The updated brand', headers: etagHeader },
            ...errorResponses(400, 401, 403, 404, 412, 413, 415, 422, 429, 500),
          },
        },
      },
      async (request, reply) => {
        const { brand, etag } = await service.update(
          principalOf(request),
          request.params.brandId,
          request.headers['if-match'],
          request.body,
        );
        reply.header('etag', etag);
        return brand;
      },
    );

    app.delete(
      '/brands/:brandId',
      {
        config: { surface: 'console', permission: 'brands:delete' },
        schema: {
          summary: 'Delete a brand with its assets, extractions, Brand DNA and generations (console only)',
          tags: ['console'],
          params: BrandParams,
          response: {
            204: Deleted,
            ...errorResponses(400, 401, 403, 404, 409, 429, 500),
          },
        },
      },
      async (request, reply) => {
        await deleteBrand(deps.db, deps.storage, principalOf(request).org.id, request.params.brandId);
        return reply.code(204).send(null);
      },
    );
  };
}
