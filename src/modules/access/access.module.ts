import type { FastifyPluginAsync } from 'fastify';
import type { Clock } from '../../clock.ts';
import type { ConsoleService } from '../console/console.service.ts';
import { defineModule } from '../feature-module.ts';
import type { AtelierEnv } from './access.keys.ts';
import type { AccessRepo } from './access.repo.ts';
import type { AccessService } from './access.service.ts';
import { apiKeysRoutes } from './api-keys.routes.ts';
import { consoleOnlyRoutes } from './console.routes.ts';
import { createKeyUsageTracker } from './key-usage.ts';
import { membersRoutes } from './members.routes.ts';

export interface AccessModuleDeps {
  /** The access repo and service every process opens first (core-deps.ts). */
  repo: AccessRepo;
  access: AccessService;
  clock: Clock;
  /** The server's environment (ATELIER_ENV): the only one its keys are minted for. */
  config: { env: AtelierEnv };
  /** Passwords and invite links of the members (the console module's). */
  console: ConsoleService;
}

/**
 * Wires access over the access service: the keys' last-use tracker (the authentication hook's,
 * access.auth.ts) and the routes: the console-only placeholders, API keys and members.
 */
export function createAccessModule(deps: AccessModuleDeps) {
  const keyUsage = createKeyUsageTracker(deps.repo, deps.clock);
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(consoleOnlyRoutes());
    await app.register(apiKeysRoutes(deps));
    await app.register(membersRoutes(deps));
  };
  return defineModule({ name: 'access', keyUsage, routes });
}
