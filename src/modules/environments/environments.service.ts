import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import { toJson } from '../../adapters/db/columns.ts';
import { fieldError, notFound } from '../../http/errors.ts';
import { textProblem } from '../../http/schemas.ts';
import type { JobSystem } from '../../jobs/types.ts';
import type { Principal } from '../access/access.service.ts';
import type { AssetsService } from '../assets/assets.service.ts';
import type { InputsResolver } from '../generation/inputs.ts';
import { assetRef, lifecycleMembers, pendingLifecycle } from '../generation/lifecycle.ts';
import { reserveUnits, writeOrRelease } from '../generation/quota.ts';
import { seedOf } from '../generation/rollup.ts';
import type { UsageLedger } from '../usage/usage.ledger.ts';
import { environmentJob, environmentJobId } from './environments.jobs.ts';
import type { EnvironmentRow, EnvironmentsRepo } from './environments.repo.ts';
import type { CreateEnvironmentBody, EnvironmentGeneration } from './environments.schemas.ts';

export const ENVIRONMENT_POOL = 'environment_generations';

export interface EnvironmentsServiceDeps {
  repo: EnvironmentsRepo;
  inputs: InputsResolver;
  usage: Pick<UsageLedger, 'reserve' | 'release'>;
  jobs: Pick<JobSystem, 'enqueue'>;
  assets: Pick<AssetsService, 'refs'>;
  clock: Clock;
}

/** Environment generation: a backdrop image from a prompt, stored as an `environment` asset. */
export function createEnvironmentsService(deps: EnvironmentsServiceDeps) {
  const { repo } = deps;

  async function present(row: EnvironmentRow): Promise<EnvironmentGeneration> {
    const out: EnvironmentGeneration = {
      environmentGenerationId: row.id,
      brandId: row.brand_id,
      prompt: row.prompt,
      status: row.status as EnvironmentGeneration['status'],
      ...lifecycleMembers(row),
    };
    if (row.status === 'completed') {
      out.generatedAsset = assetRef(
        await deps.assets.refs(row.organization_id, [row.asset_id]),
        row.asset_id,
        'environment',
      );
    }
    return out;
  }

  return {
    async create(p: Principal, brandId: string, body: CreateEnvironmentBody): Promise<EnvironmentGeneration> {
      const problem = textProblem(body.prompt, true);
      if (problem) throw fieldError('body.prompt', problem);
      // No useBrandDna member: the brand's active DNA (palette) is used whenever the plan has it.
      const { inputs } = await deps.inputs.resolve(p, brandId, {});
      const id = randomUUID();
      const [reservationId] = await reserveUnits(deps.usage, p.org.id, ENVIRONMENT_POOL, [id]);
      const at = deps.clock().toISOString();
      const row: EnvironmentRow = {
        id,
        organization_id: p.org.id,
        brand_id: inputs.brand.id,
        prompt: body.prompt,
        context: toJson(inputs),
        seed: seedOf(id),
        asset_id: randomUUID(),
        reservation_id: reservationId ?? null,
        engine: null,
        ...pendingLifecycle(at),
      };
      await writeOrRelease(
        deps.usage,
        [reservationId],
        async () => {
          await repo.insert(row);
          await deps.jobs.enqueue(environmentJob, { environmentGenerationId: id }, { jobId: environmentJobId(id) });
        },
        () => repo.delete(id),
      );
      return present(row);
    },

    async get(p: Principal, id: string): Promise<EnvironmentGeneration> {
      const row = await repo.find(p.org.id, id);
      if (!row) throw notFound(`Environment generation ${id} not found`, 'NOT_FOUND');
      return present(row);
    },
  };
}

export type EnvironmentsService = ReturnType<typeof createEnvironmentsService>;
