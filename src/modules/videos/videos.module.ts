import type { AppDeps } from '../../app-deps.ts';
import type { GenerationEngines } from '../generation/engines.ts';
import type { InputsResolver } from '../generation/inputs.ts';
import { createVideosRepo } from './videos.repo.ts';
import { videoJobs } from './videos.jobs.ts';
import { createVideosService } from './videos.service.ts';

/** Wires video generation: repo, service (routes) and the variation job. */
export function createVideosModule(
  deps: Pick<AppDeps, 'db' | 'plans' | 'storage' | 'jobs' | 'clock' | 'config' | 'usage' | 'assets'> & {
    inputs: InputsResolver;
    engines: Pick<GenerationEngines, 'video'>;
  },
) {
  const repo = createVideosRepo(deps.db);
  const service = createVideosService({
    ...deps,
    repo,
    linkTtlSeconds: deps.config.storage.downloadLinkTtlSeconds,
  });
  const jobs = videoJobs({ ...deps, repo, videoEngine: deps.engines.video });
  return { service, jobs };
}
