import type { Database } from '../../adapters/db/database.ts';
import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import type { Clock } from '../../clock.ts';
import type { Changes } from '../../events/changes.ts';
import type { JobDefinition, JobSystem } from '../../jobs/types.ts';
import { createAssetsRepo } from './assets.repo.ts';
import { type AssetsServiceDeps, createAssetsService } from './assets.service.ts';
import { assetJobs, cleanupUploadsJob } from './assets.jobs.ts';
import { defineModule } from '../feature-module.ts';
import { createAssetRefs } from './asset-refs.ts';
import { assetsRoutes } from './assets.routes.ts';

/** How often never-confirmed uploads are looked for. */
const CLEANUP_EVERY_MS = 5 * 60_000;

export interface AssetsModuleDeps extends Pick<AssetsServiceDeps, 'config' | 'provenance'> {
  db: Database;
  storage: ObjectStorage;
  jobs: JobSystem;
  clock: Clock;
  changes: Changes;
}

/**
 * Wires the assets feature: its service, its jobs, its schedules and its routes, and the asset
 * lookup other modules read assets through (`refs`: a brand's logo).
 */
export function createAssetsModule(deps: AssetsModuleDeps) {
  const repo = createAssetsRepo(deps.db);
  const service = createAssetsService({
    repo,
    storage: deps.storage,
    jobs: deps.jobs,
    clock: deps.clock,
    config: deps.config,
    ...(deps.provenance ? { provenance: deps.provenance } : {}),
  });
  const jobs: JobDefinition[] = assetJobs({
    repo,
    storage: deps.storage,
    clock: deps.clock,
    changes: deps.changes,
    cleanupExpiredUploads: () => service.cleanupExpiredUploads(),
  });
  const schedules = [{ name: cleanupUploadsJob.name, payload: {}, everyMs: CLEANUP_EVERY_MS }];
  const routes = assetsRoutes({ db: deps.db, storage: deps.storage, clock: deps.clock, assets: service });
  return defineModule({ name: 'assets', repo, service, refs: createAssetRefs(deps.db), jobs, schedules, routes });
}
