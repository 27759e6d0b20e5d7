import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../access/access.auth.ts';
import { badRequest, conflict, errorResponses, notFound } from '../../http/errors.ts';
import { Deleted } from '../../http/schemas.ts';
import { pageInfo, pageLinks, pageOffset } from '../../http/pagination.ts';
import {
  CreateEndpointBody,
  EndpointParams,
  ListDeliveriesQuery,
  ListEndpointsQuery,
  RotateSecretBody,
  TestResult,
  UpdateEndpointBody,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookEndpointWithSecret,
} from './webhooks.schemas.ts';
import {
  EndpointLimitError,
  EndpointNotFoundError,
  WebhookInputError,
  type WebhooksService,
} from './webhooks.service.ts';

/** Endpoints an organization may have through the API: every event is one POST per endpoint. */
export const MAX_ENDPOINTS_PER_ORG = 20;

/** The service's refusals in the API's error shape. */
function asHttpError(err: unknown): unknown {
  if (err instanceof EndpointNotFoundError) return notFound(err.message, 'WEBHOOK_ENDPOINT_NOT_FOUND');
  if (err instanceof WebhookInputError) {
    const fields = err.problems.map((p) => ({ field: `body.${p.field}`, message: p.message }));
    return badRequest(fields.map((f) => `${f.field} ${f.message}`).join('; '), { fields });
  }
  if (err instanceof EndpointLimitError) return conflict(err.message, 'WEBHOOK_ENDPOINT_LIMIT', { limit: err.limit });
  return err;
}
const mapped = <T>(p: Promise<T>): Promise<T> =>
  p.catch((err: unknown) => {
    throw asHttpError(err);
  });

export interface WebhooksRoutesDeps {
  webhooks: WebhooksService;
  /** The API's public base URL (Location headers). */
  config: { publicUrl: string };
}

/**
 * The organization's webhook endpoints (docs/decisions/integrations.md "Webhooks"): `webhooks:manage` only
 * (admins and owners; a member's or viewer's key gets 403), another organization's endpoint is a
 * 404. Secrets appear only in the answers of create and rotate-secret.
 */
export function webhooksRoutes(deps: WebhooksRoutesDeps): FastifyPluginAsync {
  const { webhooks } = deps;
  const baseUrl = `${deps.config.publicUrl}/v1/webhook-endpoints`;
  const config = { permission: 'webhooks:manage' } as const;
  const tags = ['webhooks'];

  return async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/webhook-endpoints',
      {
        config,
        schema: {
          summary: 'List webhook endpoints',
          description: 'The organization’s endpoints, newest first by default; secrets are never listed.',
          tags,
          querystring: ListEndpointsQuery,
          response: {
            200: { ...WebhookEndpointList, description: 'One page of endpoints' },
            ...errorResponses(400, 401, 403, 429, 500),
          },
        },
      },
      async (request) => {
        const { page, limit, sort } = request.query;
        const { data, total } = await webhooks.pageEndpoints(principalOf(request).org.id, {
          offset: pageOffset(page, limit),
          limit,
          newestFirst: sort === '-createdAt',
        });
        const pagination = pageInfo(total, page, limit);
        return { data, pagination, links: pageLinks(baseUrl, { sort }, pagination) };
      },
    );

    app.post(
      '/webhook-endpoints',
      {
        config,
        schema: {
          summary: 'Create a webhook endpoint; its signing secret is shown once',
          description:
            'Terminal transitions of the organization’s resources (`scene_forge.completed`, `video_group.failed`…) are POSTed to `url`, signed as Standard Webhooks. The URL must be http(s) without credentials; whether its host is a public address is checked at each delivery. At most 20 endpoints per organization (409 `WEBHOOK_ENDPOINT_LIMIT`).',
          tags,
          body: CreateEndpointBody,
          response: {
            201: {
              ...WebhookEndpointWithSecret,
              description: 'The endpoint with its secret (never shown again)',
              headers: { Location: Type.String({ format: 'uri' }) },
            },
            ...errorResponses(400, 401, 403, 409, 413, 415, 422, 429, 500),
          },
        },
      },
      async (request, reply) => {
        const { url, events, description } = request.body;
        const { endpoint, secret } = await mapped(
          webhooks.addEndpoint({
            orgId: principalOf(request).org.id,
            url,
            events,
            description,
            maxPerOrg: MAX_ENDPOINTS_PER_ORG,
          }),
        );
        reply.code(201).header('location', `${baseUrl}/${endpoint.id}`);
        return { ...endpoint, secret };
      },
    );

    app.get(
      '/webhook-endpoints/:endpointId',
      {
        config,
        schema: {
          summary: 'Get a webhook endpoint',
          description: 'The endpoint without its secret.',
          tags,
          params: EndpointParams,
          response: {
            200: { ...WebhookEndpoint, description: 'The endpoint' },
            ...errorResponses(400, 401, 403, 404, 429, 500),
          },
        },
      },
      async (request) => mapped(webhooks.getEndpoint(request.params.endpointId, principalOf(request).org.id)),
    );

    app.patch(
      '/webhook-endpoints/:endpointId',
      {
        config,
        schema: {
          summary: 'Update a webhook endpoint',
          description:
            'Changes the members sent: `events: null` takes every event again, `description: null` clears it, `enabled: false` pauses deliveries. Pending retries use the new URL from their next attempt.',
          tags,
          params: EndpointParams,
          body: UpdateEndpointBody,
          response: {
            200: { ...WebhookEndpoint, description: 'The updated endpoint' },
            ...errorResponses(400, 401, 403, 404, 413, 415, 429, 500),
          },
        },
      },
      async (request) =>
        mapped(webhooks.updateEndpoint(request.params.endpointId, request.body, principalOf(request).org.id)),
    );

    app.delete(
      '/webhook-endpoints/:endpointId',
      {
        config,
        schema: {
          summary: 'Delete a webhook endpoint with its delivery log',
          description: 'Pending deliveries are not sent.',
          tags,
          params: EndpointParams,
          response: {
            204: Deleted,
            ...errorResponses(400, 401, 403, 404, 429, 500),
          },
        },
      },
      async (request, reply) => {
        await mapped(webhooks.removeEndpoint(request.params.endpointId, principalOf(request).org.id));
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/webhook-endpoints/:endpointId/rotate-secret',
      {
        config,
        // No body, `null` or `{}`: the default overlap.
        preValidation: async (request) => {
          if (request.body === undefined || request.body === null) request.body = {};
        },
        schema: {
          summary: 'Rotate a webhook endpoint’s signing secret; the new one is shown once',
          description:
            'For `overlapSeconds` (default 86400, at most 604800; 0 stops the old secret at once) every delivery carries two signatures in `webhook-signature`, one per secret, so the receiver can switch to the new secret in its own time; then only the new one. Rotating again during an overlap drops the oldest secret.',
          tags,
          params: EndpointParams,
          body: RotateSecretBody,
          response: {
            200: { ...WebhookEndpointWithSecret, description: 'The endpoint with its new secret (never shown again)' },
            ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 500),
          },
        },
      },
      async (request) => {
        const { endpoint, secret } = await mapped(
          webhooks.rotateSecret(request.params.endpointId, request.body.overlapSeconds, principalOf(request).org.id),
        );
        return { ...endpoint, secret };
      },
    );

    app.post(
      '/webhook-endpoints/:endpointId/test',
      {
        config,
        schema: {
          summary: 'Send a webhook.test event to an endpoint now',
          description:
            'One signed POST, now, without retries, even to a disabled endpoint; logged like other deliveries. Answers 200 with the outcome whether or not the receiver accepted it (`status` `delivered` or `failed`, `lastStatusCode`, `lastError`).',
          tags,
          params: EndpointParams,
          response: {
            200: { ...TestResult, description: 'The test delivery and its outcome' },
            ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 500),
          },
        },
      },
      async (request) => {
        const { delivery, outcome } = await mapped(
          webhooks.sendTest(request.params.endpointId, principalOf(request).org.id),
        );
        return { ...delivery, durationMs: outcome.ms };
      },
    );

    app.get(
      '/webhook-endpoints/:endpointId/deliveries',
      {
        config,
        schema: {
          summary: 'List an endpoint’s deliveries',
          description:
            'The delivery log, newest first: status, attempts, the next attempt’s time, the last HTTP status and error.',
          tags,
          params: EndpointParams,
          querystring: ListDeliveriesQuery,
          response: {
            200: { ...WebhookDeliveryList, description: 'One page of deliveries' },
            ...errorResponses(400, 401, 403, 404, 429, 500),
          },
        },
      },
      async (request) => {
        const { endpointId } = request.params;
        const { page, limit, status } = request.query;
        const { data, total } = await mapped(
          webhooks.pageDeliveries(
            endpointId,
            { offset: pageOffset(page, limit), limit, status },
            principalOf(request).org.id,
          ),
        );
        const pagination = pageInfo(total, page, limit);
        return { data, pagination, links: pageLinks(`${baseUrl}/${endpointId}/deliveries`, { status }, pagination) };
      },
    );
  };
}
