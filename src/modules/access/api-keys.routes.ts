import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Clock } from '../../clock.ts';
import { principalOf } from './access.auth.ts';
import { conflict, errorResponses, fieldError, notFound } from '../../http/errors.ts';
import type { AccessService, Principal } from './access.service.ts';
import type { ApiKeyInfo } from './access.service.ts';
import type { AtelierEnv } from './access.keys.ts';
import { can } from './access.roles.ts';

const ApiKey = Type.Object(
  {
    keyId: Type.String({ description: 'Public key id (the `<keyId>` of `atl_<env>_<keyId>.<secret>`)' }),
    prefix: Type.String({ description: 'The token up to its secret, `atl_<env>_<keyId>`, to recognise a key' }),
    name: Type.String(),
    env: Type.String({ description: 'The environment the key works in (the server’s ATELIER_ENV)' }),
    userId: Type.String({ format: 'uuid', description: 'The owner; the key acts with their live role' }),
    status: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('revoked')]),
    createdAt: Type.String({ format: 'date-time' }),
    expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'ApiKey' },
);
const ApiKeyWithToken = Type.Object(
  {
    ...ApiKey.properties,
    token: Type.String({ description: 'The whole API key, shown only in this answer: store it now' }),
  },
  { title: 'ApiKeyWithToken' },
);
const KeyParams = Type.Object({ keyId: Type.String({ minLength: 1, maxLength: 64 }) });
const CreateKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    env: Type.Optional(Type.Union([Type.Literal('dev'), Type.Literal('staging'), Type.Literal('prod')])),
    expiresAt: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
  },
  { additionalProperties: false },
);

export interface ApiKeysRoutesDeps {
  access: AccessService;
  clock: Clock;
  /** The server's environment (ATELIER_ENV): the only one its keys are minted for. */
  config: { env: AtelierEnv };
}

/**
 * API keys for signed-in console users (console-only: API keys get 403). Anyone signed in creates
 * and manages their own keys; `keys:manage` (admin, owner) sees and manages every key of the
 * organization. A key the caller may not see is a 404.
 */
export function apiKeysRoutes(deps: ApiKeysRoutesDeps): FastifyPluginAsync {
  const { access } = deps;
  const present = (k: ApiKeyInfo) => ({
    keyId: k.keyId,
    prefix: `atl_${k.env}_${k.keyId}`,
    name: k.name,
    env: k.env,
    userId: k.userId,
    status: k.revokedAt
      ? ('revoked' as const)
      : k.expiresAt && k.expiresAt <= deps.clock().toISOString()
        ? ('expired' as const)
        : ('active' as const),
    createdAt: k.createdAt,
    expiresAt: k.expiresAt,
    lastUsedAt: k.lastUsedAt,
    revokedAt: k.revokedAt,
  });
  const managesAll = (p: Principal) => can(p.role, 'keys:manage');
  async function visibleKey(p: Principal, keyId: string) {
    const key = (await access.listKeys({ orgId: p.org.id })).find((k) => k.keyId === keyId);
    if (!key || (!managesAll(p) && key.userId !== p.userId))
      throw notFound(`API key ${keyId} not found`, 'KEY_NOT_FOUND');
    return key;
  }
  const consoleOnly = { surface: 'console' as const };
  const tags = ['console'];

  return async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api-keys',
      {
        config: { ...consoleOnly, permission: 'read' },
        schema: {
          summary: 'List API keys (console only): all of the organization for admins, else your own',
          tags,
          response: { 200: Type.Object({ data: Type.Array(ApiKey) }), ...errorResponses(401, 403, 429) },
        },
      },
      async (request) => {
        const p = principalOf(request);
        const keys = await access.listKeys({ orgId: p.org.id, ...(managesAll(p) ? {} : { userId: p.userId }) });
        return { data: keys.map(present) };
      },
    );

    app.post(
      '/api-keys',
      {
        config: { ...consoleOnly, permission: 'read', idempotency: false },
        schema: {
          summary: 'Create an API key for yourself (console only); the token is shown once',
          tags,
          body: CreateKeyBody,
          response: { 201: ApiKeyWithToken, ...errorResponses(400, 401, 403, 429) },
        },
      },
      async (request, reply) => {
        const p = principalOf(request);
        const body = request.body;
        if (body.env !== undefined && body.env !== deps.config.env) {
          throw fieldError('body.env', `must be ${deps.config.env}: this server only accepts ${deps.config.env} keys`);
        }
        if (!body.name.trim()) throw fieldError('body.name', 'must not be blank');
        const expiresAt = body.expiresAt ? new Date(body.expiresAt) : null;
        if (expiresAt && expiresAt.getTime() <= deps.clock().getTime()) {
          throw fieldError('body.expiresAt', 'must be in the future');
        }
        const { key, token } = await access.createKey({ userId: p.userId, name: body.name, expiresAt });
        return reply.code(201).send({ ...present(key), token });
      },
    );

    app.post(
      '/api-keys/:keyId/regenerate',
      {
        config: { ...consoleOnly, permission: 'read', idempotency: false },
        schema: {
          summary: 'Regenerate an API key (console only): same id, new secret shown once, the old one stops at once',
          tags,
          params: KeyParams,
          response: { 200: ApiKeyWithToken, ...errorResponses(401, 403, 404, 409, 429) },
        },
      },
      async (request) => {
        const key = await visibleKey(principalOf(request), request.params.keyId);
        if (key.revokedAt) throw conflict(`API key ${key.keyId} is revoked`, 'KEY_REVOKED');
        const { key: after, token } = await access.regenerateKey(key.keyId);
        return { ...present(after), token };
      },
    );

    app.delete(
      '/api-keys/:keyId',
      {
        config: { ...consoleOnly, permission: 'read' },
        schema: {
          summary: 'Revoke an API key (console only); it stops working at once',
          tags,
          params: KeyParams,
          response: { 204: Type.Null({ description: 'Revoked' }), ...errorResponses(401, 403, 404, 429) },
        },
      },
      async (request, reply) => {
        const key = await visibleKey(principalOf(request), request.params.keyId);
        await access.revokeKey(key.keyId);
        return reply.code(204).send(null);
      },
    );
  };
}
