import type { AppDeps } from '../../app-deps.ts';
import type { GenerationEngines } from '../generation/engines.ts';
import type { InputsResolver } from '../generation/inputs.ts';
import { pendingKind } from '../generation/pending-sweep.ts';
import { sceneJobs, sceneVariationJob, sceneVariationJobId } from './scenes.jobs.ts';
import { createScenesRepo } from './scenes.repo.ts';
import { createScenesService } from './scenes.service.ts';

/** Wires scene forges: repo, service (routes), the variation job and its waiting work (the sweep's). */
export function createScenesModule(
  deps: Pick<AppDeps, 'db' | 'storage' | 'jobs' | 'clock' | 'config' | 'usage' | 'assets' | 'plans' | 'changes'> & {
    inputs: InputsResolver;
    engines: GenerationEngines;
  },
) {
  const repo = createScenesRepo(deps.db);
  const service = createScenesService({ ...deps, repo });
  const jobs = sceneJobs({ ...deps, repo, longSide: deps.config.imageLongSide });
  const pending = [
    pendingKind(jobs, sceneVariationJob, 'generated_images', (r) => ({
      payload: { variationId: r.id },
      jobId: sceneVariationJobId(r.id as string),
    })),
  ];
  return { service, jobs, repo, pending };
}
