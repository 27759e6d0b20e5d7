import type { AppDeps } from '../../app-deps.ts';
import { createRunsRepo } from '../generation/runs.repo.ts';
import { videoEnhancementJobs } from './video-enhancements.jobs.ts';
import { createVideoEnhancementsService } from './video-enhancements.service.ts';
import type { GenerationEngines } from '../generation/engines.ts';
import type { InputsResolver } from '../generation/inputs.ts';
import { createVideosRepo } from './videos.repo.ts';
import { videoJobs } from './videos.jobs.ts';
import { createVideosService } from './videos.service.ts';

/** Wires video generation and image-to-video prompt enhancement: repos, services (routes) and jobs. */
export function createVideosModule(
  deps: Pick<AppDeps, 'db' | 'plans' | 'storage' | 'jobs' | 'clock' | 'config' | 'usage' | 'assets' | 'changes'> & {
    inputs: InputsResolver;
    engines: Pick<GenerationEngines, 'video' | 'videoEnhancer'>;
  },
) {
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
  return { service, enhancements, jobs };
}
