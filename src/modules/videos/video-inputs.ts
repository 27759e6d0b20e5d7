import { fromJson } from '../../adapters/db/columns.ts';
import type { Database } from '../../adapters/db/database.ts';
import type { AssetExtra } from '../assets/assets.presenter.ts';
import { createAssetsRepo } from '../assets/assets.repo.ts';
import { uploadKey } from '../assets/assets.keys.ts';
import { type AssetInput, assetInputOf, type DnaInput, type InputsResolver } from '../generation/inputs.ts';
import type { NormalizedVideoRequest, VideoAssetFacts } from './video-rules.ts';

/** A reference video input: also its measured length (the montage paces by it). */
export type VideoClipInput = AssetInput & { durationSeconds: number };

/**
 * What a video job reads, resolved and checked at create and stored with the group (or the
 * enhancement), so a job that runs later sees the same inputs.
 */
export interface VideoInputs {
  brand: { id: string; name: string; industry: string };
  start?: AssetInput;
  end?: AssetInput;
  intermediate: AssetInput[];
  referenceImages: AssetInput[];
  referenceVideos: VideoClipInput[];
  /** Present when the request uses the brand's active Brand DNA. */
  dna?: DnaInput;
  /** Upload keys of reference images still `uploaded` (their bytes are not at the original's key yet). */
  uploadKeys?: Record<string, string>;
}

export interface LookedUpAsset {
  facts: VideoAssetFacts;
  input: AssetInput;
}

/**
 * The assets a video request names, looked up within the organization only (an id of another
 * organization is simply not found), as the facts the rules check and the inputs a job reads.
 */
export async function lookUpVideoAssets(
  db: Database,
  orgId: string,
  ids: string[],
): Promise<Map<string, LookedUpAsset>> {
  const out = new Map<string, LookedUpAsset>();
  if (ids.length === 0) return out;
  const rows = await createAssetsRepo(db).getAssets(orgId, ids);
  for (const row of rows) {
    const extra = fromJson<AssetExtra>(row.extra, {});
    out.set(row.id, {
      facts: {
        assetId: row.id,
        found: true,
        status: row.status,
        type: row.type,
        format: row.detected_format ?? row.file_type,
        fileSize: Number(row.file_size),
        durationSeconds: row.duration,
        fps: extra.frameRate ?? null,
        origin: row.origin,
      },
      input: assetInputOf(row),
    });
  }
  return out;
}

/** The inputs of a validated request, in the order sent. */
export function videoInputsOf(
  req: Pick<
    NormalizedVideoRequest,
    | 'startImageAssetId'
    | 'endImageAssetId'
    | 'intermediateImageAssetIds'
    | 'referenceImageAssetIds'
    | 'referenceVideoAssetIds'
  >,
  assets: Map<string, LookedUpAsset>,
  brand: VideoInputs['brand'],
  dna: DnaInput | undefined,
  uploadKey: (assetId: string) => string,
): VideoInputs {
  const input = (id: string): AssetInput => assets.get(id)!.input;
  const uploadKeys: Record<string, string> = {};
  for (const id of req.referenceImageAssetIds) {
    const f = assets.get(id)!.facts;
    if (f.origin === 'upload' && f.status !== 'complete') uploadKeys[id] = uploadKey(id);
  }
  return {
    brand,
    ...(req.startImageAssetId ? { start: input(req.startImageAssetId) } : {}),
    ...(req.endImageAssetId ? { end: input(req.endImageAssetId) } : {}),
    intermediate: req.intermediateImageAssetIds.map(input),
    referenceImages: req.referenceImageAssetIds.map(input),
    referenceVideos: req.referenceVideoAssetIds.map((id) => ({
      ...input(id),
      durationSeconds: assets.get(id)!.facts.durationSeconds ?? 0,
    })),
    ...(dna ? { dna } : {}),
    ...(Object.keys(uploadKeys).length ? { uploadKeys } : {}),
  };
}

/**
 * What a create (a group's, an enhancement's) captures of a validated request: the brand's active
 * Brand DNA when the request uses it, and the inputs its jobs read.
 */
export async function captureVideoInputs(
  resolver: Pick<InputsResolver, 'activeDna'>,
  orgId: string,
  brand: VideoInputs['brand'],
  req: Parameters<typeof videoInputsOf>[0] & Pick<NormalizedVideoRequest, 'useBrandDna'>,
  assets: Map<string, LookedUpAsset>,
): Promise<{ dna: DnaInput | undefined; inputs: VideoInputs }> {
  const dna = req.useBrandDna ? await resolver.activeDna(orgId, brand.id) : undefined;
  const { id, name, industry } = brand;
  return { dna, inputs: videoInputsOf(req, assets, { id, name, industry }, dna, (a) => uploadKey(orgId, a)) };
}
