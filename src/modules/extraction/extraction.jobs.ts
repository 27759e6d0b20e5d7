import { Type } from 'typebox';
import { Uuid } from '../../http/schemas.ts';
import type { JobRef } from '../../jobs/types.ts';

const RunPayload = Type.Object({ extractionId: Uuid });

/** Enqueued by submit with the job id `extraction.run.<extractionId>`. */
export const runExtractionJob: JobRef<typeof RunPayload> = { name: 'extraction.run', payload: RunPayload };
export const sweepExtractionsJob: JobRef = { name: 'extraction.sweep', payload: Type.Object({}) };
export const purgeExtractionsJob: JobRef = { name: 'extraction.purge', payload: Type.Object({}) };
