import { fromJson } from '../../adapters/db/columns.ts';
import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import type { AssetsService } from '../assets/assets.service.ts';
import type { Warning } from '../generation/generation.schemas.ts';
import { type AssetLinks, assetRef } from '../generation/lifecycle.ts';
import { videoModel } from './video-models.ts';
import type { VideoModelId } from './video-models.ts';
import type { GroupRow, VideoRow, VideosRepo } from './videos.repo.ts';
import type { GeneratedVideo, GeneratedVideosGroup, VideoError } from './videos.schemas.ts';

export interface VideoPresenterDeps {
  repo: Pick<VideosRepo, 'variationsOf'>;
  assets: Pick<AssetsService, 'refs'>;
  storage: Pick<ObjectStorage, 'createDownloadLink'>;
  linkTtlSeconds: number;
}

const errorOf = (row: { error_code: string | null; error_message: string | null }): VideoError =>
  row.error_code ? { code: row.error_code, message: row.error_message ?? row.error_code } : null;

const ids = (json: string) => fromJson<string[]>(json, []);

/** A group is reference-to-video when its model takes no start frame (video-model-8). */
export const isReferenceToVideo = (model: string) => videoModel(model as VideoModelId).startFrame === 'forbidden';

/**
 * Groups with their variations and fresh signed links to every asset they name (and to each
 * completed variation's preview), in one pass. A deleted asset keeps its id, without links.
 */
export async function presentGroups(
  rows: GroupRow[],
  orgId: string,
  deps: VideoPresenterDeps,
  /** The variations as the caller just wrote them (a create answers with what it stored, not with a worker's progress since). */
  written?: VideoRow[],
): Promise<GeneratedVideosGroup[]> {
  const variations = written ?? (await deps.repo.variationsOf(rows.map((r) => r.id)));
  const wanted = new Set<string>();
  for (const g of rows) {
    for (const id of [g.start_asset_id, g.end_asset_id]) if (id) wanted.add(id);
    for (const list of [g.intermediate_asset_ids, g.reference_image_asset_ids, g.reference_video_asset_ids]) {
      for (const id of ids(list)) wanted.add(id);
    }
  }
  for (const v of variations) if (v.status === 'completed') wanted.add(v.asset_id);
  const refs = await deps.assets.refs(orgId, [...wanted]);
  const out: GeneratedVideosGroup[] = [];
  for (const g of rows) {
    const own = variations.filter((v) => v.group_id === g.id);
    const presented: GeneratedVideo[] = [];
    for (const v of own) presented.push(await presentVariation(v, g, refs, deps));
    out.push({
      generatedVideosGroupId: g.id,
      brandId: g.brand_id,
      partner: g.partner as GeneratedVideosGroup['partner'],
      sourceAsset: g.start_asset_id ? assetRef(refs, g.start_asset_id, 'image') : null,
      endFrameAsset: g.end_asset_id ? assetRef(refs, g.end_asset_id, 'image') : null,
      intermediateFrameAssets: ids(g.intermediate_asset_ids).map((id) => assetRef(refs, id, 'image')),
      referenceImageAssets: ids(g.reference_image_asset_ids).map((id) => assetRef(refs, id, 'image')),
      referenceVideoAssets: ids(g.reference_video_asset_ids).map((id) => assetRef(refs, id, 'video')),
      status: g.status as GeneratedVideosGroup['status'],
      prompt: g.prompt,
      promptIsEnhanced: g.prompt_is_enhanced === 1,
      dimension: { width: g.width, height: g.height },
      enableAudio: g.enable_audio === 1,
      useBrandDna: g.use_brand_dna === 1,
      model: g.model as GeneratedVideosGroup['model'],
      duration: g.duration,
      variations: presented,
      error: errorOf(g),
      createdAt: g.created_at,
      updatedAt: g.updated_at,
      ...(g.completed_at ? { completedAt: g.completed_at } : {}),
      ...(g.failed_at ? { failedAt: g.failed_at } : {}),
    });
  }
  return out;
}

async function presentVariation(
  v: VideoRow,
  g: GroupRow,
  refs: AssetLinks,
  deps: VideoPresenterDeps,
): Promise<GeneratedVideo> {
  const completed = v.status === 'completed';
  // The preview lives in the asset's folder: gone with the asset. Never shown for video-model-8 (spec).
  const previewUrl =
    completed && v.preview_key && refs.has(v.asset_id) && !isReferenceToVideo(g.model)
      ? await deps.storage.createDownloadLink(v.preview_key, { expiresInSeconds: deps.linkTtlSeconds })
      : null;
  return {
    generatedVideoId: v.id,
    assetId: v.asset_id,
    status: v.status as GeneratedVideo['status'],
    prompt: v.prompt,
    width: v.width ?? g.width,
    height: v.height ?? g.height,
    enableAudio: g.enable_audio === 1,
    model: g.model as GeneratedVideo['model'],
    duration: g.duration,
    ...(completed ? { asset: assetRef(refs, v.asset_id, 'video') } : {}),
    previewUrl,
    ...(v.camera ? { camera: v.camera } : {}),
    warnings: fromJson<Warning[]>(v.warnings, []),
    error: errorOf(v),
    createdAt: v.created_at,
    updatedAt: v.updated_at,
    ...(v.completed_at ? { generatedAt: v.completed_at } : {}),
    ...(v.failed_at ? { failedAt: v.failed_at } : {}),
  };
}
