import { fromJson, toJson } from '../../adapters/db/columns.ts';
import type { Database } from '../../adapters/db/database.ts';
import { videoPromptMax } from '../../engines/text/video-enhancer.ts';
import { fieldError, notFound } from '../../http/errors.ts';
import { textProblem } from '../../http/schemas.ts';
import type { Principal } from '../access/access.service.ts';
import type { Warning } from '../generation/generation.schemas.ts';
import type { InputsResolver } from '../generation/inputs.ts';
import { lifecycleMembers } from '../generation/lifecycle.ts';
import { createRun, type CreateRunDeps } from '../generation/runs.ts';
import type { PlanCatalog } from '../usage/plans.ts';
import { videoEnhancementRun } from './video-enhancements.jobs.ts';
import { captureVideoInputs, lookUpVideoAssets } from './video-inputs.ts';
import { type GenerateVideoBody, referencedAssetIds, validateGenerateVideo } from './video-rules.ts';
import type { CreateVideoEnhancementBody, VideoEnhancement } from './videos.schemas.ts';
import type { VideoPromptEnhancementsTable } from './videos.tables.ts';

/** A frame size of the aspect ratio every model accepts (the rules check dimension; enhancements have none). */
const ASPECT_DIMENSION = { '16:9': { width: 1280, height: 720 }, '9:16': { width: 720, height: 1280 } } as const;

export interface VideoEnhancementsServiceDeps extends CreateRunDeps<'video_prompt_enhancements'> {
  db: Database;
  plans: PlanCatalog;
  inputs: Pick<InputsResolver, 'brandOf' | 'activeDna'>;
}

function present(row: VideoPromptEnhancementsTable): VideoEnhancement {
  return {
    promptEnhancementId: row.id,
    brandId: row.brand_id,
    startFrameAssetId: row.start_frame_asset_id,
    endFrameAssetId: row.end_frame_asset_id,
    referenceImageAssetIds: fromJson<string[]>(row.reference_image_asset_ids, []),
    referenceVideoAssetIds: fromJson<string[]>(row.reference_video_asset_ids, []),
    intermediateFrameAssetIds: fromJson<string[]>(row.intermediate_frame_asset_ids, []),
    originalPrompt: row.original_prompt,
    aspectRatio: row.aspect_ratio as VideoEnhancement['aspectRatio'],
    model: row.model as VideoEnhancement['model'],
    duration: row.duration,
    ...(row.enhanced_prompt !== null ? { enhancedPrompt: row.enhanced_prompt } : {}),
    ...(row.camera !== null ? { camera: row.camera } : {}),
    warnings: fromJson<Warning[]>(row.warnings, []),
    enableAudio: row.enable_audio === 1,
    useBrandDna: row.use_brand_dna === 1,
    status: row.status as VideoEnhancement['status'],
    ...lifecycleMembers(row),
  };
}

/**
 * Image-to-video prompt enhancements: create (one job) and read. The request is checked by the
 * same per-model frame, reference and tier rules as generate-video (video-rules.ts, with this
 * body's member names and without the per-duration intermediate-frame bounds), and takes one
 * `prompt_enhancements` unit.
 */
export function createVideoEnhancementsService(deps: VideoEnhancementsServiceDeps) {
  const { repo } = deps;
  return {
    async create(p: Principal, brandId: string, body: CreateVideoEnhancementBody): Promise<VideoEnhancement> {
      const orgId = p.org.id;
      const brand = await deps.inputs.brandOf(orgId, brandId);
      const asGenerate: GenerateVideoBody = {
        startImageAssetId: body.startFrameAssetId,
        endImageAssetId: body.endFrameAssetId,
        intermediateImageAssetIds: body.intermediateFrameAssetIds,
        referenceImageAssetIds: body.referenceImageAssetIds,
        referenceVideoAssetIds: body.referenceVideoAssetIds,
        userPrompts: ['(the prompt to enhance)'],
        dimension: ASPECT_DIMENSION[body.aspectRatio],
        enableAudio: body.enableAudio,
        model: body.model,
        duration: body.duration,
        useBrandDna: body.useBrandDna,
      };
      const assets = await lookUpVideoAssets(deps.db, orgId, referencedAssetIds(asGenerate));
      const req = validateGenerateVideo(
        asGenerate,
        { ...deps.plans.entitlementsFor(p.org), planSlug: p.org.planSlug },
        [...assets.values()].map((a) => a.facts),
        {
          frameFields: {
            start: 'startFrameAssetId',
            end: 'endFrameAssetId',
            intermediate: 'intermediateFrameAssetIds',
          },
          intermediatePerDuration: false,
        },
      );
      const max = videoPromptMax(req.model);
      if ([...body.originalPrompt].length > max) {
        throw fieldError('body.originalPrompt', `must be at most ${max} characters for model ${req.model}`);
      }
      const problem = textProblem(body.originalPrompt, true);
      if (problem) throw fieldError('body.originalPrompt', problem);
      const { dna, inputs } = await captureVideoInputs(deps.inputs, orgId, brand, req, assets);
      const row = await createRun(deps, videoEnhancementRun, orgId, () => ({
        brand_id: brand.id,
        start_frame_asset_id: req.startImageAssetId,
        end_frame_asset_id: req.endImageAssetId,
        intermediate_frame_asset_ids: toJson(req.intermediateImageAssetIds),
        reference_image_asset_ids: toJson(req.referenceImageAssetIds),
        reference_video_asset_ids: toJson(req.referenceVideoAssetIds),
        original_prompt: body.originalPrompt,
        aspect_ratio: body.aspectRatio,
        model: req.model,
        duration: req.duration,
        enable_audio: req.enableAudio ? 1 : 0,
        use_brand_dna: req.useBrandDna ? 1 : 0,
        brand_dna_version_id: dna?.versionId ?? null,
        context: toJson(inputs),
        enhanced_prompt: null,
        camera: null,
        warnings: '[]',
        engine: null,
      }));
      return present(row);
    },

    async get(p: Principal, brandId: string, id: string): Promise<VideoEnhancement> {
      const brand = await deps.inputs.brandOf(p.org.id, brandId);
      const row = await repo.find(p.org.id, id);
      if (!row || row.brand_id !== brand.id) {
        throw notFound(`Image-to-video prompt enhancement ${id} not found`, 'NOT_FOUND');
      }
      return present(row);
    },
  };
}

export type VideoEnhancementsService = ReturnType<typeof createVideoEnhancementsService>;
