import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fromJson, toJson } from '../../adapters/db/columns.ts';
import { isStorageError, type ObjectStorage } from '../../adapters/storage/storage.port.ts';
import { downloadToFile, readToBuffer } from '../../adapters/storage/storage.ts';
import { GenerationError } from '../../engines/image/scene-engine.ts';
import type { VideoEngine, VideoReference, VideoRequest } from '../../engines/video/video-engine.ts';
import type { JobDefinition } from '../../jobs/types.ts';
import { layerKey, previewKey } from '../assets/assets.keys.ts';
import type { AssetsService } from '../assets/assets.service.ts';
import type { Warning } from '../generation/generation.schemas.ts';
import { videoProvenance } from '../generation/provenance.ts';
import { type AssetInput, readInput } from '../generation/inputs.ts';
import type { VideoInputs } from './video-inputs.ts';
import type { VideoModelId } from './video-models.ts';
import { type GroupRow, VIDEO_POOL, type VideoRow, type VideosRepo } from './videos.repo.ts';
import { defineRunKind } from '../generation/runs.ts';
import { type VariationJobDeps, variationJob } from '../generation/variations.ts';

/** A video variation: one job each, `videos.variation.<variationId>`; its duration's video_seconds. */
export const videoVariationRun = defineRunKind({
  table: 'generated_videos',
  job: 'videos.variation',
  idKey: 'variationId',
  change: 'video_group',
  pool: VIDEO_POOL,
});

export interface VideoJobsDeps extends VariationJobDeps<GroupRow, VideoRow> {
  repo: VideosRepo;
  storage: Pick<ObjectStorage, 'getStream'>;
  assets: Pick<AssetsService, 'storeGenerated' | 'exists'>;
  /** The engine a model is mapped to (config). */
  videoEngine(model: VideoModelId): VideoEngine;
}

const FAILED_AFTER_RETRIES = 'The video could not be generated after several attempts; try again';

/**
 * The prompt an engine receives: the variation's own, with the brand's tone and palette when the
 * group uses Brand DNA (provider models read them; the local engine reads only camera words).
 */
export function enginePrompt(prompt: string, inputs: Pick<VideoInputs, 'dna'>): string {
  const dna = inputs.dna;
  if (!dna) return prompt;
  const tone = dna.tone.slice(0, 3).join(', ').toLowerCase();
  const palette = dna.palette
    .slice(0, 4)
    .map((c) => c.name ?? c.hex)
    .join(', ');
  const parts = [tone ? `${tone} mood` : '', palette ? `palette of ${palette}` : ''].filter(Boolean);
  return parts.length ? `${prompt.trim()}\nBrand look: ${parts.join('; ')}.` : prompt;
}

/**
 * A video variation: read the group's frames and references (and a scene start frame's layers)
 * → the model's engine renders the clip → the MP4 is stored as a `complete` asset of type `video`
 * (measured duration, dimension, frame rate, thumbnail) with its preview next to it → the
 * variation is completed and its
 * `video_seconds` committed. Idempotent: the asset id is fixed per variation, a run that finds
 * it stored (an earlier run died before finishing) only finishes, and a terminal variation is
 * left as it is. An engine's GenerationError (a provider's refusal, an input deleted since)
 * fails the variation at once with its reason and releases its seconds; anything else is retried
 * and, after the last attempt, fails it with a generic reason.
 */
export function videoJobs(deps: VideoJobsDeps): JobDefinition[] {
  /** An input's bytes; a deleted input fails the variation (it can never succeed). */
  async function read(input: AssetInput, fallbackKey?: string): Promise<Buffer> {
    try {
      return await readInput(deps.storage, input);
    } catch (err) {
      if (!isStorageError(err, 'NOT_FOUND')) throw err;
      if (fallbackKey) return read({ ...input, key: fallbackKey });
      throw new GenerationError(`Input asset ${input.assetId} (${input.fileName}) is no longer available`, false);
    }
  }

  /**
   * A start frame's layers, when it is a scene the local engine made (stored next to it by the
   * scene job); undefined for any other picture (an upload, a provider's scene, an older scene).
   */
  async function layersOf(orgId: string, assetId: string): Promise<VideoRequest['startFrameLayers']> {
    const max = 64 * 1024 * 1024;
    try {
      const [plate, product, info] = await Promise.all(
        (['plate', 'product', 'info'] as const).map((k) =>
          readToBuffer(deps.storage, layerKey(orgId, assetId, k), max),
        ),
      );
      const { horizon } = JSON.parse((info as Buffer).toString('utf8')) as { horizon?: number | null };
      return {
        plate: plate as Buffer,
        product: product as Buffer,
        ...(typeof horizon === 'number' ? { horizon } : {}),
      };
    } catch (err) {
      if (isStorageError(err, 'NOT_FOUND') || err instanceof SyntaxError) return undefined;
      throw err;
    }
  }

  async function render(v: VideoRow, g: GroupRow, inputs: VideoInputs, dir: string, signal: AbortSignal) {
    const references: VideoReference[] = [];
    for (const r of inputs.referenceImages) {
      references.push({ kind: 'image', bytes: await read(r, inputs.uploadKeys?.[r.assetId]) });
    }
    for (const [i, r] of inputs.referenceVideos.entries()) {
      const file = path.join(dir, `reference-${i}.mp4`);
      try {
        await downloadToFile(deps.storage, r.key, file);
      } catch (err) {
        if (!isStorageError(err, 'NOT_FOUND')) throw err;
        throw new GenerationError(`Reference video ${r.assetId} (${r.fileName}) is no longer available`, false);
      }
      references.push({ kind: 'video', path: file });
    }
    const intermediateFrames: Buffer[] = [];
    for (const f of inputs.intermediate) intermediateFrames.push(await read(f));
    const startFrame = inputs.start ? await read(inputs.start) : undefined;
    const startFrameLayers = inputs.start ? await layersOf(v.organization_id, inputs.start.assetId) : undefined;
    const endFrame = inputs.end ? await read(inputs.end) : undefined;
    signal.throwIfAborted();
    return deps.videoEngine(g.model as VideoModelId).generate({
      prompt: enginePrompt(v.prompt, inputs),
      width: g.width,
      height: g.height,
      durationSeconds: g.duration,
      ...(startFrame ? { startFrame } : {}),
      ...(startFrameLayers ? { startFrameLayers } : {}),
      ...(endFrame ? { endFrame } : {}),
      ...(intermediateFrames.length ? { intermediateFrames } : {}),
      ...(references.length ? { references } : {}),
      enableAudio: g.enable_audio === 1,
      seed: v.seed,
      signal,
    });
  }

  const variation = variationJob(videoVariationRun, deps, {
    timeoutMs: 900_000,
    async run(v, g, ctx) {
      const inputs = fromJson<VideoInputs>(g.context, null as never);
      const preview = previewKey(v.organization_id, v.asset_id);
      // An earlier run stored the clip and died before finishing: finish with what it stored.
      if (await deps.assets.exists(v.asset_id)) return { preview_key: preview };
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atelier-video-job-'));
      try {
        const result = await render(v, g, inputs, dir, ctx.signal);
        ctx.signal.throwIfAborted();
        const stored = await deps.assets.storeGenerated({
          orgId: v.organization_id,
          brandId: v.brand_id,
          assetId: v.asset_id,
          mp4: result.mp4,
          ...(result.previewFormat === 'mp4' ? { preview: result.preview } : {}),
          fileName: `video-${g.id.slice(0, 8)}-${v.position + 1}.mp4`,
          type: 'video',
          description: v.prompt.slice(0, 500),
          tags: ['generated', 'video'],
          provenance: videoProvenance(result.engine, inputs, 'A product video'),
        });
        const warnings: Warning[] = [...fromJson<Warning[]>(v.warnings, []), ...result.warnings];
        return {
          width: stored.metadata.dimension?.width ?? result.width,
          height: stored.metadata.dimension?.height ?? result.height,
          preview_key: result.previewFormat === 'mp4' ? preview : null,
          camera: result.camera?.move ?? null,
          warnings: toJson(warnings),
          engine: result.engine,
        };
      } finally {
        await fs.rm(dir, { recursive: true, force: true });
      }
    },
    failedMessage: (error) => (error instanceof GenerationError ? error.message : FAILED_AFTER_RETRIES),
    failedLog: 'video variation failed after retries',
  });
  return [variation];
}
