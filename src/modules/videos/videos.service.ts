import { randomUUID } from 'node:crypto';
import { toJson } from '../../adapters/db/columns.ts';
import type { Database } from '../../adapters/db/database.ts';
import type { Clock } from '../../clock.ts';
import { notFound } from '../../http/errors.ts';
import { listPagination, pageOffset } from '../../http/pagination.ts';
import type { JobSystem } from '../../jobs/types.ts';
import type { Principal } from '../access/access.service.ts';
import type { Warning } from '../generation/generation.schemas.ts';
import type { InputsResolver } from '../generation/inputs.ts';
import { pendingLifecycle } from '../generation/lifecycle.ts';
import { seedOf } from '../generation/rollup.ts';
import { createVariations } from '../generation/variations.ts';
import type { PlanCatalog } from '../usage/plans.ts';
import type { UsageLedger } from '../usage/usage.ledger.ts';
import { captureVideoInputs, lookUpVideoAssets } from './video-inputs.ts';
import { referencedAssetIds, validateGenerateVideo } from './video-rules.ts';
import { videoVariationRun } from './videos.jobs.ts';
import { presentGroups, type VideoPresenterDeps } from './videos.presenter.ts';
import type { GroupRow, VideoRow, VideosRepo } from './videos.repo.ts';
import type {
  GeneratedVideosGroup,
  GeneratedVideosGroupList,
  GenerateVideoBody,
  ListVideoGroupsQuery,
} from './videos.schemas.ts';

export interface VideosServiceDeps extends VideoPresenterDeps {
  repo: VideosRepo;
  db: Database;
  plans: PlanCatalog;
  inputs: Pick<InputsResolver, 'brandOf' | 'activeDna'>;
  usage: Pick<UsageLedger, 'reserve' | 'release'>;
  jobs: Pick<JobSystem, 'enqueue'>;
  clock: Clock;
}

/**
 * Video generation: create (a group with one variation per prompt, one job each), list and read.
 * Every rule of the body, the plan and the referenced assets is video-rules.ts; the create
 * reserves `duration` seconds of `video_seconds` per variation (all or nothing) and each job
 * commits its own on success or releases it on failure.
 */
export function createVideosService(deps: VideosServiceDeps) {
  const { repo } = deps;
  const present = (rows: GroupRow[], orgId: string) => presentGroups(rows, orgId, deps);

  return {
    async create(p: Principal, brandId: string, body: GenerateVideoBody): Promise<GeneratedVideosGroupList> {
      const orgId = p.org.id;
      const brand = await deps.inputs.brandOf(orgId, brandId);
      const assets = await lookUpVideoAssets(deps.db, orgId, referencedAssetIds(body));
      const entitlements = deps.plans.entitlementsFor(p.org);
      const req = validateGenerateVideo(
        body,
        { ...entitlements, planSlug: p.org.planSlug },
        [...assets.values()].map((a) => a.facts),
      );
      const { dna, inputs } = await captureVideoInputs(deps.inputs, orgId, brand, req, assets);
      const warnings: Warning[] = [];
      let enhanced = false;
      if (req.promptIsEnhanced) {
        const known = await repo.enhancedPrompts(orgId, brand.id, req.userPrompts);
        enhanced = req.userPrompts.every((t) => known.has(t));
        if (!enhanced) {
          warnings.push({
            code: 'PROMPT_NOT_ENHANCED',
            message:
              'promptIsEnhanced was true, but not every prompt matches a completed image-to-video enhancement of this brand; treated as not enhanced',
            severity: 'info',
            field: 'promptIsEnhanced',
          });
        }
      }
      const groupId = randomUUID();
      const at = deps.clock().toISOString();
      const variationIds = req.userPrompts.map(() => randomUUID());
      const group: GroupRow = {
        id: groupId,
        organization_id: orgId,
        brand_id: brand.id,
        partner: req.partner ?? 'default',
        model: req.model,
        duration: req.duration,
        width: req.dimension.width,
        height: req.dimension.height,
        enable_audio: req.enableAudio ? 1 : 0,
        use_brand_dna: req.useBrandDna ? 1 : 0,
        prompt_is_enhanced: enhanced ? 1 : 0,
        prompt: req.userPrompts[0]!,
        start_asset_id: req.startImageAssetId,
        end_asset_id: req.endImageAssetId,
        intermediate_asset_ids: toJson(req.intermediateImageAssetIds),
        reference_image_asset_ids: toJson(req.referenceImageAssetIds),
        reference_video_asset_ids: toJson(req.referenceVideoAssetIds),
        brand_dna_version_id: dna?.versionId ?? null,
        context: toJson(inputs),
        ...pendingLifecycle(at),
      };
      const variations = await createVariations(deps, videoVariationRun, {
        orgId,
        ids: variationIds,
        amount: req.duration,
        rows: (reservations) =>
          req.userPrompts.map(
            (prompt, position): VideoRow => ({
              id: variationIds[position]!,
              group_id: groupId,
              organization_id: orgId,
              brand_id: brand.id,
              position,
              prompt,
              seed: seedOf(groupId, position),
              asset_id: randomUUID(),
              preview_key: null,
              width: null,
              height: null,
              camera: null,
              warnings: toJson(warnings),
              engine: null,
              reservation_id: reservations[position] ?? null,
              ...pendingLifecycle(at),
            }),
          ),
        insert: (variations) => repo.insertGroup(group, variations),
        undo: () => repo.deleteGroup(groupId),
      });
      // The group as stored: a worker may already be on its first variation.
      return { data: await presentGroups([group], orgId, deps, variations), pagination: listPagination(1, 1, 1) };
    },

    async get(p: Principal, id: string): Promise<GeneratedVideosGroup> {
      const row = await repo.findGroup(p.org.id, id);
      if (!row) throw notFound(`Generated videos group ${id} not found`, 'NOT_FOUND');
      return (await present([row], p.org.id))[0]!;
    },

    async list(p: Principal, brandId: string, q: ListVideoGroupsQuery): Promise<GeneratedVideosGroupList> {
      const brand = await deps.inputs.brandOf(p.org.id, brandId);
      const { rows, total } = await repo.listGroups(p.org.id, brand.id, {
        partner: q.partner ?? 'default',
        sortOrder: q.sortOrder,
        offset: pageOffset(q.page, q.limit),
        limit: q.limit,
      });
      return { data: await present(rows, p.org.id), pagination: listPagination(total, q.page, q.limit) };
    },
  };
}

export type VideosService = ReturnType<typeof createVideosService>;
