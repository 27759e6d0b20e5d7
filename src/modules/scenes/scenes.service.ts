import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import { toJson } from '../../adapters/db/columns.ts';
import { fieldError, notFound } from '../../http/errors.ts';
import { listPagination, pageOffset } from '../../http/pagination.ts';
import { textProblem } from '../../http/schemas.ts';
import type { JobSystem } from '../../jobs/types.ts';
import type { Principal } from '../access/access.service.ts';
import type { AssetsService } from '../assets/assets.service.ts';
import type { UsageLedger } from '../usage/usage.ledger.ts';
import type { Warning } from '../generation/generation.schemas.ts';
import type { InputsResolver } from '../generation/inputs.ts';
import { toEnhancementInput } from '../generation/enhancement-input.ts';
import { conditionPrompt } from '../generation/prompt.ts';
import { sceneWarnings } from '../../engines/text/local/scene-enhancer.local.ts';
import { pendingLifecycle } from '../generation/lifecycle.ts';
import { seedOf } from '../generation/rollup.ts';
import { createVariations } from '../generation/variations.ts';
import { sceneVariationRun } from './scenes.jobs.ts';
import { presentForges, presentVariation } from './scenes.presenter.ts';
import { createRefiner } from './scenes.refine.ts';
import type { GenerationEngines } from '../generation/engines.ts';
import { type ChangePublisher, publishChange } from '../../events/publish.ts';
import type { PlanCatalog } from '../usage/plans.ts';
import { blankVariation, type ForgeRow, type ScenesRepo, type VariationRow } from './scenes.repo.ts';
import type {
  CreateSceneForgeBody,
  ListSceneForgesQuery,
  ReactBody,
  RefineBody,
  SceneForge,
  Variation,
} from './scenes.schemas.ts';

/** Variations a forge starts with (spec: four). */
export const INITIAL_VARIATIONS = 4;
export const DEFAULT_ASPECT_RATIO = '1:1';

export interface ScenesServiceDeps {
  repo: ScenesRepo;
  plans: PlanCatalog;
  inputs: InputsResolver;
  usage: Pick<UsageLedger, 'reserve' | 'release'>;
  jobs: Pick<JobSystem, 'enqueue'>;
  assets: Pick<AssetsService, 'refs' | 'readGenerated'>;
  clock: Clock;
  changes: ChangePublisher;
  engines: Pick<GenerationEngines, 'analyze'>;
}

const forgeNotFound = (id: string) => notFound(`Scene forge ${id} not found`, 'NOT_FOUND');

/** Scene forges: create (four variations, one job each), list and read. */
export function createScenesService(deps: ScenesServiceDeps) {
  const { repo, clock } = deps;
  const now = () => clock().toISOString();
  const present = (rows: ForgeRow[], orgId: string) => presentForges(rows, orgId, repo, deps.assets);
  const refine = createRefiner(deps);

  return {
    async create(p: Principal, brandId: string, body: CreateSceneForgeBody): Promise<SceneForge> {
      const orgId = p.org.id;
      for (const [field, value] of [
        ['blendingPrompt', body.blendingPrompt],
        ['theme', body.theme ?? ''],
      ] as const) {
        const problem = textProblem(value, field === 'blendingPrompt');
        if (problem) throw fieldError(`body.${field}`, problem);
      }
      const { inputs, useBrandDna } = await deps.inputs.resolve(p, brandId, body);
      const brandIdNorm = inputs.brand.id;
      const warnings: Warning[] = [];
      let enhanced = false;
      let originalPrompt = body.blendingPrompt;
      let theme = body.theme ?? null;
      if (body.promptIsEnhanced) {
        const accepted = await repo.acceptedEnhancement(orgId, brandIdNorm, body.blendingPrompt);
        if (accepted) {
          enhanced = true;
          originalPrompt = accepted.original_prompt;
          theme ??= accepted.theme;
        } else {
          warnings.push({
            code: 'PROMPT_NOT_ENHANCED',
            message:
              'promptIsEnhanced was true, but the prompt matches no completed enhancement of this brand; it was treated as not enhanced',
            severity: 'info',
            field: 'promptIsEnhanced',
          });
        }
      }
      const aspectRatio = body.aspectRatio ?? DEFAULT_ASPECT_RATIO;
      const partner = body.partner ?? 'default';
      // The prompt asks for a shape the aspect ratio contradicts (the image keeps the ratio).
      for (const w of sceneWarnings(toEnhancementInput(body.blendingPrompt, inputs, partner, aspectRatio))) {
        if (w.code === 'HARDSPEC_ASPECT_MISMATCH') warnings.push(w);
      }
      // Critique comes with the plan's `critique` feature; without it, variations carry scores only.
      const critiqued = deps.plans.entitlementsFor(p.org).features.critique === true;
      const forgeId = randomUUID();
      const at = now();
      const variationIds = Array.from({ length: INITIAL_VARIATIONS }, () => randomUUID());
      const forge: ForgeRow = {
        id: forgeId,
        organization_id: orgId,
        brand_id: brandIdNorm,
        partner,
        blending_prompt: body.blendingPrompt,
        prompt: conditionPrompt(body.blendingPrompt, inputs, enhanced),
        original_prompt: originalPrompt,
        prompt_is_enhanced: enhanced ? 1 : 0,
        aspect_ratio: aspectRatio,
        theme,
        product_asset_ids: toJson(inputs.products.map((a) => a.assetId)),
        environment_asset_id: inputs.environment?.assetId ?? null,
        use_brand_dna: useBrandDna ? 1 : 0,
        brand_dna_version_id: inputs.dna?.versionId ?? null,
        context: toJson(inputs),
        ...pendingLifecycle(at),
      };
      const variations = await createVariations(deps, sceneVariationRun, {
        orgId,
        ids: variationIds,
        rows: (reservations) =>
          variationIds.map(
            (id, position): VariationRow => ({
              ...blankVariation,
              id,
              scene_forge_id: forgeId,
              organization_id: orgId,
              brand_id: brandIdNorm,
              generation: 1,
              label: `#${position + 1}`,
              position,
              blending_prompt: body.blendingPrompt,
              seed: seedOf(forgeId, position),
              asset_id: randomUUID(),
              warnings: toJson(warnings),
              critique_status: critiqued ? 'pending' : null,
              reservation_id: reservations[position] ?? null,
              ...pendingLifecycle(at),
            }),
          ),
        insert: (variations) => repo.insertForge(forge, variations),
        undo: () => repo.deleteForge(forgeId),
      });
      // The forge as stored: a worker may already be on its first variation.
      return (await presentForges([forge], orgId, repo, deps.assets, { variations }))[0]!;
    },

    /** A refinement of one of the forge's completed variations; the forge, back to processing. */
    async refine(p: Principal, forgeId: string, body: RefineBody): Promise<SceneForge> {
      const refined = await refine(p, forgeId, body);
      const row = await repo.forgeById(refined.forgeId);
      // The new variations moved the forge (back to pending or processing).
      if (row) await publishChange(deps, 'scene_forge', row);
      // The new refinement and its variations as written: a worker may already be on them.
      const written = new Map(refined.variations.map((v) => [v.id, v]));
      const variations = (await repo.variationsOf([refined.forgeId])).map((v) => written.get(v.id) ?? v);
      return (
        await presentForges([row!], p.org.id, repo, deps.assets, { variations, refinement: refined.refinement })
      )[0]!;
    },

    async get(p: Principal, id: string): Promise<SceneForge> {
      const row = await repo.findForge(p.org.id, id);
      if (!row) throw forgeNotFound(id);
      return (await present([row], p.org.id))[0]!;
    },

    /**
     * Like or dislike a variation: idempotent; liking clears a dislike and the other way round;
     * `false` clears. The variation, as in the forge.
     */
    async react(p: Principal, forgeId: string, variationId: string, body: ReactBody): Promise<Variation> {
      if (body.liked && body.disliked) throw fieldError('body.disliked', 'cannot be true together with liked');
      const forge = await repo.findForge(p.org.id, forgeId);
      if (!forge) throw forgeNotFound(forgeId);
      const current = (await repo.variationsOf([forge.id])).find((v) => v.id === variationId.toLowerCase());
      if (!current) throw notFound(`Variation ${variationId} not found in scene forge ${forgeId}`, 'NOT_FOUND');
      let liked = current.liked === 1;
      let disliked = current.disliked === 1;
      if (body.liked !== undefined) {
        liked = body.liked;
        if (body.liked) disliked = false;
      }
      if (body.disliked !== undefined) {
        disliked = body.disliked;
        if (body.disliked) liked = false;
      }
      const row = await repo.react(
        p.org.id,
        forge.id,
        current.id,
        { liked: liked ? 1 : 0, disliked: disliked ? 1 : 0 },
        now(),
      );
      if (!row) throw notFound(`Variation ${variationId} not found in scene forge ${forgeId}`, 'NOT_FOUND');
      const refs = await deps.assets.refs(p.org.id, row.status === 'completed' ? [row.asset_id] : []);
      return presentVariation(row, refs);
    },

    async list(p: Principal, brandId: string, q: ListSceneForgesQuery) {
      const brand = await deps.inputs.brandOf(p.org.id, brandId);
      const { rows, total } = await repo.listForges(p.org.id, brand.id, {
        partner: q.partner ?? 'default',
        status: q.status,
        sortBy: q.sortBy,
        sortOrder: q.sortOrder,
        offset: pageOffset(q.page, q.limit),
        limit: q.limit,
      });
      return { data: await present(rows, p.org.id), pagination: listPagination(total, q.page, q.limit) };
    },
  };
}

export type ScenesService = ReturnType<typeof createScenesService>;

/** The inputs a forge was created with. */
