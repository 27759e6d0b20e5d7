import { type Database, openDatabase } from './adapters/db/database.ts';
import { createReadCache } from './adapters/db/read-cache.ts';
import { DatabaseUnavailable, databaseUnavailableMessage } from './adapters/db/database-unavailable.ts';
import { createLogger } from './adapters/log/logger.ts';
import { type Clock, systemClock } from './clock.ts';
import type { Config } from './config.ts';
import { createJobSystem, type JobSystemTuning } from './jobs/job-system.ts';
import type { JobObserver, JobSystem } from './jobs/types.ts';
import { createAccessRepo } from './modules/access/access.repo.ts';
import { createAccessService } from './modules/access/access.service.ts';
import { loadPlanCatalog, type PlanCatalog } from './modules/usage/plans.ts';

/** What the composition roots (deps.ts, admin-deps.ts) may be given instead of making it. */
export interface CoreOverrides {
  clock?: Clock;
  db?: Database;
  plans?: PlanCatalog;
  jobs?: JobSystem;
  /** Job driver tuning (tests: short grace and leases, their own Redis prefix). */
  jobTuning?: JobSystemTuning;
  /** PostgreSQL schema (tests). */
  pgSchema?: string;
}

/**
 * What every process opens first: the clock, the plans, the database (migrated) and the access
 * service over it. The full server (deps.ts) and the admin commands (admin-deps.ts) build on it.
 */
export async function openCore(config: Config, o: CoreOverrides = {}) {
  const clock = o.clock ?? systemClock;
  const plans = o.plans ?? loadPlanCatalog(config.plansFile);
  // A database that cannot be reached or opened stops the start with one line naming the setting.
  const unavailable = (err: unknown) => {
    const message = databaseUnavailableMessage(config, err);
    return message ? new DatabaseUnavailable(message, { cause: err }) : err;
  };
  const db =
    o.db ??
    (await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      pgPoolSize: config.pg.poolSize,
      pgTimeouts: config.pg,
      ...(o.pgSchema ? { pgSchema: o.pgSchema } : {}),
    }).catch((err: unknown) => {
      throw unavailable(err);
    }));
  try {
    await db.migrate();
  } catch (err) {
    await db.close();
    throw unavailable(err);
  }
  const repo = createAccessRepo(db);
  const readCache = createReadCache(db);
  const access = createAccessService({ repo, clock, plans, env: config.env, cache: readCache });
  return { clock, plans, db, repo, readCache, access };
}

/**
 * The job system the settings ask for. Every process builds it and registers the jobs it may
 * enqueue (payloads are checked at enqueue); only `serve` and `worker` start consuming. The
 * observer (metrics) hears of the attempts, failures and stalls; a completed job logs at `debug`
 * at a terminal (`pretty`, like a successful request), else at `info`.
 */
export function openJobs(
  config: Config,
  db: Database,
  o: Pick<CoreOverrides, 'jobs' | 'jobTuning'> = {},
  observer?: JobObserver,
): JobSystem {
  return (
    o.jobs ??
    createJobSystem(
      config,
      { db, logger: createLogger(config).child({ component: 'jobs' }) },
      {
        prefix: config.queuePrefix,
        leaseMs: config.jobLeaseMs,
        queueConcurrency: { webhooks: config.webhooks.concurrency },
        successLogLevel: config.logFormat === 'pretty' ? 'debug' : 'info',
        ...(observer ? { observer } : {}),
        ...o.jobTuning,
      },
    )
  );
}
