import type { Database } from '../adapters/db/database.ts';
import { type BullmqJobSystemOptions, createBullmqJobSystem } from './bullmq.driver.ts';
import { createLocalJobSystem, type LocalJobSystemOptions } from './local.driver.ts';
import type { JobLogger, JobSystem } from './types.ts';

/** Driver tuning a caller may override (tests: short leases and grace, a Redis prefix of their own). */
export type JobSystemTuning = Omit<LocalJobSystemOptions, 'db'> & Pick<BullmqJobSystemOptions, 'prefix'>;

/** The settings the job system reads (ATELIER_WORKER_CONCURRENCY, REDIS_URL). */
export interface JobSystemSettings {
  workerConcurrency: number;
  redisUrl: string | undefined;
}

/** The job system the settings ask for: BullMQ when REDIS_URL is set, else the in-process driver. */
export function createJobSystem(
  config: JobSystemSettings,
  deps: { db: Database; logger: JobLogger },
  tuning: JobSystemTuning = {},
): JobSystem {
  const o = { concurrency: config.workerConcurrency, ...tuning, logger: deps.logger };
  return config.redisUrl
    ? createBullmqJobSystem({ ...o, redisUrl: config.redisUrl })
    : createLocalJobSystem({ ...o, db: deps.db });
}
