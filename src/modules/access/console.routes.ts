import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { errorResponses } from '../../http/errors.ts';

/**
 * Routes outside the developer surface. They exist so that keys get a clear 403 (not a 404);
 * the signed-in console that may call them comes later. With a key they never run.
 */
const CONSOLE_ROUTES: { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; url: string; summary: string }[] = [
  { method: 'DELETE', url: '/brands/:brandId', summary: 'Delete a brand (console only)' },
  { method: 'DELETE', url: '/assets/:assetId', summary: 'Delete an asset (console only)' },
  { method: 'GET', url: '/api-keys', summary: 'List API keys (console only)' },
  { method: 'POST', url: '/api-keys', summary: 'Create an API key (console only)' },
  { method: 'DELETE', url: '/api-keys/:keyId', summary: 'Delete an API key (console only)' },
  { method: 'POST', url: '/api-keys/:keyId/regenerate', summary: 'Regenerate an API key (console only)' },
  { method: 'POST', url: '/brands/:brandId/campaigns', summary: 'Generate a campaign (console only)' },
  { method: 'POST', url: '/brands/:brandId/themes', summary: 'Generate themes (console only)' },
  { method: 'GET', url: '/trends', summary: 'Trends (console only)' },
  { method: 'POST', url: '/partner-creatives', summary: 'Submit a partner creative (console only)' },
];

export function consoleOnlyRoutes(): FastifyPluginAsync {
  return async (app) => {
    for (const r of CONSOLE_ROUTES) {
      const params = r.url.match(/:(\w+)/g)?.map((p) => p.slice(1)) ?? [];
      app.route({
        method: r.method,
        url: r.url,
        config: { surface: 'console' },
        schema: {
          summary: r.summary,
          tags: ['console'],
          ...(params.length ? { params: Type.Object(Object.fromEntries(params.map((p) => [p, Type.String()]))) } : {}),
          response: errorResponses(401, 403),
        },
        // Unreachable with an API key: the auth hook answers 403 first.
        handler: async () => {
          throw new Error('console route reached without a console session');
        },
      });
    }
  };
}
