import type { ReadinessCheck } from './adapters/readiness.ts';
import type { Config } from './config.ts';
import type { Clock } from './clock.ts';
import type { Database } from './adapters/db/database.ts';
import type { PlanCatalog } from './modules/usage/plans.ts';
import type { AccessService } from './modules/access/access.service.ts';
import type { KeyUsageTracker } from './modules/access/key-usage.ts';
import type { RateLimiter } from './adapters/rate-limit/rate-limit.ts';
import type { Metrics } from './http/metrics.ts';
import type { JobSystem } from './jobs/types.ts';
import type { ObjectStorage } from './adapters/storage/storage.port.ts';
import type { Fetcher } from './adapters/fetch/fetcher.ts';
import type { IdempotencyRepo } from './modules/idempotency/idempotency.repo.ts';
import type { Changes } from './events/changes.ts';
import type { ConsoleService } from './modules/console/console.service.ts';
import type { FeatureModule } from './modules/feature-module.ts';

/**
 * What the HTTP app needs; built once by `createDeps` (deps.ts), or by tests. This is wiring:
 * routes and modules below it never import it. The kernel's services (the auth, idempotency and
 * long-poll hooks', the ops and agent-tool routes') and the feature modules, whose routes app.ts
 * registers under `/v1` in the list's order. Each lower layer declares the dependencies it takes as
 * its own small interface (`AuthDeps`, `OpsRoutesDeps`...), and AppDeps is structurally assignable
 * to each.
 */
export interface AppDeps {
  config: Config;
  db: Database;
  clock: Clock;
  plans: PlanCatalog;
  access: AccessService;
  rateLimiter: RateLimiter;
  /** The answer-bytes budget per key (modules/access/access.auth.ts). */
  byteLimiter: RateLimiter;
  keyUsage: KeyUsageTracker;
  metrics: Metrics;
  /** What `/readyz` checks (database, Redis in the scaled mode, the object store). */
  readiness: ReadinessCheck[];
  /** Object storage (local folder or S3); see src/adapters/storage/storage.port.ts. */
  storage: ObjectStorage;
  /** The one SSRF-safe outbound HTTP client; see src/adapters/fetch/fetcher.ts. */
  fetcher: Fetcher;
  /** Background jobs (register, enqueue, schedule); see src/jobs/types.ts. */
  jobs: JobSystem;
  /** Stored first responses of POSTs with an Idempotency-Key (src/modules/idempotency/idempotency.hook.ts). */
  idempotency: IdempotencyRepo;
  /** Resource changes: long-poll wake-ups and webhook events (src/events/changes.ts). */
  changes: Changes;
  /** Console sign-in: passwords, invites, cookie sessions (src/modules/console): the auth hook and /console. */
  console: ConsoleService;
  /** Every feature module (src/modules/feature-module.ts), in the order of their `/v1` routes. */
  modules: readonly FeatureModule[];
}
