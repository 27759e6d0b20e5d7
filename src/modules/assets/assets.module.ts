import type { AppDeps } from '../../app-deps.ts';
import type { JobDefinition } from '../../jobs/types.ts';
import { createAssetsRepo } from './assets.repo.ts';
import { type AssetsServiceDeps, createAssetsService } from './assets.service.ts';
import { assetJobs, cleanupUploadsJob } from './assets.jobs.ts';

/** How often never-confirmed uploads are looked for. */
const CLEANUP_EVERY_MS = 5 * 60_000;

/** Wires the assets feature: its service, its jobs and its schedules. */
export function createAssetsModule(
  deps: Pick<AppDeps, 'db' | 'storage' | 'jobs' | 'clock' | 'config' | 'changes'> &
    Pick<AssetsServiceDeps, 'provenance'>,
) {
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
  return { repo, service, jobs, schedules };
}
