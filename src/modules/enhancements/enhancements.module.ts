import type { AppDeps } from '../../app-deps.ts';
import type { SceneEnhancer } from '../../engines/text/scene-enhancer.ts';
import type { InputsResolver } from '../generation/inputs.ts';
import { createRunsRepo } from '../generation/runs.repo.ts';
import { pendingKind } from '../generation/pending-sweep.ts';
import { enhancementJobs, sceneEnhancementJob, sceneEnhancementJobId } from './enhancements.jobs.ts';
import { createEnhancementsService } from './enhancements.service.ts';

/** Wires prompt enhancements: repo, service (routes) and the enhancement job. */
export function createEnhancementsModule(
  deps: Pick<AppDeps, 'db' | 'jobs' | 'clock' | 'usage' | 'changes'> & {
    inputs: InputsResolver;
    enhancer: SceneEnhancer;
  },
) {
  const repo = createRunsRepo(deps.db, 'prompt_enhancements');
  const service = createEnhancementsService({ ...deps, repo });
  const jobs = enhancementJobs({ ...deps, repo });
  const pending = [
    pendingKind(jobs, sceneEnhancementJob, 'prompt_enhancements', (r) => ({
      payload: { promptEnhancementId: r.id },
      jobId: sceneEnhancementJobId(r.id as string),
    })),
  ];
  return { service, jobs, pending };
}
