import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify';
import type { AccessService, Principal } from './access.service.ts';
import { bearerToken } from './access.keys.ts';
import { andThen } from './now-or-later.ts';
import { can, type Permission } from './access.roles.ts';
import type { KeyUsageTracker } from './key-usage.ts';
import type { Feature, PlanCatalog } from '../usage/plans.ts';
import type { RateLimiter } from '../../adapters/rate-limit/rate-limit.ts';
import { forbidden, rateLimited, unauthorized } from '../../http/errors.ts';
import { sameToken, sessionIdOf } from '../console/cookies.ts';
import type { ConsoleService } from '../console/console.service.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false for public routes (health, docs, signed links). Default: an API key is required. */
    auth?: boolean;
    /** 'console' routes are outside the developer surface: API keys get 403. Default 'developer'. */
    surface?: 'developer' | 'console';
    /** The role permission the route needs. Default: 'read' for GET/HEAD, otherwise required explicitly. */
    permission?: Permission;
    /** A plan feature the route needs (403 when the organization's plan lacks it). */
    feature?: Feature;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** What the auth hook reads: keys and console sessions, plan features, the per-key limits. */
export interface AuthDeps {
  access: AccessService;
  plans: PlanCatalog;
  rateLimiter: RateLimiter;
  /** The answer-bytes budget per key. */
  byteLimiter: RateLimiter;
  keyUsage: KeyUsageTracker;
  console: ConsoleService;
}

/** Size of an answer payload as onSend sees it (streams are not counted). */
function payloadBytes(payload: unknown): number {
  if (typeof payload === 'string') return Buffer.byteLength(payload);
  if (Buffer.isBuffer(payload)) return payload.length;
  return 0;
}

/**
 * Charges the bytes of an answer to its caller's answer budget (deps.byteLimiter): onSend
 * does it for ordinary routes; routes that write the raw response themselves (MCP) call it.
 */
export function chargeAnswer(deps: Pick<AuthDeps, 'byteLimiter'>, request: FastifyRequest, bytes: number): void {
  if (!request.principal || bytes <= 0) return;
  deps.byteLimiter.charge(request.principal.apiKeyId, bytes)?.catch(() => undefined);
}

/** The authenticated caller; routes behind the auth hook always have one. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized();
  return request.principal;
}

/**
 * Authentication and authorization for every route that does not opt out, in this order:
 * 401 (no valid key) → 429 rate limit (per key: requests, and answer bytes) → 403 outside the developer surface →
 * 403 missing permission → 403 plan feature missing.
 *
 * Without an Authorization header, the console's session cookie authenticates instead (an
 * Authorization header, even a bad one, always wins): 401 (no valid session) → 429 (per user) →
 * 403 `CSRF_FAILED` on a write without the session's X-CSRF-Token → permission → plan feature.
 * Sessions may call console-only routes.
 */
export function installAuth(app: FastifyInstance, deps: AuthDeps): void {
  app.decorateRequest('principal', null);
  app.addHook('onSend', (request, _reply, payload, done) => {
    chargeAnswer(deps, request, payloadBytes(payload));
    done(null, payload);
  });
  const routeChecks = (request: FastifyRequest, cfg: FastifyContextConfig, principal: Principal): void => {
    const method = request.method;
    const permission = cfg.permission ?? (method === 'GET' || method === 'HEAD' ? 'read' : undefined);
    if (!permission || !can(principal.role, permission)) {
      throw forbidden(`Your role (${principal.role}) does not allow this action`, 'FORBIDDEN', {
        requiredPermission: permission ?? 'unknown',
      });
    }
    if (cfg.feature && !deps.plans.entitlementsFor(principal.org).features[cfg.feature]) {
      throw forbidden(`Your plan (${principal.org.planSlug}) does not include ${cfg.feature}`, 'FORBIDDEN', {
        feature: cfg.feature,
        plan: principal.org.planSlug,
      });
    }
  };

  const bySession = async (request: FastifyRequest, cfg: FastifyContextConfig, sessionId: string): Promise<void> => {
    const session = await deps.console.authenticate(sessionId);
    if (!session) throw unauthorized('Your console session is invalid or has expired: sign in again');
    const principal = session.principal;
    request.principal = principal;
    const decision = await deps.rateLimiter.take(principal.apiKeyId);
    if (!decision.ok) throw rateLimited(decision.retryAfter);
    const csrf = request.headers['x-csrf-token'];
    if (
      request.method !== 'GET' &&
      request.method !== 'HEAD' &&
      !sameToken(typeof csrf === 'string' ? csrf : undefined, session.view.csrfToken)
    ) {
      throw forbidden('Missing or wrong X-CSRF-Token header for this console session', 'CSRF_FAILED');
    }
    routeChecks(request, cfg, principal);
  };

  const byKey = (request: FastifyRequest, cfg: FastifyContextConfig, token: string): void | Promise<void> =>
    andThen(deps.access.authenticate(token), (principal) => {
      if (!principal) throw unauthorized('Invalid, unknown, revoked or expired API key');
      request.principal = principal;
      deps.keyUsage.touch(principal.apiKeyId);
      return andThen(deps.rateLimiter.take(principal.apiKeyId), (decision) => {
        if (!decision.ok) throw rateLimited(decision.retryAfter);
        // The answers this key made the server write recently are within its byte budget.
        return andThen(deps.byteLimiter.take(principal.apiKeyId, 0), (bytes) => {
          if (!bytes.ok) {
            throw rateLimited(bytes.retryAfter, 'Too many answer bytes for this key: wait, or ask for smaller pages');
          }
          if (cfg.surface === 'console') throw forbidden('This endpoint is not available to API keys');
          routeChecks(request, cfg, principal);
        });
      });
    });

  const authorize = (request: FastifyRequest): void | Promise<void> => {
    const route = request.routeOptions;
    if (route.config.auth === false || !route.url) return;
    const sessionId = request.headers.authorization === undefined ? sessionIdOf(request.headers.cookie) : undefined;
    if (sessionId !== undefined) return bySession(request, route.config, sessionId);
    const token = bearerToken(request.headers.authorization);
    if (!token) throw unauthorized('Missing API key: send Authorization: Bearer <API_KEY>');
    return byKey(request, route.config, token);
  };

  app.addHook('onRequest', (request, _reply, done) => {
    let outcome: void | Promise<void>;
    try {
      outcome = authorize(request);
    } catch (err) {
      return done(err as Error);
    }
    if (outcome instanceof Promise) outcome.then(() => done(), done);
    else done();
  });
}
