import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import { defineModule } from '../feature-module.ts';
import { type PendingSweepDeps, pendingSweep } from './pending-sweep.ts';
import { PURGE_PROVIDER_INPUTS_EVERY_MS, providerInputsPurgeJob, purgeProviderInputsJob } from './provider-inputs.ts';

export interface GenerationModuleDeps extends Omit<PendingSweepDeps, 'expireAfterMs'> {
  /** ATELIER_PENDING_LIMIT_MINUTES, in ms. */
  config: { pendingLimitMs: number };
  /** Where the files handed to hosted providers are kept a day or two (provider-inputs.ts). */
  storage: Pick<ObjectStorage, 'deletePrefix'>;
}

/**
 * The shared run lifecycle's own upkeep: the pending sweep over every generation module's waiting
 * work (`kinds`: the other modules' `pending`), and the purge of the files handed to providers;
 * their jobs and schedules. `sweep` runs one pass (tests and operators may call it).
 */
export function createGenerationModule(deps: GenerationModuleDeps) {
  const pendingWork = pendingSweep({
    db: deps.db,
    jobs: deps.jobs,
    clock: deps.clock,
    expireAfterMs: deps.config.pendingLimitMs,
    kinds: deps.kinds,
  });
  return defineModule({
    name: 'generation',
    sweep: pendingWork.sweep,
    jobs: [providerInputsPurgeJob({ storage: deps.storage }), pendingWork.job],
    schedules: [
      pendingWork.schedule,
      { name: purgeProviderInputsJob.name, payload: {}, everyMs: PURGE_PROVIDER_INPUTS_EVERY_MS },
    ],
  });
}
