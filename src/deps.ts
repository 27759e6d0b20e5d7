import type { Config } from './config.ts';
import { type Clock, systemClock } from './clock.ts';
import { type Database, openDatabase } from './adapters/db/database.ts';
import { loadPlanCatalog, type PlanCatalog } from './modules/usage/plans.ts';
import { createAccessRepo } from './modules/access/access.repo.ts';
import { createAccessService } from './modules/access/access.service.ts';
import { createKeyUsageTracker } from './modules/access/key-usage.ts';
import { createMemoryRateLimiter, type RateLimiter } from './http/rate-limit.ts';
import { createRedisRateLimiter } from './adapters/redis/rate-limit.redis.ts';
import { createMetrics } from './http/metrics.ts';
import type { AppDeps } from './app.ts';

export interface DepsOverrides {
  clock?: Clock;
  db?: Database;
  plans?: PlanCatalog;
  rateLimiter?: RateLimiter;
  /** PostgreSQL schema (tests). */
  pgSchema?: string;
}

export type Deps = AppDeps & { close(): Promise<void> };

/** Opens the database (and runs migrations), loads plans and wires the shared services. */
export async function createDeps(config: Config, o: DepsOverrides = {}): Promise<Deps> {
  const clock = o.clock ?? systemClock;
  const plans = o.plans ?? loadPlanCatalog(config.plansFile);
  const db =
    o.db ??
    (await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      ...(o.pgSchema ? { pgSchema: o.pgSchema } : {}),
    }));
  try {
    await db.migrate();
  } catch (err) {
    await db.close();
    throw err;
  }
  const repo = createAccessRepo(db);
  const access = createAccessService({ repo, clock, plans, env: config.env });
  const keyUsage = createKeyUsageTracker(repo, clock);
  const rateLimiter =
    o.rateLimiter ??
    (config.redisUrl
      ? createRedisRateLimiter(config.redisUrl, config.rateLimit)
      : createMemoryRateLimiter(config.rateLimit));
  const metrics = createMetrics();
  return {
    config,
    db,
    clock,
    plans,
    access,
    rateLimiter,
    keyUsage,
    metrics,
    async close() {
      await keyUsage.close();
      await rateLimiter.close();
      await db.close();
    },
  };
}
