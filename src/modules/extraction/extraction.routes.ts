import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../access/access.auth.ts';
import { errorResponses } from '../../http/errors.ts';
import {
  CommitBody,
  CommitResponse,
  ExtractionIdParams,
  ExtractionSchema,
  ReadExtractionQuery,
  SubmitExtractionBody,
} from './extraction.schemas.ts';
import type { ExtractionService } from './extraction.service.ts';

/**
 * URL extraction: submit (202, `pending`), read (fresh preview links on every read), delete (204)
 * and commit candidates into assets. Every route needs the plan's `url_extraction` feature.
 */
export function extractionRoutes(deps: { extraction: ExtractionService }): FastifyPluginAsync {
  const service = deps.extraction;
  return async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    const tags = ['assets'];

    app.post(
      '/assets/extract-from-url',
      {
        config: { permission: 'generate', feature: 'url_extraction' },
        schema: {
          summary: 'Extract candidate assets from a public web page',
          description:
            'Returns at once with status `pending` and no `candidates`; poll the extraction until `completed` or `failed`. ' +
            'At most the plan’s number of runs per organization may be pending or processing at once (429 with Retry-After).',
          tags,
          body: SubmitExtractionBody,
          response: { 202: ExtractionSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 429, 500) },
        },
      },
      async (request, reply) => reply.code(202).send(await service.submit(principalOf(request), request.body)),
    );

    app.get(
      '/assets/extract-from-url/:extractionId',
      {
        config: { feature: 'url_extraction', longPoll: { kind: 'extraction', param: 'extractionId' } },
        schema: {
          summary: 'Read an extraction; candidates once completed, best first',
          description:
            '`pending` → `processing` → `completed` or `failed`. Once completed, the ranked candidates (products, logos, lifestyle images) with their scores and whether they are kept by default; commit the ones you want. Supports `Prefer: wait=N`.',
          tags,
          params: ExtractionIdParams,
          querystring: ReadExtractionQuery,
          response: { 200: ExtractionSchema, ...errorResponses(400, 401, 403, 404, 429, 500) },
        },
      },
      async (request) => service.get(principalOf(request), request.params.extractionId, request.query.includeRejected),
    );

    app.delete(
      '/assets/extract-from-url/:extractionId',
      {
        config: { permission: 'generate', feature: 'url_extraction' },
        schema: {
          summary: 'Delete an extraction, its candidates and staged copies (committed assets stay)',
          description:
            'Removes the extraction and every staged candidate copy. Assets already committed from it stay in the brand. A running extraction is stopped first.',
          tags,
          params: ExtractionIdParams,
          response: {
            204: Type.Null({ description: 'Deleted' }),
            ...errorResponses(400, 401, 403, 404, 429, 500),
          },
        },
      },
      async (request, reply) => {
        await service.remove(principalOf(request), request.params.extractionId);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/assets/extract-from-url/:extractionId/commit',
      {
        config: { permission: 'assets:write', feature: 'url_extraction' },
        // No body, `null` or `{}` all mean "commit every kept candidate".
        preValidation: async (request) => {
          if (request.body === undefined || request.body === null) request.body = {};
        },
        schema: {
          summary: 'Commit candidates into assets',
          description:
            'Without `items`, every kept candidate is committed and none is a logo. Candidates are promoted one at a time ' +
            'in ranked order; the first failure answers 422 COMMIT_FAILED naming the candidate, and earlier ones stay committed.',
          tags,
          params: ExtractionIdParams,
          body: CommitBody,
          response: { 200: CommitResponse, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 500) },
        },
      },
      async (request) => service.commit(principalOf(request), request.params.extractionId, request.body),
    );
  };
}
