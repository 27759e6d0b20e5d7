import { randomUUID } from 'node:crypto';
import http from 'node:http';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppDeps } from './app-deps.ts';
import { installAuth } from './modules/access/access.auth.ts';
import { installIdempotency } from './modules/idempotency/idempotency.hook.ts';
import { clientErrorHandler, frameworkErrors, installErrorHandling } from './http/error-handler.ts';
import { installJsonParser, installValidators } from './http/validation.ts';
import { installMetrics } from './http/metrics.ts';
import { installSlowBodyGuard } from './http/slow-bodies.ts';
import { installCors } from './http/cors.ts';
import { installRequestLog } from './http/request-log.ts';
import { requestLoggerFactory } from './http/request-logger.ts';
import { createLogger } from './adapters/log/logger.ts';
import { installLongPoll } from './http/long-poll.ts';
import { shuttingDown } from './http/errors.ts';
import { opsRoutes } from './http/ops.routes.ts';
import { installOpenApi } from './http/openapi.ts';
import { createRouteCatalog } from './mcp/route-catalog.ts';
import { mcpRoutes } from './mcp/mcp.routes.ts';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A graceful close that does not wait on keep-alive connections: once `close()` starts, responses
 * carry `Connection: close`, and connections that fall idle afterwards are closed at once (Node
 * closes only those idle when `server.close()` is called; the others would hold the close for
 * the keep-alive timeout). Requests in flight still finish; one that arrives on an open
 * connection meanwhile is answered 503 `SERVICE_UNAVAILABLE` with `Retry-After` in the one error
 * body (buildApp's first onRequest hook asks `closing()`; Fastify's own 503 for it has another
 * shape, so `return503OnClosing` is off).
 */
function drainConnectionsOnClose(app: FastifyInstance): { closing(): boolean } {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
    sweep.unref();
    app.server.once('close', () => clearInterval(sweep));
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  return { closing: () => closing };
}

/** The Fastify app with every route; no `listen` (tests use `app.inject`). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { logLevel, logFormat } = deps.config;
  const app = Fastify({
    // Each request's logger is made when something logs through it, not for every request (with
    // no logger Fastify makes none: a factory of ours would make it call one per request).
    ...(logLevel === 'silent'
      ? { logger: false }
      : { loggerInstance: createLogger(deps.config) as FastifyBaseLogger, childLoggerFactory: requestLoggerFactory }),
    // One line per request of our own (installRequestLog), not Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.config.bodyLimit,
    frameworkErrors,
    clientErrorHandler,
    // Slow clients: headers and whole requests have time bounds (408 past them), checked often
    // enough for the bound to mean something (Node checks every 30 s by default).
    serverFactory: (handler) =>
      http.createServer(
        {
          headersTimeout: deps.config.httpTimeouts.headersMs,
          requestTimeout: deps.config.httpTimeouts.requestMs,
          connectionsCheckingInterval: Math.min(30_000, Math.max(250, deps.config.httpTimeouts.headersMs / 4)),
        },
        handler,
      ),
    // A client-supplied x-request-id is kept when it is a UUID (the error body's requestId is one).
    genReqId: (req) => {
      const h = req.headers['x-request-id'];
      return typeof h === 'string' && UUID_RE.test(h) ? h.toLowerCase() : randomUUID();
    },
    requestIdHeader: false,
    // Off unless the operator lists the proxies in front (ATELIER_TRUST_PROXY): otherwise any client
    // could set X-Forwarded-For/-Proto/-Host.
    trustProxy: deps.config.trustProxy.length ? deps.config.trustProxy : false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    return503OnClosing: false,
  }).withTypeProvider<TypeBoxTypeProvider>();

  const drain = drainConnectionsOnClose(app);
  // Hooks in the callback style where nothing is awaited: an async hook costs a promise and a
  // turn of the microtask queue on every request (bench/http). Every answer carries its request
  // id (the error body's requestId), refusals too.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done(drain.closing() ? shuttingDown() : undefined);
  });
  installSlowBodyGuard(app, { bodyMs: deps.config.httpTimeouts.bodyMs });
  installCors(app, { origins: deps.config.corsOrigins });
  // No log, no hook: with logging off a request does not pay for its line's fields.
  if (logLevel !== 'silent') installRequestLog(app, { format: logFormat });
  installValidators(app);
  installJsonParser(app);
  installErrorHandling(app);
  installMetrics(app, deps.metrics);
  await installOpenApi(app, deps.config);
  installAuth(app, deps);
  installIdempotency(app, { repo: deps.idempotency, clock: deps.clock });
  // Prefer: wait on the pollable GETs (routes with config.longPoll); before the routes register.
  installLongPoll(app, { changes: deps.changes, max: deps.config.longPollMax, metrics: deps.metrics });
  // Every route's schemas, for the agent tools made from them (src/mcp).
  const catalog = createRouteCatalog();
  app.addHook('onRoute', catalog.onRoute);

  // /metrics on the public port only with ATELIER_METRICS_TOKEN (else ATELIER_METRICS_PORT's listener).
  const { token } = deps.config.metrics;
  await app.register(opsRoutes(deps, token ? { token } : 'off'));
  await app.register(
    async (v1) => {
      // Each module's routes, in the list's order (the OpenAPI document's, the SDK's, the tools').
      for (const module of deps.modules) if (module.routes) await v1.register(module.routes);
    },
    { prefix: '/v1' },
  );
  await app.register(mcpRoutes({ ...deps, app, catalog }));
  // Routes outside the API: the web console's sign-in API (/console/api) and built UI (/console).
  for (const module of deps.modules) if (module.rootRoutes) await app.register(module.rootRoutes);
  return app;
}

export type { AppDeps } from './app-deps.ts';
