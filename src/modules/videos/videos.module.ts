import type { AppDeps } from '../../app-deps.ts';
import { createRunsRepo } from '../generation/runs.repo.ts';
import { pendingKind } from '../generation/pending-sweep.ts';
import { videoEnhancementJob, videoEnhancementJobId, videoEnhancementJobs } from './video-enhancements.jobs.ts';
import { createVideoEnhancementsService } from './video-enhancements.service.ts';
import type { GenerationEngines } from '../generation/engines.ts';
import type { InputsResolver } from '../generation/inputs.ts';
import { createVideosRepo } from './videos.repo.ts';
import { videoJobs, videoVariationJob, videoVariationJobId } from './videos.jobs.ts';
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
  const pending = [
    pendingKind(jobs, videoVariationJob, 'generated_videos', (r) => ({
      payload: { variationId: r.id },
      jobId: videoVariationJobId(r.id as string),
    })),
    pendingKind(jobs, videoEnhancementJob, 'video_prompt_enhancements', (r) => ({
      payload: { promptEnhancementId: r.id },
      jobId: videoEnhancementJobId(r.id as string),
    })),
  ];
  return { service, enhancements, jobs, pending };
}
