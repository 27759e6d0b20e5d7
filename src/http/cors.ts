import type { FastifyInstance } from 'fastify';

/**
 * CORS for the API (`/v1/…`, `/mcp`): off unless the operator lists origins
 * (ATELIER_CORS_ORIGINS: exact origins, or `*`). An allowed origin's requests get
 * `Access-Control-Allow-Origin` with the headers a client reads exposed; its preflights are
 * answered 204 before authentication (browsers send them without the key). Credentials (cookies)
 * are never allowed: API calls carry their key in `Authorization`, and the console is same-origin.
 * Signed links (`/v1/blobs/…`) keep their own open CORS (blob.routes.ts).
 */
export const CORS_ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  'idempotency-key',
  'if-match',
  'if-none-match',
  'prefer',
  'x-request-id',
  'mcp-protocol-version',
  'last-event-id',
];
export const CORS_EXPOSED_HEADERS = [
  'x-request-id',
  'etag',
  'location',
  'retry-after',
  'idempotent-replayed',
  'preference-applied',
  'www-authenticate',
];
const METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';

/** Whether `origin` may call the API under `allowed` (the setting's list). Pure. */
export function originAllowed(origin: string | undefined, allowed: readonly string[]): origin is string {
  if (!origin || allowed.length === 0) return false;
  return allowed.includes('*') || allowed.includes(origin.toLowerCase());
}

const isApiPath = (url: string) =>
  (url.startsWith('/v1/') || url === '/mcp' || url.startsWith('/mcp?')) && !url.startsWith('/v1/blobs/');

export function installCors(app: FastifyInstance, o: { origins: readonly string[] }): void {
  if (o.origins.length === 0) return;
  app.addHook('onRequest', async (request, reply) => {
    if (!isApiPath(request.url)) return;
    const origin = request.headers.origin;
    if (!originAllowed(origin, o.origins)) return;
    reply.header('access-control-allow-origin', o.origins.includes('*') ? '*' : origin);
    reply.header('vary', 'Origin');
    const preflight = request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
    if (!preflight) {
      reply.header('access-control-expose-headers', CORS_EXPOSED_HEADERS.join(', '));
      return;
    }
    return reply
      .code(204)
      .header('access-control-allow-methods', METHODS)
      .header('access-control-allow-headers', CORS_ALLOWED_HEADERS.join(', '))
      .header('access-control-max-age', '600')
      .send();
  });
}
