import type { AppDeps } from '../../app-deps.ts';
import { createExtractionRepo } from './extraction.repo.ts';
import { createExtractionService } from './extraction.service.ts';
import { extractionJobs, purgeExtractionsJob, sweepExtractionsJob } from './extraction.jobs.ts';

/** How often runs stuck past the timeout are failed. */
const SWEEP_EVERY_MS = 60_000;
/** How often expired extractions and staging days are removed. */
const PURGE_EVERY_MS = 3_600_000;

/** Wires URL extraction: its service, its jobs and its schedules. */
export function createExtractionModule(
  deps: Pick<AppDeps, 'db' | 'storage' | 'fetcher' | 'jobs' | 'clock' | 'config' | 'plans' | 'assets' | 'changes'>,
) {
  const repo = createExtractionRepo(deps.db);
  const service = createExtractionService({ ...deps, repo });
  const jobs = extractionJobs(service, deps.config.extractionTimeoutSeconds);
  const schedules = [
    { name: sweepExtractionsJob.name, payload: {}, everyMs: SWEEP_EVERY_MS },
    { name: purgeExtractionsJob.name, payload: {}, everyMs: PURGE_EVERY_MS },
  ];
  return { service, jobs, schedules };
}
