import type { Database } from '../../adapters/db/database.ts';
import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import type { StorageSettings } from '../../adapters/storage/storage.ts';
import type { Clock } from '../../clock.ts';
import type { Changes } from '../../events/changes.ts';
import type { JobSystem } from '../../jobs/types.ts';
import type { AssetsService } from '../assets/assets.service.ts';
import type { PlanCatalog } from '../usage/plans.ts';
import type { UsageLedger } from '../usage/usage.ledger.ts';
import { createRunsRepo } from '../generation/runs.repo.ts';
import { pendingRuns } from '../generation/runs.ts';
import { videoEnhancementJobs, videoEnhancementRun } from './video-enhancements.jobs.ts';
import { createVideoEnhancementsService } from './video-enhancements.service.ts';
import type { GenerationEngines } from '../generation/engines.ts';
import type { InputsResolver } from '../generation/inputs.ts';
import { createVideosRepo } from './videos.repo.ts';
import { videoJobs, videoVariationRun } from './videos.jobs.ts';
import { createVideosService } from './videos.service.ts';
import { defineModule } from '../feature-module.ts';
import { videosRoutes } from './videos.routes.ts';

export interface VideosModuleDeps {
  db: Database;
  plans: PlanCatalog;
  storage: ObjectStorage;
  jobs: JobSystem;
  clock: Clock;
  /** The download links' lifetime (ATELIER_DOWNLOAD_LINK_TTL_SECONDS). */
  config: { storage: StorageSettings };
  usage: UsageLedger;
  assets: AssetsService;
  changes: Changes;
  inputs: InputsResolver;
  engines: Pick<GenerationEngines, 'video' | 'videoEnhancer'>;
}

/** Wires video generation and image-to-video prompt enhancement: repos, services, routes and jobs. */
export function createVideosModule(deps: VideosModuleDeps) {
  const repo = createVideosRepo(deps.db);
  const service = createVideosService({
    ...deps,
    repo,
    linkTtlSeconds: deps.config.storage.downloadLinkTtlSeconds,
  });
  const enhancementsRepo = createRunsRepo(deps.db, 'video_prompt_enhancements');
  const enhancements = createVideoEnhancementsService({ ...deps, repo: enhancementsRepo });
  const jobs = [
    ...videoJobs({ ...deps, repo, videoEngine: deps.engines.video }),
    ...videoEnhancementJobs({ ...deps, repo: enhancementsRepo, enhancer: deps.engines.videoEnhancer }),
  ];
  const pending = [pendingRuns(jobs, videoVariationRun), pendingRuns(jobs, videoEnhancementRun)];
  const routes = videosRoutes({ videos: service, videoEnhancements: enhancements });
  return defineModule({ name: 'videos', service, enhancements, jobs, pending, routes });
}
