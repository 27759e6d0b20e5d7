import { Type } from 'typebox';
import { fromJson } from '../../adapters/db/columns.ts';
import type { Clock } from '../../clock.ts';
import { GenerationError, outputSize } from '../../engines/image/scene-engine.ts';
import { Uuid } from '../../http/schemas.ts';
import { defineJob, type JobDefinition, type JobRef } from '../../jobs/types.ts';
import type { AssetsService } from '../assets/assets.service.ts';
import type { GenerationEngines } from '../generation/engines.ts';
import type { GenerationInputs } from '../generation/inputs.ts';
import { environmentProvenance } from '../generation/provenance.ts';
import type { UsageLedger } from '../usage/usage.ledger.ts';
import type { EnvironmentsRepo } from './environments.repo.ts';
import { type ChangePublisher, publishChange } from '../../events/publish.ts';

const Payload = Type.Object({ environmentGenerationId: Uuid });

/** The job id is `environments.generate.<id>`. */
export const environmentJobId = (id: string) => `environments.generate.${id}`;
export const environmentJob: JobRef<typeof Payload> = { name: 'environments.generate', payload: Payload };

/**
 * Environments are made landscape 3:2 (a forge cover-crops them to its own aspect ratio, and 3:2
 * keeps enough of the floor and wall for every ratio from 9:16 to 21:9).
 */
export const ENVIRONMENT_ASPECT = '3:2';

export interface EnvironmentJobsDeps {
  repo: EnvironmentsRepo;
  assets: Pick<AssetsService, 'storeGenerated'>;
  usage: Pick<UsageLedger, 'commit' | 'release'>;
  engines: Pick<GenerationEngines, 'environment'>;
  clock: Clock;
  longSide: number;
  changes: ChangePublisher;
}

/**
 * An environment run: the environment engine makes the backdrop from the prompt (and the brand's
 * palette when its active DNA was used), which is stored as a `complete` asset of type
 * `environment` under the id fixed at create; then the run is completed and its unit committed.
 * Idempotent like the scene variations.
 */
export function environmentJobs(deps: EnvironmentJobsDeps): JobDefinition[] {
  const now = () => deps.clock().toISOString();
  /** Announces the run as it is now (long-poll, webhooks); after the transition committed. */
  const changed = (id: string) => publishChange(deps, 'environment_generation', () => deps.repo.byId(id));
  const fail = async (id: string, message: string) => {
    const row = await deps.repo.byId(id);
    if (!row) return;
    if (await deps.repo.finish(id, 'failed', { error_code: 'GENERATION_FAILED', error_message: message }, now())) {
      if (row.reservation_id) await deps.usage.release(row.reservation_id);
      await changed(id);
    }
  };
  return [
    defineJob({
      ...environmentJob,
      queue: 'generation',
      attempts: 3,
      backoffMs: 2000,
      timeoutMs: 300_000,
      async handler({ environmentGenerationId: id }, ctx) {
        if (!(await deps.repo.start(id, now()))) return;
        const row = await deps.repo.byId(id);
        if (!row) return;
        await publishChange(deps, 'environment_generation', row);
        const inputs = fromJson<GenerationInputs>(row.context, null as never);
        const { width, height } = outputSize(ENVIRONMENT_ASPECT, deps.longSide);
        try {
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
          if (await deps.repo.finish(id, 'completed', { engine: env.engine }, now())) {
            if (row.reservation_id) await deps.usage.commit(row.reservation_id);
            await changed(id);
          }
        } catch (err) {
          if (err instanceof GenerationError && !err.retryable) return void (await fail(id, err.message));
          throw err;
        }
      },
      async onFailed({ environmentGenerationId: id }, error, ctx) {
        ctx.log.error(
          { environmentGenerationId: id, err: error.message },
          'environment generation failed after retries',
        );
        await fail(
          id,
          error instanceof GenerationError
            ? error.message
            : 'The environment could not be generated after several attempts; try again',
        );
      },
    }),
  ];
}
