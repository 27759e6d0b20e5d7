import { randomUUID } from 'node:crypto';
import { fromJson, toJson } from '../../adapters/db/columns.ts';
import type { Clock } from '../../clock.ts';
import { applyPatches, buildCritique, type Critique } from '../../engines/critique/critique.ts';
import { planSteering } from '../../engines/image/steering.ts';
import type { SceneSteering } from '../../engines/image/scene-engine.ts';
import { conflict, notFound } from '../../http/errors.ts';
import type { JobSystem } from '../../jobs/types.ts';
import type { Principal } from '../access/access.service.ts';
import type { AssetsService } from '../assets/assets.service.ts';
import type { Scores } from '../generation/generation.schemas.ts';
import { storedInputs } from '../generation/inputs.ts';
import { pendingLifecycle } from '../generation/lifecycle.ts';
import { seedOf } from '../generation/rollup.ts';
import { createVariations } from '../generation/variations.ts';
import type { GenerationEngines } from '../generation/engines.ts';
import type { UsageLedger } from '../usage/usage.ledger.ts';
import { LAYOUTS, sceneVariationRun } from './scenes.jobs.ts';
import { blankVariation, type RefinementRow, type ScenesRepo, type VariationRow } from './scenes.repo.ts';
import type { RefineBody, SteerObjective } from './scenes.schemas.ts';

export interface RefinerDeps {
  repo: ScenesRepo;
  usage: Pick<UsageLedger, 'reserve' | 'release'>;
  jobs: Pick<JobSystem, 'enqueue'>;
  assets: Pick<AssetsService, 'readGenerated'>;
  clock: Clock;
  /** Scores and features of a PNG (on the engine threads when there are some). */
  engines: Pick<GenerationEngines, 'analyze'>;
}

/**
 * Refinement: a new generation of variations from a completed source variation, steered toward
 * one score. The source image is measured again (features and scores), its critique (stored, or
 * built now for plans without the critique feature) gives prompt patches for the objective, and
 * `planSteering` turns the features into engine levers, compounded with the source's own levers
 * when the source is itself a refinement. The variations are made by the same job as a forge's.
 */
/** What a refinement wrote: the create answers with these, not with a worker's progress since. */
export interface Refined {
  forgeId: string;
  refinement: RefinementRow;
  variations: VariationRow[];
}

export function createRefiner(deps: RefinerDeps) {
  const { repo } = deps;
  return async function refine(p: Principal, forgeId: string, body: RefineBody): Promise<Refined> {
    const objective: SteerObjective = body.steerObjective ?? 'attention_potential';
    const count = body.variationCount ?? 2;
    const forge = await repo.findForge(p.org.id, forgeId);
    if (!forge) throw notFound(`Scene forge ${forgeId} not found`, 'NOT_FOUND');
    const all = await repo.variationsOf([forge.id]);
    const source = all.find((v) => v.id === body.generatedImageId.toLowerCase());
    if (!source) throw notFound(`Variation ${body.generatedImageId} not found in scene forge ${forgeId}`, 'NOT_FOUND');
    if (source.status !== 'completed') {
      throw conflict(
        `Variation ${source.id} is ${source.status}; only completed variations can be refined`,
        'INVALID_STATUS_FOR_ACTION',
        { status: source.status },
      );
    }
    const png = await deps.assets.readGenerated(source.asset_id);
    if (!png) throw conflict(`The image of variation ${source.id} was deleted; it cannot be refined`, 'SOURCE_DELETED');

    const inputs = storedInputs(forge.context);
    const palette = (inputs.dna?.palette ?? []).map((c) => c.hex);
    const { scores, features } = await deps.engines.analyze(png, { palette });
    const critique =
      (source.critique ? fromJson<Critique | null>(source.critique, null) : null) ??
      buildCritique({
        features,
        scores,
        campaignId: forge.id,
        objective,
        prompt: forge.prompt,
        createdAt: deps.clock().toISOString(),
        palette,
        brandTone: inputs.dna?.tone ?? [],
      });
    const patches = applyPatches(forge.prompt, critique, objective);
    const previous = source.refinement_id
      ? fromJson<SceneSteering>((await repo.refinementById(source.refinement_id))?.steering ?? '{}', {})
      : undefined;
    const { steering, levers, missing } = planSteering(
      objective,
      { features, scores, variationIndex: source.position % LAYOUTS },
      { palette, hasLogo: inputs.brand.logo !== undefined },
      previous,
    );
    const steeringApplied =
      levers.length === 0 && patches.applied.length === 0 ? 'none' : missing.length > 0 ? 'partial' : 'applied';

    const refinementId = randomUUID();
    const variationIds = Array.from({ length: count }, () => randomUUID());
    const { refinement, variations } = await createVariations(deps, sceneVariationRun, {
      orgId: p.org.id,
      ids: variationIds,
      rows: (reservations) => {
        const at = deps.clock().toISOString();
        const sourceScores = source.scores ? fromJson<Scores>(source.scores, null as never) : scores;
        const refinement: RefinementRow = {
          id: refinementId,
          scene_forge_id: forge.id,
          organization_id: p.org.id,
          generation: source.generation + 1,
          steer_objective: objective,
          source_variation_id: source.id,
          source_label: source.label,
          source_asset_id: source.asset_id,
          source_scores: toJson(sourceScores),
          steering: toJson(steering),
          levers: toJson(levers),
          prompt_patches: toJson(patches.applied),
          steering_applied: steeringApplied,
          status: 'pending',
          created_at: at,
          updated_at: at,
        };
        const first = all.length;
        const variations = variationIds.map(
          (id, i): VariationRow => ({
            ...blankVariation,
            id,
            scene_forge_id: forge.id,
            organization_id: p.org.id,
            brand_id: forge.brand_id,
            refinement_id: refinementId,
            source_variation_id: source.id,
            generation: source.generation + 1,
            label: `#${first + i + 1}`,
            position: first + i,
            blending_prompt: patches.prompt,
            seed: seedOf(refinementId, i),
            asset_id: randomUUID(),
            warnings: '[]',
            critique_status: source.critique_status === null ? null : 'pending',
            reservation_id: reservations[i] ?? null,
            ...pendingLifecycle(at),
          }),
        );
        return { refinement, variations };
      },
      insert: (rows) => repo.insertRefinement(rows.refinement, rows.variations, rows.refinement.created_at),
      undo: () => repo.deleteRefinement(refinementId),
    });
    return { forgeId: forge.id, refinement, variations };
  };
}
