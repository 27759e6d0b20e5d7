import { GenerationError, outputSize } from '../../engines/image/scene-engine.ts';
import type { JobDefinition } from '../../jobs/types.ts';
import type { AssetsService } from '../assets/assets.service.ts';
import type { GenerationEngines } from '../generation/engines.ts';
import { storedInputs } from '../generation/inputs.ts';
import { environmentProvenance } from '../generation/provenance.ts';
import { defineRunKind, type RunJobDeps, runJob } from '../generation/runs.ts';

/** An environment run; its job id is `environments.generate.<id>`. */
export const environmentRun = defineRunKind({
  table: 'environment_generations',
  job: 'environments.generate',
  idKey: 'environmentGenerationId',
  change: 'environment_generation',
  pool: 'environment_generations',
});

/**
 * Environments are made landscape 3:2 (a forge cover-crops them to its own aspect ratio, and 3:2
 * keeps enough of the floor and wall for every ratio from 9:16 to 21:9).
 */
export const ENVIRONMENT_ASPECT = '3:2';

export interface EnvironmentJobsDeps extends RunJobDeps<'environment_generations'> {
  assets: Pick<AssetsService, 'storeGenerated'>;
  engines: Pick<GenerationEngines, 'environment'>;
  longSide: number;
}

/**
 * An environment run: the environment engine makes the backdrop from the prompt (and the brand's
 * palette when its active DNA was used), which is stored as a `complete` asset of type
 * `environment` under the id fixed at create; then the run is completed and its unit committed.
 * Idempotent like the scene variations. An engine's refusal fails the run with its reason.
 */
export function environmentJobs(deps: EnvironmentJobsDeps): JobDefinition[] {
  return [
    runJob(environmentRun, deps, {
      backoffMs: 2000,
      timeoutMs: 300_000,
      async run(row, ctx) {
        const inputs = storedInputs(row.context);
        const { width, height } = outputSize(ENVIRONMENT_ASPECT, deps.longSide);
        const env = await deps.engines.environment.generate({
          prompt: row.prompt,
          width,
          height,
          seed: row.seed,
          palette: (inputs.dna?.palette ?? []).map((c) => c.hex),
          signal: ctx.signal,
        });
        ctx.signal.throwIfAborted();
        await deps.assets.storeGenerated({
          orgId: row.organization_id,
          brandId: row.brand_id,
          assetId: row.asset_id,
          png: env.png,
          fileName: `environment-${row.id.slice(0, 8)}.png`,
          type: 'environment',
          description: row.prompt.slice(0, 500),
          tags: ['generated', 'environment'],
          provenance: environmentProvenance(env.engine, 'An environment (backdrop) for product scenes'),
        });
        return { engine: env.engine };
      },
      failure: (error) => ({
        code: 'GENERATION_FAILED',
        message:
          error instanceof GenerationError
            ? error.message
            : 'The environment could not be generated after several attempts; try again',
      }),
      failedLog: 'environment generation failed after retries',
    }),
  ];
}
