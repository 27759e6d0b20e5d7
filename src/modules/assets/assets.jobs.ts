import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Type } from 'typebox';
import type { Clock } from '../../clock.ts';
import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import { downloadToFile } from '../../adapters/storage/storage.ts';
import { toJson } from '../../adapters/db/columns.ts';
import { type FormatName, formatInfo, isMediaError } from '../../adapters/media/index.ts';
import { defineJob, type JobDefinition, type JobRef } from '../../jobs/types.ts';
import type { AssetsRepo } from './assets.repo.ts';
import { thumbnailKey } from './assets.keys.ts';
import { analyzeFile } from './assets.processing.ts';

const ProcessPayload = Type.Object({ assetId: Type.String({ format: 'uuid' }) });

/** Enqueued by confirm-upload and by extraction commits; the job id is `assets.process.<assetId>`. */
export const processAssetJob: JobRef<typeof ProcessPayload> = { name: 'assets.process', payload: ProcessPayload };
export const cleanupUploadsJob: JobRef = { name: 'assets.cleanup-uploads', payload: Type.Object({}) };

export interface AssetJobsDeps {
  repo: AssetsRepo;
  storage: ObjectStorage;
  clock: Clock;
  cleanupExpiredUploads(): Promise<number>;
}

/**
 * Media processing: download the original to a temp file, analyze it for its sniffed format,
 * store a thumbnail, and move the asset to `complete` (or `failed` with the reason when the file
 * itself is bad). Idempotent: an asset that is no longer `uploaded`/`processing` is left alone,
 * and the thumbnail key is fixed per asset.
 */
export function assetJobs(deps: AssetJobsDeps): JobDefinition[] {
  const now = () => deps.clock().toISOString();
  const fail = (assetId: string, code: string, message: string) =>
    deps.repo.finishProcessing(
      assetId,
      { status: 'failed', quality_status: 'failed', error_code: code, error_message: message },
      now(),
    );

  const processAsset = defineJob({
    ...processAssetJob,
    queue: 'media',
    attempts: 3,
    backoffMs: 2000,
    timeoutMs: 180_000,
    async handler({ assetId }, ctx) {
      const asset = await deps.repo.getAssetById(assetId);
      if (!asset || (asset.status !== 'uploaded' && asset.status !== 'processing')) return;
      if (asset.status === 'uploaded') await deps.repo.markProcessing(assetId, now());
      const format = asset.detected_format as FormatName | null;
      if (!format) return void (await fail(assetId, 'PROCESSING_FAILED', 'The file format was never detected'));
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atelier-asset-'));
      try {
        const file = path.join(dir, `original.${formatInfo(format).extensions[0] ?? 'bin'}`);
        await downloadToFile(deps.storage, asset.storage_key, file);
        ctx.signal.throwIfAborted();
        let result: Awaited<ReturnType<typeof analyzeFile>>;
        try {
          result = await analyzeFile(file, format);
        } catch (err) {
          if (isMediaError(err)) return void (await fail(assetId, `MEDIA_${err.code}`, err.message));
          throw err;
        }
        let thumbKey: string | null = null;
        if (result.thumbnail?.buffer) {
          thumbKey = thumbnailKey(asset.organization_id, assetId, result.thumbnail.format);
          await deps.storage.put(thumbKey, result.thumbnail.buffer, { contentType: result.thumbnail.mimeType });
        }
        await deps.repo.finishProcessing(
          assetId,
          {
            status: 'complete',
            quality_status: 'complete',
            width: result.width ?? asset.width,
            height: result.height ?? asset.height,
            duration: result.duration ?? asset.duration,
            thumbnail_key: thumbKey,
            extra: toJson(result.extra),
            auto_tags: toJson(result.autoTags),
            quality_tags: toJson(result.qualityTags),
            error_code: null,
            error_message: null,
          },
          now(),
        );
      } finally {
        await fs.rm(dir, { recursive: true, force: true });
      }
    },
    async onFailed({ assetId }, error, ctx) {
      // The cause (storage, disk) is for the operator's log, not the client.
      ctx.log.error({ assetId, err: error.message }, 'asset processing failed after retries');
      await fail(assetId, 'PROCESSING_FAILED', 'Processing failed after several attempts; try uploading the file again');
    },
  });

  const cleanupUploads = defineJob({
    ...cleanupUploadsJob,
    queue: 'maintenance',
    attempts: 1,
    async handler() {
      await deps.cleanupExpiredUploads();
    },
  });

  return [processAsset, cleanupUploads];
}
