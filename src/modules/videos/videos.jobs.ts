import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Type } from 'typebox';
import { fromJson, toJson } from '../../adapters/db/columns.ts';
import { isStorageError, type ObjectStorage } from '../../adapters/storage/storage.port.ts';
import { downloadToFile, readToBuffer } from '../../adapters/storage/storage.ts';
import type { Clock } from '../../clock.ts';
import { GenerationError } from '../../engines/image/scene-engine.ts';
import type { VideoEngine, VideoReference, VideoRequest } from '../../engines/video/video-engine.ts';
import { Uuid } from '../../http/schemas.ts';
import { defineJob, type JobDefinition, type JobRef } from '../../jobs/types.ts';
import { layerKey, previewKey } from '../assets/assets.keys.ts';
import type { AssetsService } from '../assets/assets.service.ts';
import type { Warning } from '../generation/generation.schemas.ts';
import { videoProvenance } from '../generation/provenance.ts';
import { type AssetInput, readInput } from '../generation/inputs.ts';
import type { UsageLedger } from '../usage/usage.ledger.ts';
import type { VideoInputs } from './video-inputs.ts';
import type { VideoModelId } from './video-models.ts';
import type { GroupRow, VideoRow, VideosRepo } from './videos.repo.ts';
import { type ChangePublisher, publishChange } from '../../events/publish.ts';

const VariationPayload = Type.Object({ variationId: Uuid });

/** One job per variation; the job id is `videos.variation.<variationId>` (videoVariationJobId). */
export const videoVariationJobId = (variationId: string) => `videos.variation.${variationId}`;
export const videoVariationJob: JobRef<typeof VariationPayload> = {
  name: 'videos.variation',
  payload: VariationPayload,
};

export interface VideoJobsDeps {
  repo: VideosRepo;
  storage: Pick<ObjectStorage, 'getStream'>;
  assets: Pick<AssetsService, 'storeGenerated' | 'exists'>;
  usage: Pick<UsageLedger, 'commit' | 'release'>;
  /** The engine a model is mapped to (config). */
  videoEngine(model: VideoModelId): VideoEngine;
  clock: Clock;
  changes: ChangePublisher;
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
  const now = () => deps.clock().toISOString();

  /**
   * Announces the variation's group as its `finish` transaction left it (after the commit): only
   * the variation that ended the group announces its end.
   */
  async function changed(done: { group: GroupRow | undefined }) {
    if (done.group) await publishChange(deps, 'video_group', done.group);
  }

  async function fail(variationId: string, message: string) {
    const done = await deps.repo.finish(
      variationId,
      'failed',
      { error_code: 'GENERATION_FAILED', error_message: message },
      now(),
    );
    if (done?.reservationId) await deps.usage.release(done.reservationId);
    if (done) await changed(done);
  }

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

  const variation = defineJob({
    ...videoVariationJob,
    queue: 'generation',
    attempts: 3,
    backoffMs: 2000,
    timeoutMs: 900_000,
    async handler({ variationId }, ctx) {
      if (!(await deps.repo.start(variationId, now()))) return;
      const v = await deps.repo.variationById(variationId);
      const g = v && (await deps.repo.groupById(v.group_id));
      if (!v || !g) return;
      await publishChange(deps, 'video_group', g);
      const inputs = fromJson<VideoInputs>(g.context, null as never);
      const preview = previewKey(v.organization_id, v.asset_id);
      try {
        if (await deps.assets.exists(v.asset_id)) {
          // An earlier run stored the clip and died before finishing: finish with what it stored.
          const done = await deps.repo.finish(variationId, 'completed', { preview_key: preview }, now());
          if (done?.reservationId) await deps.usage.commit(done.reservationId);
          if (done) await changed(done);
          return;
        }
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
          const done = await deps.repo.finish(
            variationId,
            'completed',
            {
              width: stored.metadata.dimension?.width ?? result.width,
              height: stored.metadata.dimension?.height ?? result.height,
              preview_key: result.previewFormat === 'mp4' ? preview : null,
              camera: result.camera?.move ?? null,
              warnings: toJson(warnings),
              engine: result.engine,
            },
            now(),
          );
          if (done?.reservationId) await deps.usage.commit(done.reservationId);
          if (done) await changed(done);
        } finally {
          await fs.rm(dir, { recursive: true, force: true });
        }
      } catch (err) {
        if (err instanceof GenerationError && !err.retryable) return void (await fail(variationId, err.message));
        throw err;
      }
    },
    async onFailed({ variationId }, error, ctx) {
      ctx.log.error({ variationId, err: error.message }, 'video variation failed after retries');
      await fail(variationId, error instanceof GenerationError ? error.message : FAILED_AFTER_RETRIES);
    },
  });
  return [variation];
}
