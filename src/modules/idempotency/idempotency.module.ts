import { Type } from 'typebox';
import type { Database } from '../../adapters/db/database.ts';
import type { Clock } from '../../clock.ts';
import { defineJob, type JobRef } from '../../jobs/types.ts';
import { createIdempotencyRepo } from './idempotency.repo.ts';
import { defineModule } from '../feature-module.ts';

export const purgeIdempotencyKeysJob: JobRef = { name: 'idempotency.purge', payload: Type.Object({}) };
/** How often keys past their 24 hours are removed. */
const PURGE_EVERY_MS = 3_600_000;

export interface IdempotencyModuleDeps {
  db: Database;
  clock: Clock;
}

/** Wires the Idempotency-Key store (idempotency.hook.ts): its repo and the hourly purge. */
export function createIdempotencyModule(deps: IdempotencyModuleDeps) {
  const repo = createIdempotencyRepo(deps.db);
  const jobs = [
    defineJob({
      ...purgeIdempotencyKeysJob,
      queue: 'maintenance',
      attempts: 1,
      timeoutMs: 120_000,
      async handler(_payload, ctx) {
        const removed = await repo.purgeExpired(deps.clock().toISOString());
        if (removed) ctx.log.info({ removed }, 'expired idempotency keys removed');
      },
    }),
  ];
  const schedules = [{ name: purgeIdempotencyKeysJob.name, payload: {}, everyMs: PURGE_EVERY_MS }];
  return defineModule({ name: 'idempotency', repo, jobs, schedules });
}
