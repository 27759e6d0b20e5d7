import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import { fromJson, toJson } from '../../adapters/db/columns.ts';
import { fieldError, notFound } from '../../http/errors.ts';
import { textProblem } from '../../http/schemas.ts';
import type { JobSystem } from '../../jobs/types.ts';
import type { Principal } from '../access/access.service.ts';
import type { Warning } from '../generation/generation.schemas.ts';
import type { PromptEnhancementsTable } from './enhancements.tables.ts';
import type { InputsResolver } from '../generation/inputs.ts';
import { lifecycleMembers, pendingLifecycle } from '../generation/lifecycle.ts';
import { reserveUnits, writeOrRelease } from '../generation/quota.ts';
import type { RunsRepo } from '../generation/runs.repo.ts';
import type { UsageLedger } from '../usage/usage.ledger.ts';
import { sceneEnhancementJob, sceneEnhancementJobId } from './enhancements.jobs.ts';
import type { CreateSceneEnhancementBody, SceneEnhancement } from './enhancements.schemas.ts';

export const ENHANCEMENT_POOL = 'prompt_enhancements';

export interface EnhancementsServiceDeps {
  repo: RunsRepo<'prompt_enhancements'>;
  inputs: InputsResolver;
  usage: Pick<UsageLedger, 'reserve' | 'release'>;
  jobs: Pick<JobSystem, 'enqueue'>;
  clock: Clock;
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
      const id = randomUUID();
      const [reservationId] = await reserveUnits(deps.usage, p.org.id, ENHANCEMENT_POOL, [id]);
      const at = deps.clock().toISOString();
      const row: PromptEnhancementsTable = {
        id,
        organization_id: p.org.id,
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
        reservation_id: reservationId ?? null,
        engine: null,
        ...pendingLifecycle(at),
      };
      await writeOrRelease(
        deps.usage,
        [reservationId],
        async () => {
          await repo.insert(row);
          await deps.jobs.enqueue(
            sceneEnhancementJob,
            { promptEnhancementId: id },
            { jobId: sceneEnhancementJobId(id) },
          );
        },
        () => repo.delete(id),
      );
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
