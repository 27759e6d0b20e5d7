import type { FastifyContextConfig, FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { errorResponses } from './errors.ts';
import { exampleOf } from './openapi-example.ts';

/** The docs page's mark: the product's name, not the framework's logo. */
const LOGO = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="28" viewBox="0 0 120 28">' +
    '<text x="0" y="21" font-family="Georgia, serif" font-size="22" fill="#ffffff">Atelier</text></svg>',
);

/**
 * The docs page's own fixes: text that meets WCAG contrast (the version badges, the method and
 * path of an operation), and the system's dark mode (swagger-ui has none: the page is inverted,
 * hue kept, so the method colours stay recognisable).
 */
const DOCS_CSS = `
.swagger-ui .info .title small { background: #4b5563; }
.swagger-ui .info .title small.version-stamp { background: #3f6212; }
.swagger-ui .info .title small pre { color: #fff; }
.swagger-ui .opblock .opblock-summary-description,
.swagger-ui .opblock-tag small { color: #374151; }
.swagger-ui .info .url, .swagger-ui .info a { color: #1d4ed8; }
.swagger-ui .btn.authorize, .swagger-ui .btn.authorize span { color: #1e6b3a; border-color: #1e6b3a; }
.swagger-ui .btn.authorize svg { fill: #1e6b3a; }
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1f5f99; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #1e6b3a; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #8a4b00; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0f6b62; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b3261e; }
.swagger-ui .opblock.opblock-head .opblock-summary-method,
.swagger-ui .opblock.opblock-options .opblock-summary-method { background: #5b3f99; }
@media (prefers-color-scheme: dark) {
  html { background: #0f1115; }
  body { filter: invert(0.92) hue-rotate(180deg); background: #fff; }
}
`;

/** Names for the controls swagger-ui leaves unlabelled (the server picker). */
const DOCS_JS = `(() => {
  const label = () => {
    const servers = document.getElementById('servers');
    if (servers && !servers.getAttribute('aria-label')) servers.setAttribute('aria-label', 'Server');
  };
  new MutationObserver(label).observe(document.body, { childList: true, subtree: true });
  label();
})();`;

const CONSOLE_ONLY = 'Console only: the web console calls it with its signed-in session; API keys get 403 `FORBIDDEN`.';

const PREFER_WAIT = {
  type: 'string',
  description:
    '`wait=N` (seconds, at most 60): hold the answer until the resource changes from the state you last saw ' +
    '(send its ETag as `If-None-Match`) or N seconds pass, instead of polling. Answered with ' +
    '`Preference-Applied: wait=N` when the wait was honoured.',
};

/**
 * Statuses the shared hooks can answer on a route whatever its own schema says: 500 (error
 * handler) everywhere; with a key, 401 and 429 (auth hook), and 403 when the route is console-only,
 * plan-gated or needs more than the `read` permission every role holds. A route whose method
 * carries a body (anything but GET/HEAD) also gets the body parser's answers, 400 (not JSON),
 * 413 (too large) and 415 (not a JSON content type), even when it declares no body, except
 * console-only routes, where the auth hook answers before any body is read.
 */
function kernelStatuses(method: string | string[], cfg: FastifyContextConfig): number[] {
  if (cfg.auth === false) return [500];
  const reads = [method].flat().every((m) => m === 'GET' || m === 'HEAD');
  const mayForbid =
    cfg.surface === 'console' || cfg.feature !== undefined || !reads || (cfg.permission ?? 'read') !== 'read';
  const parsesBody = !reads && cfg.surface !== 'console';
  return [...(parsesBody ? [400, 413, 415] : []), 401, ...(mayForbid ? [403] : []), 429, 500];
}

/**
 * The OpenAPI 3.1 document, generated from the route schemas, at /v1/openapi.json, and a docs
 * page at /docs. Routes that need no key (auth: false) are published with `security: []`, and
 * every route lists the error statuses the shared hooks may answer (kernelStatuses).
 */
export async function installOpenApi(app: FastifyInstance, config: { publicUrl: string }): Promise<void> {
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
      const cfg = (route.config ?? {}) as FastifyContextConfig;
      if (cfg.auth === false) s.security = [];
      s.response = { ...errorResponses(...kernelStatuses(route.method, cfg)), ...(s.response ?? {}) };
      if (cfg.surface === 'console') {
        s.description = [CONSOLE_ONLY, s.description].filter(Boolean).join(' ');
      }
      // The long-poll reads (src/http/long-poll.ts) take `Prefer: wait=N`.
      if ((cfg as { longPoll?: unknown }).longPoll) {
        const headers = (s.headers ?? { type: 'object', properties: {} }) as { properties?: Record<string, unknown> };
        s.headers = { ...headers, properties: { ...(headers.properties ?? {}), prefer: PREFER_WAIT } };
      }
      // A request example for every body (the schema's own, else one made from it).
      const body = s.body as Record<string, unknown> | undefined;
      if (body && !Array.isArray(body.examples)) s.body = { ...body, examples: [exampleOf(body)] };
      return { schema: s as never, url };
    },
  });
  app.get('/v1/openapi.json', { config: { auth: false }, schema: { hide: true } }, async () => app.swagger());
  // The docs page's own routes need no key.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...(route.config ?? {}), auth: false };
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // BaseLayout: without swagger-ui's top bar (its "Explore" field and logo are of no use here);
    // no deep links, whose anchors inside the operation buttons are nested controls.
    uiConfig: { docExpansion: 'list', layout: 'BaseLayout', deepLinking: false },
    logo: { type: 'image/svg+xml', content: LOGO },
    theme: {
      title: 'Atelier API',
      css: [{ filename: 'atelier.css', content: DOCS_CSS }],
      js: [{ filename: 'atelier.js', content: DOCS_JS }],
    },
  });
}
