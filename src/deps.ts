import type { Config } from './config.ts';
import { type CoreOverrides, openCore, openJobs } from './core-deps.ts';
import { createAccessModule } from './modules/access/access.module.ts';
import { createUsageModule } from './modules/usage/usage.module.ts';
import { createBrandsModule } from './modules/brands/brands.module.ts';
import { createMemoryRateLimiter, type RateLimiter } from './adapters/rate-limit/rate-limit.ts';
import { createRedisRateLimiter } from './adapters/redis/rate-limit.redis.ts';
import { createMetrics } from './http/metrics.ts';
import { openObjectStorage } from './adapters/storage/storage.ts';
import type { ObjectStorage } from './adapters/storage/storage.port.ts';
import { createFetcher, type Fetcher } from './adapters/fetch/fetcher.ts';
import { createLogger } from './adapters/log/logger.ts';
import type { StartOptions } from './jobs/types.ts';
import type { AppDeps } from './app-deps.ts';
import { createAssetsModule } from './modules/assets/assets.module.ts';
import { createExtractionModule } from './modules/extraction/extraction.module.ts';
import { createBrandDnaModule } from './modules/brand-dna/brand-dna.module.ts';
import { createGenerationEngines, type GenerationEngines } from './modules/generation/engines.ts';
import { ENGINE_WORKER, pooledSigning } from './modules/generation/pooled-engines.ts';
import { createThreadPool } from './adapters/workers/thread-pool.ts';
import { type ReadinessCheck, redisCheck, storageCheck } from './adapters/readiness.ts';
import { createStorageInputHost } from './modules/generation/provider-inputs.ts';
import { createInputsResolver } from './modules/generation/inputs.ts';
import { createScenesModule } from './modules/scenes/scenes.module.ts';
import { createEnvironmentsModule } from './modules/environments/environments.module.ts';
import { createEnhancementsModule } from './modules/enhancements/enhancements.module.ts';
import { createVideosModule } from './modules/videos/videos.module.ts';
import { createIdempotencyModule } from './modules/idempotency/idempotency.module.ts';
import { createChanges } from './events/changes.ts';
import { redisTransport } from './events/redis-transport.ts';
import { createWebhooksModule } from './modules/webhooks/webhooks.module.ts';
import { createConsoleModule } from './modules/console/console.module.ts';
import type { PendingSweep } from './modules/generation/pending-sweep.ts';
import { createGenerationModule } from './modules/generation/generation.module.ts';
import type { FeatureModule } from './modules/feature-module.ts';
import { blobRoutes } from './http/blob.routes.ts';
import type { AssetsService } from './modules/assets/assets.service.ts';
import type { ExtractionService } from './modules/extraction/extraction.service.ts';
import type { BrandDnaService } from './modules/brand-dna/brand-dna.service.ts';
import type { WebhooksService } from './modules/webhooks/webhooks.service.ts';
import type { UsageLedger } from './modules/usage/usage.ledger.ts';
import { atelierVersion, createProvenance, type Provenance } from './adapters/provenance/provenance.ts';

export interface DepsOverrides extends CoreOverrides {
  rateLimiter?: RateLimiter;
  byteLimiter?: RateLimiter;
  storage?: ObjectStorage;
  /** Outbound fetcher (tests: an address policy that allows one local server). */
  fetcher?: Fetcher;
  /** Wraps the engines the settings chose (tests: observe what an engine was asked). */
  engines?: (made: GenerationEngines) => GenerationEngines;
  /** Content Credentials signing (tests and benches: false stores generated files unsigned). */
  provenance?: false;
  /** scrypt's cost N for new console passwords (tests: a cheaper one; stored hashes carry theirs). */
  passwordCost?: number;
}

/** The app's dependencies, and what the CLI, the benches and the tests read beside them. */
export type Deps = AppDeps & {
  /** Quota ledger: reserve at create time, commit on success, release on failure. */
  usage: UsageLedger;
  /** Upload flow and asset reads; extraction commits and generation reuse it. */
  assets: AssetsService;
  /** URL extraction runs and commits; see src/modules/extraction. */
  extraction: ExtractionService;
  /** Brand DNA versions; generation reads `brandDna.getActiveDna(brandId, orgId)`. */
  brandDna: BrandDnaService;
  /** Signed webhook endpoints and deliveries (src/modules/webhooks): the admin CLI and the API. */
  webhooks: WebhooksService;
  startWorkers(opts?: StartOptions): Promise<void>;
  /** One pass of the pending-work sweep (its job runs it every minute; tests and operators may call it). */
  sweepPending: PendingSweep['sweep'];
  /** Content Credentials (C2PA) for generated files; `ready()` loads the signer at start. */
  provenance: Provenance;
  close(): Promise<void>;
};

/** Opens the database (and runs migrations), loads plans and wires the shared services. */
export async function createDeps(config: Config, o: DepsOverrides = {}): Promise<Deps> {
  const { clock, plans, db, repo, readCache, access } = await openCore(config, o);
  const rateLimiter =
    o.rateLimiter ??
    (config.redisUrl
      ? createRedisRateLimiter(config.redisUrl, config.rateLimit, `${config.queuePrefix}:rl:`)
      : createMemoryRateLimiter(config.rateLimit));
  const byteLimiter =
    o.byteLimiter ??
    (config.redisUrl
      ? createRedisRateLimiter(config.redisUrl, config.byteLimit, `${config.queuePrefix}:rlb:`)
      : createMemoryRateLimiter(config.byteLimit));
  const metrics = createMetrics();
  // Resource changes (long-poll, webhooks): in process; Redis pub/sub in the scaled mode.
  const changesLog = createLogger(config).child({ component: 'changes' });
  const changes = createChanges(
    config.redisUrl ? redisTransport(config.redisUrl, { prefix: config.queuePrefix, log: changesLog }) : undefined,
    changesLog,
  );
  const storage = o.storage ?? openObjectStorage(config, clock);
  const redisReady = config.redisUrl ? redisCheck(config.redisUrl) : undefined;
  const readiness: ReadinessCheck[] = [
    { name: 'database', check: () => db.ping() },
    ...(redisReady ? [redisReady] : []),
    storageCheck(storage),
  ];
  const jobs = openJobs(config, db, o, metrics.jobs.observer);
  metrics.jobs.watch(jobs);
  // Generated files are signed where they are stored (serve's workers or `atelier worker`), each
  // process with the signer from its own settings (or its data folder's development certificate).
  const version = atelierVersion();
  // The local engines' CPU work (and the signing) runs on its own threads (0: on the event loop).
  const enginePool =
    config.engineThreads > 0 ? createThreadPool({ file: ENGINE_WORKER, threads: config.engineThreads }) : undefined;
  const provenance = createProvenance({
    ...(enginePool ? { signOn: pooledSigning(enginePool) } : {}),
    settings: config.c2pa,
    dataDir: config.dataDir,
    logger: createLogger(config).child({ component: 'provenance' }),
    version,
    scaled: config.redisUrl !== undefined,
  });
  const assetsModule = createAssetsModule({
    db,
    storage,
    jobs,
    clock,
    config,
    changes,
    ...(o.provenance === false
      ? {}
      : {
          provenance: {
            signer: provenance,
            version,
            enabledFor: async (orgId: string) => (await access.getOrganization(orgId))?.contentCredentials ?? true,
          },
        }),
  });
  const fetcher = o.fetcher ?? createFetcher({ allowPrivate: config.allowPrivateFetch });
  const extractionModule = createExtractionModule({
    db,
    storage,
    fetcher,
    jobs,
    clock,
    config,
    plans,
    assets: assetsModule.service,
    changes,
  });
  const usageModule = createUsageModule({ db, clock, plans, orgs: access });
  const usage = usageModule.ledger;
  const brandDnaModule = createBrandDnaModule({ db, storage, jobs, clock, config, usage, fetcher, changes });
  const made = createGenerationEngines(
    { longSide: config.imageLongSide, image: config.imageEngine, llm: config.llm, video: config.video },
    {
      logger: createLogger(config).child({ component: 'generation' }),
      inputHost: createStorageInputHost(storage, { mode: config.inputLinks }),
      allowPrivateDownloads: config.allowPrivateFetch,
      pool: enginePool,
    },
  );
  const engines = o.engines ? o.engines(made) : made;
  const inputs = createInputsResolver({ db, plans, brandDna: brandDnaModule.service });
  const scenesModule = createScenesModule({
    db,
    plans,
    storage,
    jobs,
    clock,
    config,
    usage,
    assets: assetsModule.service,
    inputs,
    engines,
    changes,
  });
  const generationDeps = { db, jobs, clock, config, usage, assets: assetsModule.service, inputs, engines, changes };
  const environmentsModule = createEnvironmentsModule(generationDeps);
  const enhancementsModule = createEnhancementsModule({ ...generationDeps, enhancer: engines.enhancer });
  const videosModule = createVideosModule({ ...generationDeps, plans, storage });
  const idempotencyModule = createIdempotencyModule({ db, clock });
  // Signed webhooks: terminal changes become deliveries (a sink: once, in the publishing process).
  const webhooksModule = createWebhooksModule({ db, clock, fetcher, jobs, config, access });
  changes.addSink((change) => webhooksModule.service.onChange(change));
  const consoleModule = createConsoleModule({
    db,
    clock,
    config,
    ...(o.passwordCost ? { passwordCost: o.passwordCost } : {}),
  });
  const brandsModule = createBrandsModule({ db, readCache, clock, storage, config, assetRefs: assetsModule.refs });
  const accessModule = createAccessModule({ repo, access, clock, config, console: consoleModule.service });
  const keyUsage = accessModule.keyUsage;
  // Every feature, in the order of its /v1 routes (app.ts registers them in this order: the OpenAPI
  // document's, hence the SDK's types and the agent tools'); the signed blob links (src/http) sit
  // among them. The jobs, schedules and waiting work of each are registered from this list.
  const features: FeatureModule[] = [
    brandsModule,
    usageModule,
    accessModule,
    { name: 'blobs', routes: blobRoutes({ storage, clock }) },
    assetsModule,
    extractionModule,
    brandDnaModule,
    scenesModule,
    environmentsModule,
    enhancementsModule,
    videosModule,
    idempotencyModule,
    webhooksModule,
    consoleModule,
  ];
  // Generation work whose job never reached the queue: enqueued again, or ended past the limit.
  const generationModule = createGenerationModule({
    db,
    jobs,
    clock,
    storage,
    config,
    kinds: features.flatMap((m) => m.pending ?? []),
  });
  const modules: FeatureModule[] = [...features, generationModule];
  for (const m of modules) jobs.register(...(m.jobs ?? []));
  const schedules = modules.flatMap((m) => m.schedules ?? []);
  return {
    config,
    db,
    clock,
    plans,
    access,
    rateLimiter,
    byteLimiter,
    readiness,
    keyUsage,
    usage,
    metrics,
    storage,
    fetcher,
    jobs,
    assets: assetsModule.service,
    extraction: extractionModule.service,
    brandDna: brandDnaModule.service,
    idempotency: idempotencyModule.repo,
    changes,
    webhooks: webhooksModule.service,
    console: consoleModule.service,
    modules,
    sweepPending: generationModule.sweep,
    provenance,
    /** Starts consuming jobs (serve, worker, tests) after putting every module's schedule in place. */
    async startWorkers(opts = {}) {
      for (const sch of schedules) await jobs.schedule(sch.name, sch.payload, { everyMs: sch.everyMs });
      await jobs.startWorkers(opts);
    },
    async close() {
      await jobs.stop(); // first: running jobs may still use the database and storage
      await changes.close();
      await keyUsage.close();
      await rateLimiter.close();
      await byteLimiter.close();
      await enginePool?.close();
      await redisReady?.close();
      await storage.close();
      await db.close();
    },
  };
}
