import type { Database } from '../../adapters/db/database.ts';
import type { Fetcher } from '../../adapters/fetch/fetcher.ts';
import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import type { Clock } from '../../clock.ts';
import type { Changes } from '../../events/changes.ts';
import { defineJob, type JobDefinition, type JobSystem, JobTimeoutError } from '../../jobs/types.ts';
import type { AssetsService } from '../assets/assets.service.ts';
import type { PlanCatalog } from '../usage/plans.ts';
import { createExtractionRepo } from './extraction.repo.ts';
import { createExtractionService, type ExtractionService, type ExtractionSettings } from './extraction.service.ts';
import { purgeExtractionsJob, runExtractionJob, sweepExtractionsJob } from './extraction.jobs.ts';
import { defineModule } from '../feature-module.ts';
import { extractionRoutes } from './extraction.routes.ts';

/** How often runs stuck past the timeout are failed. */
const SWEEP_EVERY_MS = 60_000;
/** How often expired extractions and staging days are removed. */
const PURGE_EVERY_MS = 3_600_000;

export interface ExtractionModuleDeps {
  db: Database;
  storage: ObjectStorage;
  fetcher: Fetcher;
  jobs: JobSystem;
  clock: Clock;
  config: ExtractionSettings;
  plans: PlanCatalog;
  assets: AssetsService;
  changes: Changes;
}

/** Wires URL extraction: its service, its jobs, its schedules and its routes. */
export function createExtractionModule(deps: ExtractionModuleDeps) {
  const repo = createExtractionRepo(deps.db);
  const service = createExtractionService({ ...deps, repo });
  const jobs = extractionJobs(service, deps.config.extractionTimeoutSeconds);
  const schedules = [
    { name: sweepExtractionsJob.name, payload: {}, everyMs: SWEEP_EVERY_MS },
    { name: purgeExtractionsJob.name, payload: {}, everyMs: PURGE_EVERY_MS },
  ];
  const routes = extractionRoutes({ extraction: service });
  return defineModule({ name: 'extraction', service, jobs, schedules, routes });
}

/**
 * The run (queue `extraction`), the timeout sweep and the retention purge (queue `maintenance`).
 * The run's own deadline (submit + the timeout) fires inside the handler; the job timeout is a
 * little longer and only catches a handler that ignores its signal.
 */
function extractionJobs(service: ExtractionService, timeoutSeconds: number): JobDefinition[] {
  const run = defineJob({
    ...runExtractionJob,
    queue: 'extraction',
    attempts: 2,
    backoffMs: 2000,
    timeoutMs: timeoutSeconds * 1000 + 15_000,
    handler: ({ extractionId }, ctx) => service.run(extractionId, ctx),
    async onFailed({ extractionId }, error, ctx) {
      ctx.log.error({ extractionId, err: error.message }, 'extraction run failed after retries');
      await service.failRun(extractionId, error instanceof JobTimeoutError);
    },
  });
  const sweep = defineJob({
    ...sweepExtractionsJob,
    queue: 'maintenance',
    attempts: 1,
    async handler() {
      await service.sweepStale();
    },
  });
  const purge = defineJob({
    ...purgeExtractionsJob,
    queue: 'maintenance',
    attempts: 1,
    timeoutMs: 600_000,
    async handler(_payload, ctx) {
      await service.purgeExpired(ctx.log);
    },
  });
  return [run, sweep, purge];
}
