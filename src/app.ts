import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.ts';
import type { Clock } from './clock.ts';
import type { Database } from './adapters/db/database.ts';
import type { PlanCatalog } from './modules/usage/plans.ts';
import type { AccessService } from './modules/access/access.service.ts';
import type { KeyUsageTracker } from './modules/access/key-usage.ts';
import type { RateLimiter } from './http/rate-limit.ts';
import type { Metrics } from './http/metrics.ts';
import { installAuth } from './http/auth.ts';
import { installErrorHandling } from './http/error-handler.ts';
import { installValidators } from './http/validation.ts';
import { installMetrics } from './http/metrics.ts';
import { opsRoutes } from './http/ops.routes.ts';
import { installOpenApi } from './http/openapi.ts';
import { brandsRoutes } from './modules/brands/brands.routes.ts';
import { usageRoutes } from './modules/usage/usage.routes.ts';
import { consoleOnlyRoutes } from './modules/access/console.routes.ts';

/** Everything the HTTP app needs; built once by `createDeps` (deps.ts), or by tests. */
export interface AppDeps {
  config: Config;
  db: Database;
  clock: Clock;
  plans: PlanCatalog;
  access: AccessService;
  rateLimiter: RateLimiter;
  keyUsage: KeyUsageTracker;
  metrics: Metrics;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The Fastify app with every route; no `listen` (tests use `app.inject`). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger:
      deps.config.logLevel === 'silent'
        ? false
        : { level: deps.config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'] },
    bodyLimit: deps.config.bodyLimit,
    // A client-supplied x-request-id is kept when it is a UUID (the error body's requestId is one).
    genReqId: (req) => {
      const h = req.headers['x-request-id'];
      return typeof h === 'string' && UUID_RE.test(h) ? h.toLowerCase() : randomUUID();
    },
    requestIdHeader: false,
    trustProxy: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  installValidators(app);
  installErrorHandling(app);
  installMetrics(app, deps.metrics);
  await installOpenApi(app, deps.config);
  installAuth(app, deps);

  await app.register(opsRoutes(deps));
  await app.register(
    async (v1) => {
      await v1.register(brandsRoutes(deps));
      await v1.register(usageRoutes(deps));
      await v1.register(consoleOnlyRoutes());
    },
    { prefix: '/v1' },
  );
  return app;
}
