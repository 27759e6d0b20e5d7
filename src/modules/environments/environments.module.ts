import type { AppDeps } from '../../app-deps.ts';
import type { GenerationEngines } from '../generation/engines.ts';
import type { InputsResolver } from '../generation/inputs.ts';
import { pendingKind } from '../generation/pending-sweep.ts';
import { environmentJob, environmentJobId, environmentJobs } from './environments.jobs.ts';
import { createEnvironmentsRepo } from './environments.repo.ts';
import { createEnvironmentsService } from './environments.service.ts';

/** Wires environment generation: repo, service (routes) and its job. */
export function createEnvironmentsModule(
  deps: Pick<AppDeps, 'db' | 'jobs' | 'clock' | 'config' | 'usage' | 'assets' | 'changes'> & {
    inputs: InputsResolver;
    engines: GenerationEngines;
  },
) {
  const repo = createEnvironmentsRepo(deps.db);
  const service = createEnvironmentsService({ ...deps, repo });
  const jobs = environmentJobs({ ...deps, repo, longSide: deps.config.imageLongSide });
  const pending = [
    pendingKind(jobs, environmentJob, 'environment_generations', (r) => ({
      payload: { environmentGenerationId: r.id },
      jobId: environmentJobId(r.id as string),
    })),
  ];
  return { service, jobs, pending };
}
