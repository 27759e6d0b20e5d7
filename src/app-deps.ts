import type { ReadinessCheck } from './adapters/readiness.ts';
import type { Config } from './config.ts';
import type { Clock } from './clock.ts';
import type { Database } from './adapters/db/database.ts';
import type { ReadCache } from './adapters/db/read-cache.ts';
import type { PlanCatalog } from './modules/usage/plans.ts';
import type { AccessService } from './modules/access/access.service.ts';
import type { KeyUsageTracker } from './modules/access/key-usage.ts';
import type { UsageLedger } from './modules/usage/usage.ledger.ts';
import type { RateLimiter } from './adapters/rate-limit/rate-limit.ts';
import type { Metrics } from './http/metrics.ts';
import type { JobSystem } from './jobs/types.ts';
import type { AssetRefs } from './modules/assets/asset-refs.ts';
import type { ObjectStorage } from './adapters/storage/storage.port.ts';
import type { Fetcher } from './adapters/fetch/fetcher.ts';
import type { AssetsService } from './modules/assets/assets.service.ts';
import type { BrandDnaService } from './modules/brand-dna/brand-dna.service.ts';
import type { ExtractionService } from './modules/extraction/extraction.service.ts';
import type { ScenesService } from './modules/scenes/scenes.service.ts';
import type { EnvironmentsService } from './modules/environments/environments.service.ts';
import type { EnhancementsService } from './modules/enhancements/enhancements.service.ts';
import type { VideosService } from './modules/videos/videos.service.ts';
import type { VideoEnhancementsService } from './modules/videos/video-enhancements.service.ts';
import type { IdempotencyRepo } from './modules/idempotency/idempotency.repo.ts';
import type { Changes } from './events/changes.ts';
import type { WebhooksService } from './modules/webhooks/webhooks.service.ts';
import type { ConsoleService } from './modules/console/console.service.ts';

/**
 * Everything the HTTP app needs; built once by `createDeps` (deps.ts), or by tests. This is wiring:
 * routes and modules below it never import it. Each declares the dependencies it takes as its own
 * small interface (`BrandsRoutesDeps`, `ScenesModuleDeps`...), typed from the files that define
 * them, and AppDeps is structurally assignable to each.
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
  /** Quota ledger: reserve at create time, commit on success, release on failure. */
  usage: UsageLedger;
  metrics: Metrics;
  /** What `/readyz` checks (database, Redis in the scaled mode, the object store). */
  readiness: ReadinessCheck[];
  assetRefs: AssetRefs;
  /** Object storage (local folder or S3); see src/adapters/storage/storage.port.ts. */
  storage: ObjectStorage;
  /** The one SSRF-safe outbound HTTP client; see src/adapters/fetch/fetcher.ts. */
  fetcher: Fetcher;
  /** Background jobs (register, enqueue, schedule); see src/jobs/types.ts. */
  jobs: JobSystem;
  /** Exact process-local cache of hot reads (SQLite); see src/adapters/db/read-cache.ts. */
  readCache: ReadCache;
  /** Upload flow and asset reads; extraction commits and generation reuse it. */
  assets: AssetsService;
  /** URL extraction runs and commits; see src/modules/extraction. */
  extraction: ExtractionService;
  /** Brand DNA versions; generation reads `brandDna.getActiveDna(brandId, orgId)`. */
  brandDna: BrandDnaService;
  /** Scene forges (src/modules/scenes). */
  scenes: ScenesService;
  /** Environment generation (src/modules/environments). */
  environments: EnvironmentsService;
  /** Prompt enhancements (src/modules/enhancements). */
  enhancements: EnhancementsService;
  /** Video generation (src/modules/videos). */
  videos: VideosService;
  /** Image-to-video prompt enhancements (src/modules/videos). */
  videoEnhancements: VideoEnhancementsService;
  /** Stored first responses of POSTs with an Idempotency-Key (src/modules/idempotency/idempotency.hook.ts). */
  idempotency: IdempotencyRepo;
  /** Resource changes: long-poll wake-ups and webhook events (src/events/changes.ts). */
  changes: Changes;
  /** Signed webhook endpoints and deliveries (src/modules/webhooks): the admin CLI and the API. */
  webhooks: WebhooksService;
  /** Console sign-in: passwords, invites, cookie sessions (src/modules/console). */
  console: ConsoleService;
}
