import { Type } from 'typebox';
import type { Database } from '../../adapters/db/database.ts';
import type { Clock } from '../../clock.ts';
import { defineJob, type JobRef } from '../../jobs/types.ts';
import { createAccessRepo } from '../access/access.repo.ts';
import { createConsoleRepo } from './console.repo.ts';
import { type ConsoleServiceDeps, createConsoleService } from './console.service.ts';
import { type ConsoleRoutesDeps, consoleRoutes } from './console.routes.ts';
import { createPasswords } from './passwords.ts';
import { defineModule } from '../feature-module.ts';

export const purgeConsoleSessionsJob: JobRef = { name: 'console.purge', payload: Type.Object({}) };
/** How often expired sessions (and used invites, old failed sign-ins) are removed. */
const PURGE_EVERY_MS = 3_600_000;

export interface ConsoleModuleDeps {
  db: Database;
  clock: Clock;
  config: ConsoleServiceDeps['config'] & ConsoleRoutesDeps['config'];
  /** scrypt's cost N for new password hashes (default PASSWORD_COST; tests pass a cheaper one). */
  passwordCost?: number;
}

/**
 * Wires console sign-in (src/modules/console): its service, the purge job and its schedule, and
 * its routes at the root (/console/api and the built UI at /console).
 */
export function createConsoleModule(deps: ConsoleModuleDeps) {
  const repo = createConsoleRepo(deps.db);
  const service = createConsoleService({
    repo,
    access: createAccessRepo(deps.db),
    clock: deps.clock,
    config: deps.config,
    passwords: createPasswords(deps.passwordCost),
  });
  const jobs = [
    defineJob({
      ...purgeConsoleSessionsJob,
      queue: 'maintenance',
      attempts: 1,
      timeoutMs: 120_000,
      async handler(_payload, ctx) {
        const removed = await service.purgeExpired();
        if (removed.sessions || removed.invites || removed.failures) ctx.log.info(removed, 'console records purged');
      },
    }),
  ];
  const schedules = [{ name: purgeConsoleSessionsJob.name, payload: {}, everyMs: PURGE_EVERY_MS }];
  const rootRoutes = consoleRoutes({ config: deps.config, console: service });
  return defineModule({ name: 'console', repo, service, jobs, schedules, rootRoutes });
}
