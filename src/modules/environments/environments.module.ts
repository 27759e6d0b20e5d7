import type { Database } from '../../adapters/db/database.ts';
import type { Clock } from '../../clock.ts';
import type { Changes } from '../../events/changes.ts';
import type { JobSystem } from '../../jobs/types.ts';
import type { AssetsService } from '../assets/assets.service.ts';
import type { UsageLedger } from '../usage/usage.ledger.ts';
import type { GenerationEngines } from '../generation/engines.ts';
import type { InputsResolver } from '../generation/inputs.ts';
import { pendingRuns } from '../generation/runs.ts';
import { environmentJobs, environmentRun } from './environments.jobs.ts';
import { createEnvironmentsRepo } from './environments.repo.ts';
import { createEnvironmentsService } from './environments.service.ts';
import { defineModule } from '../feature-module.ts';
import { environmentsRoutes } from './environments.routes.ts';

export interface EnvironmentsModuleDeps {
  db: Database;
  jobs: JobSystem;
  clock: Clock;
  /** ATELIER_IMAGE_LONG_SIDE: the long side of generated images in px. */
  config: { imageLongSide: number };
  usage: UsageLedger;
  assets: AssetsService;
  changes: Changes;
  inputs: InputsResolver;
  engines: GenerationEngines;
}

/** Wires environment generation: repo, service, routes, its job and its waiting work. */
export function createEnvironmentsModule(deps: EnvironmentsModuleDeps) {
  const repo = createEnvironmentsRepo(deps.db);
  const service = createEnvironmentsService({ ...deps, repo });
  const jobs = environmentJobs({ ...deps, repo, longSide: deps.config.imageLongSide });
  const pending = [pendingRuns(jobs, environmentRun)];
  const routes = environmentsRoutes({ environments: service });
  return defineModule({ name: 'environments', service, jobs, pending, routes });
}
