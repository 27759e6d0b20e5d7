import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Config } from '../config.ts';

/**
 * The OpenAPI 3.1 document, generated from the route schemas, at /v1/openapi.json, and a docs
 * page at /docs. Routes that need no key (auth: false) are published with `security: []`.
 */
export async function installOpenApi(app: FastifyInstance, config: Pick<Config, 'publicUrl'>): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Atelier API',
        version: '1.0.0',
        description:
          'Open, self-hostable server for programmatic creative generation. Every request needs `Authorization: Bearer <API_KEY>` unless noted.',
      },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'atl_<env>_<keyId>.<secret>' },
        },
      },
      security: [{ bearerAuth: [] }],
    },
    transform: ({ schema, url, route }) => {
      const s = { ...(schema ?? {}) } as Record<string, unknown>;
      if (route.config && (route.config as { auth?: boolean }).auth === false) s.security = [];
      return { schema: s as never, url };
    },
  });
  app.get('/v1/openapi.json', { config: { auth: false }, schema: { hide: true } }, async () => app.swagger());
  // The docs page's own routes need no key.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...(route.config ?? {}), auth: false };
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
}
