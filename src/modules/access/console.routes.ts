import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { AppError, errorResponses } from '../../http/errors.ts';
import type { Permission } from './access.roles.ts';

/**
 * Console-only routes not built yet. They exist so that keys get a clear 403 (not a 404), and a
 * signed-in console session gets 501 `NOT_IMPLEMENTED`. The console-only routes that work live in
 * their modules: API keys (access/api-keys.routes.ts), brand and asset deletion (brands, assets).
 */
const CONSOLE_ROUTES: {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  summary: string;
  permission: Permission;
}[] = [
  {
    method: 'POST',
    url: '/brands/:brandId/campaigns',
    summary: 'Generate a campaign (console only, not implemented)',
    permission: 'generate',
  },
  {
    method: 'POST',
    url: '/brands/:brandId/themes',
    summary: 'Generate themes (console only, not implemented)',
    permission: 'generate',
  },
  { method: 'GET', url: '/trends', summary: 'Trends (console only, not implemented)', permission: 'read' },
  {
    method: 'POST',
    url: '/partner-creatives',
    summary: 'Submit a partner creative (console only, not implemented)',
    permission: 'generate',
  },
];

export function consoleOnlyRoutes(): FastifyPluginAsync {
  return async (app) => {
    for (const r of CONSOLE_ROUTES) {
      const params = r.url.match(/:(\w+)/g)?.map((p) => p.slice(1)) ?? [];
      app.route({
        method: r.method,
        url: r.url,
        config: { surface: 'console', permission: r.permission, idempotency: false },
        schema: {
          summary: r.summary,
          tags: ['console'],
          ...(params.length ? { params: Type.Object(Object.fromEntries(params.map((p) => [p, Type.String()]))) } : {}),
          response: errorResponses(401, 403, 501),
        },
        // API keys never get here (403 first); console sessions do.
        handler: async () => {
          throw new AppError(501, 'NOT_IMPLEMENTED', `${r.method} /v1${r.url} is not implemented yet`);
        },
      });
    }
  };
}
