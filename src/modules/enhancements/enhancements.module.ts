import type { Database } from '../../adapters/db/database.ts';
import type { Clock } from '../../clock.ts';
import type { Changes } from '../../events/changes.ts';
import type { JobSystem } from '../../jobs/types.ts';
import type { UsageLedger } from '../usage/usage.ledger.ts';
import type { SceneEnhancer } from '../../engines/text/scene-enhancer.ts';
import type { InputsResolver } from '../generation/inputs.ts';
import { createRunsRepo } from '../generation/runs.repo.ts';
import { pendingRuns } from '../generation/runs.ts';
import { enhancementJobs, sceneEnhancementRun } from './enhancements.jobs.ts';
import { createEnhancementsService } from './enhancements.service.ts';
import { defineModule } from '../feature-module.ts';
import { enhancementsRoutes } from './enhancements.routes.ts';

export interface EnhancementsModuleDeps {
  db: Database;
  jobs: JobSystem;
  clock: Clock;
  usage: UsageLedger;
  changes: Changes;
  inputs: InputsResolver;
  enhancer: SceneEnhancer;
}

/** Wires prompt enhancements: repo, service, routes, the enhancement job and its waiting work. */
export function createEnhancementsModule(deps: EnhancementsModuleDeps) {
  const repo = createRunsRepo(deps.db, 'prompt_enhancements');
  const service = createEnhancementsService({ ...deps, repo });
  const jobs = enhancementJobs({ ...deps, repo });
  const pending = [pendingRuns(jobs, sceneEnhancementRun)];
  const routes = enhancementsRoutes({ enhancements: service });
  return defineModule({ name: 'enhancements', service, jobs, pending, routes });
}
