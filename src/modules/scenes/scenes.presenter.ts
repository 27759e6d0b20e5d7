import { fromJson } from '../../adapters/db/columns.ts';
import type { AssetsService } from '../assets/assets.service.ts';
import type { Scores, Warning } from '../generation/generation.schemas.ts';
import { type AssetLinks as Refs, assetRef as ref, lifecycleMembers } from '../generation/lifecycle.ts';
import type { ForgeRow, RefinementRow, ScenesRepo, VariationRow } from './scenes.repo.ts';
import type { Refinement, SceneForge, Variation } from './scenes.schemas.ts';

/** A variation as the spec's Variation: absent values omitted, its asset once it is completed. */
export function presentVariation(v: VariationRow, refs: Refs): Variation {
  const out: Variation = {
    generatedImageId: v.id,
    sceneForgeId: v.scene_forge_id,
    generation: v.generation,
    label: v.label,
    status: v.status as Variation['status'],
    blendingPrompt: v.blending_prompt,
    liked: v.liked === 1,
    disliked: v.disliked === 1,
    ...lifecycleMembers(v),
    warnings: fromJson<Warning[]>(v.warnings, []),
  };
  if (v.source_variation_id) out.sourceVariationId = v.source_variation_id;
  if (v.refinement_id) out.refinementId = v.refinement_id;
  if (v.status === 'completed') out.asset = ref(refs, v.asset_id, 'image');
  if (v.width !== null) out.width = v.width;
  if (v.height !== null) out.height = v.height;
  if (v.scores) out.scores = fromJson<Scores>(v.scores, null as never);
  if (v.score_deltas) out.scoreDeltas = fromJson<Scores>(v.score_deltas, null as never);
  if (v.critique_status) out.critiqueStatus = v.critique_status;
  if (v.critique) out.critique = fromJson<Variation['critique']>(v.critique, undefined);
  return out;
}

/** A refinement as the spec's Refinement; `sourceDeleted` once its source image is gone. */
function presentRefinement(x: RefinementRow, forgeVariations: VariationRow[], refs: Refs): Refinement {
  const sourceDeleted = !refs.has(x.source_asset_id);
  return {
    refinementId: x.id,
    generation: x.generation,
    steerObjective: x.steer_objective,
    sourceVariation: {
      generatedImageId: x.source_variation_id,
      label: x.source_label,
      ...(sourceDeleted ? {} : { asset: ref(refs, x.source_asset_id, 'image') }),
      ...(x.source_scores ? { scores: fromJson<Scores>(x.source_scores, null as never) } : {}),
      sourceDeleted,
    },
    steeringApplied: x.steering_applied as Refinement['steeringApplied'],
    levers: fromJson<string[]>(x.levers, []),
    promptPatches: fromJson<string[]>(x.prompt_patches, []),
    status: x.status as Refinement['status'],
    variations: forgeVariations.filter((v) => v.refinement_id === x.id).map((v) => presentVariation(v, refs)),
    createdAt: x.created_at,
    updatedAt: x.updated_at,
  };
}

/** Forges with their variations and fresh signed links to every asset they name, in one pass. */
export async function presentForges(
  rows: ForgeRow[],
  orgId: string,
  repo: Pick<ScenesRepo, 'variationsOf' | 'refinementsOf'>,
  assets: Pick<AssetsService, 'refs'>,
  /**
   * The rows as the caller just wrote them (a create or a refinement answers with what it stored,
   * not with a worker's progress since): the variations, and the refinement it added.
   */
  written: { variations?: VariationRow[]; refinement?: RefinementRow } = {},
): Promise<SceneForge[]> {
  const forgeIds = rows.map((r) => r.id);
  const variations = written.variations ?? (await repo.variationsOf(forgeIds));
  const refinements = (await repo.refinementsOf(forgeIds)).map((r) =>
    r.id === written.refinement?.id ? written.refinement : r,
  );
  const ids = new Set<string>();
  for (const r of refinements) ids.add(r.source_asset_id);
  for (const r of rows) {
    for (const id of fromJson<string[]>(r.product_asset_ids, [])) ids.add(id);
    if (r.environment_asset_id) ids.add(r.environment_asset_id);
  }
  for (const v of variations) if (v.status === 'completed') ids.add(v.asset_id);
  const refs = await assets.refs(orgId, [...ids]);
  return rows.map((r) => {
    const own = variations.filter((v) => v.scene_forge_id === r.id);
    const productAssets = fromJson<string[]>(r.product_asset_ids, []).map((id) => ref(refs, id, 'image'));
    const environmentAsset = r.environment_asset_id ? ref(refs, r.environment_asset_id, 'environment') : undefined;
    const forge: SceneForge = {
      sceneForgeId: r.id,
      brandId: r.brand_id,
      partner: r.partner as SceneForge['partner'],
      blendingPrompt: r.blending_prompt,
      prompt: r.prompt,
      originalPrompt: r.original_prompt,
      promptIsEnhanced: r.prompt_is_enhanced === 1,
      aspectRatio: r.aspect_ratio as SceneForge['aspectRatio'],
      productAssets,
      assetSource: { productAssets, ...(environmentAsset ? { environmentAsset } : {}) },
      variations: own.filter((v) => v.generation === 1).map((v) => presentVariation(v, refs)),
      refinedVariations: refinements
        .filter((x) => x.scene_forge_id === r.id)
        .map((x) => presentRefinement(x, own, refs)),
      useBrandDna: r.use_brand_dna === 1,
      status: r.status as SceneForge['status'],
      ...lifecycleMembers(r),
    };
    if (r.theme) forge.theme = r.theme;
    if (environmentAsset) forge.environmentAsset = environmentAsset;
    return forge;
  });
}
