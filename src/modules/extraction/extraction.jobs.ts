import { Type } from 'typebox';
import { Uuid } from '../../http/schemas.ts';
import { defineJob, type JobDefinition, type JobRef, JobTimeoutError } from '../../jobs/types.ts';
import type { ExtractionService } from './extraction.service.ts';

const RunPayload = Type.Object({ extractionId: Uuid });

/** Enqueued by submit with the job id `extraction.run.<extractionId>`. */
export const runExtractionJob: JobRef<typeof RunPayload> = { name: 'extraction.run', payload: RunPayload };
export const sweepExtractionsJob: JobRef = { name: 'extraction.sweep', payload: Type.Object({}) };
export const purgeExtractionsJob: JobRef = { name: 'extraction.purge', payload: Type.Object({}) };

/**
 * The run (queue `extraction`), the timeout sweep and the retention purge (queue `maintenance`).
 * The run's own deadline (submit + the timeout) fires inside the handler; the job timeout is a
 * little longer and only catches a handler that ignores its signal.
 */
export function extractionJobs(service: ExtractionService, timeoutSeconds: number): JobDefinition[] {
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
