import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Type } from 'typebox';
import { Uuid } from '../../http/schemas.ts';
import type { Clock } from '../../clock.ts';
import { isStorageError, type ObjectStorage } from '../../adapters/storage/storage.port.ts';
import { downloadToFile } from '../../adapters/storage/storage.ts';
import { toJson } from '../../adapters/db/columns.ts';
import { type FormatName, formatInfo, isMediaError, sniffFile } from '../../adapters/media/index.ts';
import { defineJob, type JobDefinition, type JobRef } from '../../jobs/types.ts';
import type { AssetsRepo } from './assets.repo.ts';
import { thumbnailKey, uploadKey } from './assets.keys.ts';
import { analyzeFile, type ProcessingResult } from './assets.processing.ts';
import { type ChangePublisher, publishChange } from '../../events/publish.ts';

const ProcessPayload = Type.Object({ assetId: Uuid });

/** Enqueued by confirm-upload and by extraction commits; the job id is `assets.process.<assetId>`. */
export const processAssetJob: JobRef<typeof ProcessPayload> = { name: 'assets.process', payload: ProcessPayload };
export const cleanupUploadsJob: JobRef = { name: 'assets.cleanup-uploads', payload: Type.Object({}) };

/** Stores the analysis's thumbnail under the asset's fixed thumbnail key; returns the key, or null. */
export async function storeThumbnail(
  storage: Pick<ObjectStorage, 'put'>,
  orgId: string,
  assetId: string,
  result: ProcessingResult,
): Promise<string | null> {
  if (!result.thumbnail?.buffer) return null;
  const key = thumbnailKey(orgId, assetId, result.thumbnail.format);
  await storage.put(key, result.thumbnail.buffer, { contentType: result.thumbnail.mimeType });
  return key;
}

/** The asset columns an analysis fills in. */
export function processedFields(result: ProcessingResult, thumbnailKey: string | null) {
  return {
    width: result.width ?? null,
    height: result.height ?? null,
    duration: result.duration ?? null,
    thumbnail_key: thumbnailKey,
    extra: toJson(result.extra),
    auto_tags: toJson(result.autoTags),
    quality_tags: toJson(result.qualityTags),
  };
}

export interface AssetJobsDeps {
  repo: AssetsRepo;
  storage: ObjectStorage;
  clock: Clock;
  changes: ChangePublisher;
  cleanupExpiredUploads(): Promise<number>;
}

/**
 * Media processing: copy the bytes to a temp file, analyze them for their sniffed format, store a
 * thumbnail, and move the asset to `complete` (or `failed` with the reason when the file itself is
 * bad). An upload is read from its upload key, checked again against what confirm-upload sniffed,
 * and written to the original's key from the very bytes analyzed (a PUT to the upload link after
 * confirm cannot change the asset). Idempotent: an asset that is no longer `uploaded`/`processing`
 * is left alone, a rerun reads the original once it is in place, and the thumbnail key is fixed
 * per asset.
 */
export function assetJobs(deps: AssetJobsDeps): JobDefinition[] {
  const now = () => deps.clock().toISOString();
  /** Announces the end of processing (long-poll, webhooks); after the transition committed. */
  const changed = (assetId: string) => publishChange(deps, 'asset', () => deps.repo.getAssetById(assetId));
  const fail = async (assetId: string, code: string, message: string) => {
    const done = await deps.repo.finishProcessing(
      assetId,
      { status: 'failed', quality_status: 'failed', error_code: code, error_message: message },
      now(),
    );
    if (done) await changed(assetId);
    return done;
  };

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
      const info = formatInfo(format);
      const fromUpload = asset.origin === 'upload';
      // An upload is read from its upload key until processing has put the whole original in place
      // (the size check also covers stores where an interrupted PUT leaves a partial object).
      const staged = fromUpload && (await deps.storage.head(asset.storage_key))?.size !== Number(asset.file_size);
      const source = staged ? uploadKey(asset.organization_id, assetId) : asset.storage_key;
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atelier-asset-'));
      // The upload object is not needed once the original is in place or the asset failed (the
      // scheduled cleanup removes it again after its link expired); a retry still needs it.
      const dropUpload = async () => {
        if (!fromUpload) return;
        await deps.storage
          .delete(uploadKey(asset.organization_id, assetId))
          .catch((err: unknown) => ctx.log.warn({ assetId, err }, 'could not remove the upload object'));
      };
      const end = async (code: string, message: string) => {
        await fail(assetId, code, message);
        await dropUpload();
      };
      try {
        const file = path.join(dir, `original.${info.extensions[0] ?? 'bin'}`);
        let size: number;
        try {
          size = await downloadToFile(deps.storage, source, file);
        } catch (err) {
          if (!isStorageError(err, 'NOT_FOUND')) throw err;
          return void (await end('FILE_MISSING', 'The uploaded file is no longer in storage; upload it again'));
        }
        ctx.signal.throwIfAborted();
        if (staged && (size !== Number(asset.file_size) || (await sniffFile(file)).format !== format)) {
          return void (await end('FILE_CHANGED', 'The file was replaced after confirm-upload; upload it again'));
        }
        let result: Awaited<ReturnType<typeof analyzeFile>>;
        try {
          result = await analyzeFile(file, format);
        } catch (err) {
          if (isMediaError(err)) return void (await end(`MEDIA_${err.code}`, err.message));
          throw err;
        }
        if (staged) {
          await deps.storage.put(asset.storage_key, createReadStream(file), {
            contentType: info.mime,
            contentLength: size,
          });
        }
        await dropUpload();
        const thumbKey = await storeThumbnail(deps.storage, asset.organization_id, assetId, result);
        const fields = processedFields(result, thumbKey);
        const done = await deps.repo.finishProcessing(
          assetId,
          {
            status: 'complete',
            quality_status: 'complete',
            ...fields,
            width: fields.width ?? asset.width,
            height: fields.height ?? asset.height,
            duration: fields.duration ?? asset.duration,
            error_code: null,
            error_message: null,
          },
          now(),
        );
        if (done) await changed(assetId);
      } finally {
        await fs.rm(dir, { recursive: true, force: true });
      }
    },
    async onFailed({ assetId }, error, ctx) {
      // The cause (storage, disk) is for the operator's log, not the client.
      ctx.log.error({ assetId, err: error.message }, 'asset processing failed after retries');
      await fail(
        assetId,
        'PROCESSING_FAILED',
        'Processing failed after several attempts; try uploading the file again',
      );
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
