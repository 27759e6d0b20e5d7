import { randomUUID } from 'node:crypto';
import { toJson } from '../../adapters/db/columns.ts';
import { fieldError, notFound } from '../../http/errors.ts';
import { textProblem } from '../../http/schemas.ts';
import type { Principal } from '../access/access.service.ts';
import type { AssetsService } from '../assets/assets.service.ts';
import type { InputsResolver } from '../generation/inputs.ts';
import { assetRef, lifecycleMembers } from '../generation/lifecycle.ts';
import { seedOf } from '../generation/rollup.ts';
import { createRun, type CreateRunDeps } from '../generation/runs.ts';
import { environmentRun } from './environments.jobs.ts';
import type { EnvironmentRow } from './environments.repo.ts';
import type { CreateEnvironmentBody, EnvironmentGeneration } from './environments.schemas.ts';

export interface EnvironmentsServiceDeps extends CreateRunDeps<'environment_generations'> {
  inputs: InputsResolver;
  assets: Pick<AssetsService, 'refs'>;
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
      const row = await createRun(deps, environmentRun, p.org.id, (id) => ({
        brand_id: inputs.brand.id,
        prompt: body.prompt,
        context: toJson(inputs),
        seed: seedOf(id),
        asset_id: randomUUID(),
        engine: null,
      }));
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
