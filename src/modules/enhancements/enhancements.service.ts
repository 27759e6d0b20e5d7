import { fromJson, toJson } from '../../adapters/db/columns.ts';
import { fieldError, notFound } from '../../http/errors.ts';
import { textProblem } from '../../http/schemas.ts';
import type { Principal } from '../access/access.service.ts';
import type { Warning } from '../generation/generation.schemas.ts';
import type { PromptEnhancementsTable } from './enhancements.tables.ts';
import type { InputsResolver } from '../generation/inputs.ts';
import { lifecycleMembers } from '../generation/lifecycle.ts';
import { createRun, type CreateRunDeps } from '../generation/runs.ts';
import { sceneEnhancementRun } from './enhancements.jobs.ts';
import type { CreateSceneEnhancementBody, SceneEnhancement } from './enhancements.schemas.ts';

export interface EnhancementsServiceDeps extends CreateRunDeps<'prompt_enhancements'> {
  inputs: InputsResolver;
}

function present(row: PromptEnhancementsTable): SceneEnhancement {
  const out: SceneEnhancement = {
    promptEnhancementId: row.id,
    brandId: row.brand_id,
    originalPrompt: row.original_prompt,
    useBrandDna: row.use_brand_dna === 1,
    partner: row.partner as SceneEnhancement['partner'],
    warnings: fromJson<Warning[]>(row.warnings, []),
    status: row.status as SceneEnhancement['status'],
    ...lifecycleMembers(row),
  };
  if (row.optimized_prompt !== null) out.optimizedPrompt = row.optimized_prompt;
  if (row.theme !== null) out.theme = row.theme;
  return out;
}

/** Scene prompt enhancements: create (one job) and read. */
export function createEnhancementsService(deps: EnhancementsServiceDeps) {
  const { repo } = deps;
  return {
    async createScene(p: Principal, brandId: string, body: CreateSceneEnhancementBody): Promise<SceneEnhancement> {
      const problem = textProblem(body.originalPrompt, true);
      if (problem) throw fieldError('body.originalPrompt', problem);
      const { inputs, useBrandDna } = await deps.inputs.resolve(p, brandId, body);
      const row = await createRun(deps, sceneEnhancementRun, p.org.id, () => ({
        brand_id: inputs.brand.id,
        kind: 'scene',
        original_prompt: body.originalPrompt,
        optimized_prompt: null,
        theme: null,
        use_brand_dna: useBrandDna ? 1 : 0,
        partner: body.partner ?? 'default',
        aspect_ratio: body.aspectRatio ?? null,
        product_asset_ids: toJson(inputs.products.map((a) => a.assetId)),
        environment_asset_id: inputs.environment?.assetId ?? null,
        brand_dna_version_id: inputs.dna?.versionId ?? null,
        context: toJson(inputs),
        warnings: '[]',
        engine: null,
      }));
      return present(row);
    },

    async getScene(p: Principal, brandId: string, id: string): Promise<SceneEnhancement> {
      const brand = await deps.inputs.brandOf(p.org.id, brandId);
      const row = await repo.find(p.org.id, id);
      if (!row || row.brand_id !== brand.id || row.kind !== 'scene') {
        throw notFound(`Scene prompt enhancement ${id} not found`, 'NOT_FOUND');
      }
      return present(row);
    },
  };
}

export type EnhancementsService = ReturnType<typeof createEnhancementsService>;
