import type { Database } from '../../adapters/db/database.ts';
import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import type { Clock } from '../../clock.ts';
import type { Changes } from '../../events/changes.ts';
import type { JobSystem } from '../../jobs/types.ts';
import type { AssetsService } from '../assets/assets.service.ts';
import type { PlanCatalog } from '../usage/plans.ts';
import type { UsageLedger } from '../usage/usage.ledger.ts';
import type { GenerationEngines } from '../generation/engines.ts';
import type { InputsResolver } from '../generation/inputs.ts';
import { pendingRuns } from '../generation/runs.ts';
import { sceneJobs, sceneVariationRun } from './scenes.jobs.ts';
import { createScenesRepo } from './scenes.repo.ts';
import { createScenesService } from './scenes.service.ts';
import { defineModule } from '../feature-module.ts';
import { scenesRoutes } from './scenes.routes.ts';

export interface ScenesModuleDeps {
  db: Database;
  storage: ObjectStorage;
  jobs: JobSystem;
  clock: Clock;
  /** ATELIER_IMAGE_LONG_SIDE: the long side of generated images in px. */
  config: { imageLongSide: number };
  usage: UsageLedger;
  assets: AssetsService;
  plans: PlanCatalog;
  changes: Changes;
  inputs: InputsResolver;
  engines: GenerationEngines;
}

/** Wires scene forges: repo, service, routes, the variation job and its waiting work (the sweep's). */
export function createScenesModule(deps: ScenesModuleDeps) {
  const repo = createScenesRepo(deps.db);
  const service = createScenesService({ ...deps, repo });
  const jobs = sceneJobs({ ...deps, repo, longSide: deps.config.imageLongSide });
  const pending = [pendingRuns(jobs, sceneVariationRun)];
  const routes = scenesRoutes({ scenes: service });
  return defineModule({ name: 'scenes', service, jobs, repo, pending, routes });
}
