import type { FastifyInstance, onSendAsyncHookHandler, preHandlerAsyncHookHandler, RouteOptions } from 'fastify';
import type { Clock } from '../../clock.ts';
import { AppError, fieldError } from '../../http/errors.ts';
import type { IdempotencyRepo } from './idempotency.repo.ts';
import { isValidIdempotencyKey, requestHash } from './request-hash.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: a POST route that ignores Idempotency-Key (the MCP endpoint). Default: honoured. */
    idempotency?: boolean;
  }
  interface FastifyRequest {
    idempotencyKey: string | null;
  }
}

/** How long a key replays its first response (Stripe's 24 hours). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** An in-progress key older than this is taken to be abandoned (its process died). */
export const IDEMPOTENCY_LOCK_MS = 2 * 60 * 1000;
/**
 * Response headers replayed with the stored body. `x-request-id` is the first request's, so a
 * replay's header and its body's `requestId` name the same request (the one that did the work).
 */
const REPLAYED_HEADERS = ['content-type', 'location', 'etag', 'retry-after', 'x-request-id'];

/**
 * `Idempotency-Key` on every authenticated POST: the first request with a key runs and its
 * response (status, body and the headers above) is stored for 24 hours, per organization; the same
 * key with the same method, path and body replays it (`Idempotent-Replayed: true`) without new
 * work or quota; with another request it is 422 `IDEMPOTENCY_KEY_REUSED`; while the first still
 * runs, 409 `IDEMPOTENCY_KEY_IN_USE` with Retry-After 1. Runs after validation, so a request the
 * schema refuses stores nothing; a 5xx or 409 answer is not stored (the client may retry with the
 * same key). Keys live in the database, so every API node of a scaled deployment sees them.
 *
 * The hooks are the POST routes' own (added as each route is declared), so other requests do
 * not run them.
 */
export function installIdempotency(app: FastifyInstance, deps: { repo: IdempotencyRepo; clock: Clock }): void {
  app.decorateRequest('idempotencyKey', null);
  const claim: preHandlerAsyncHookHandler = async (request, reply) => {
    if (request.method !== 'POST' || !request.principal) return;
    const header = request.headers['idempotency-key'];
    if (header === undefined) return;
    const key = Array.isArray(header) ? header[0] : header;
    if (typeof key !== 'string' || !isValidIdempotencyKey(key)) {
      throw fieldError('headers.idempotency-key', 'must be 1..255 visible ASCII characters');
    }
    const orgId = request.principal.org.id;
    const now = deps.clock();
    const hash = requestHash(request.method, request.url, request.body);
    const claim = await deps.repo.claim(
      {
        organization_id: orgId,
        key,
        request_hash: hash,
        method: request.method,
        path: request.url.slice(0, 2048),
        state: 'in_progress',
        response_status: null,
        response_headers: null,
        response_body: null,
        created_at: now.toISOString(),
        locked_until: new Date(now.getTime() + IDEMPOTENCY_LOCK_MS).toISOString(),
        expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
      },
      now.toISOString(),
    );
    if (claim.claimed) {
      request.idempotencyKey = key;
      return;
    }
    const existing = claim.existing;
    if (existing.request_hash !== hash) {
      throw new AppError(
        422,
        'IDEMPOTENCY_KEY_REUSED',
        `Idempotency-Key ${key} was used for another request (${existing.method} ${existing.path}) in the last 24 hours; use a new key for a new request`,
        { idempotencyKey: key },
      );
    }
    if (existing.state !== 'completed' || existing.response_status === null) {
      throw new AppError(
        409,
        'IDEMPOTENCY_KEY_IN_USE',
        `A request with Idempotency-Key ${key} is still running; retry shortly to get its response`,
        { idempotencyKey: key },
        { 'retry-after': '1' },
      );
    }
    const headers = JSON.parse(existing.response_headers ?? '{}') as Record<string, string>;
    return reply
      .code(existing.response_status)
      .headers({ ...headers, 'idempotent-replayed': 'true' })
      .send(existing.response_body ?? '');
  };

  const store: onSendAsyncHookHandler<unknown> = async (request, reply, payload) => {
    const key = request.idempotencyKey;
    if (!key || !request.principal) return payload;
    request.idempotencyKey = null;
    const orgId = request.principal.org.id;
    if (reply.statusCode >= 500 || reply.statusCode === 409 || reply.statusCode === 429) {
      await deps.repo.release(orgId, key);
      return payload;
    }
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
    if (body === null) {
      await deps.repo.release(orgId, key);
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const v = reply.getHeader(name);
      if (v !== undefined) headers[name] = String(v);
    }
    await deps.repo.complete(orgId, key, { status: reply.statusCode, headers, body });
    return payload;
  };

  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('POST') || route.config?.idempotency === false) return;
    route.preHandler = [...hooksOf(route.preHandler), claim];
    route.onSend = [...hooksOf(route.onSend), store];
  });
}

const hooksOf = <T>(hooks: T | T[] | undefined): T[] =>
  hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
