import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Clock } from '../../clock.ts';
import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import { downloadToFile, readToBuffer, type StorageSettings } from '../../adapters/storage/storage.ts';
import {
  checkDeclaredAgainstDetected,
  classifyDeclared,
  type FormatName,
  formatInfo,
  sniffFile,
  sniffFormat,
} from '../../adapters/media/index.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import { toJson } from '../../adapters/db/columns.ts';
import type { Principal } from '../access/access.service.ts';
import type { JobSystem } from '../../jobs/types.ts';
import type { AssetRow, AssetsRepo, UploadRow } from './assets.repo.ts';
import type { Asset, AssetType, InitiateUploadBody, ListAssetsQuery } from './assets.schemas.ts';
import { originalKey, previewKey, sanitizeFileName, uploadKey } from './assets.keys.ts';
import { presentAsset } from './assets.presenter.ts';
import { processAssetJob, processedFields, storeThumbnail } from './assets.jobs.ts';
import { analyzeFile } from './assets.processing.ts';
import {
  type CredentialsSummary,
  type IngredientInput,
  ingredientFormat,
  type Provenance,
} from '../../adapters/provenance/provenance.ts';
import { isStorageError } from '../../adapters/storage/storage.port.ts';
import type { GeneratedProvenance } from '../generation/provenance.ts';

export interface AssetsServiceDeps {
  repo: AssetsRepo;
  storage: ObjectStorage;
  jobs: Pick<JobSystem, 'enqueue'>;
  clock: Clock;
  /** The upload and download links' lifetimes. */
  config: { storage: StorageSettings };
  /**
   * Content Credentials for generated files: the signer, Atelier's version, and whether an
   * organization has signing on (the default). Absent: files are stored as the engines made them.
   */
  provenance?: {
    signer: Pick<Provenance, 'sign'>;
    version: string;
    enabledFor(orgId: string): Promise<boolean>;
  };
}

const DEFAULT_CATEGORY = { id: 'general', name: 'General' };
/** Largest generated image read back into memory (a 4096 px PNG is well under it). */
const GENERATED_MAX_BYTES = 256 * 1024 * 1024;
/** Assets waiting this long for processing get their job enqueued again (a no-op while it exists). */
const REQUEUE_AFTER_MS = 2 * 60_000;

/** Defaults of every asset row; creators fill in the rest. */
const blankAsset = {
  category_id: null,
  detected_format: null,
  thumbnail_key: null,
  width: null,
  height: null,
  duration: null,
  description: null,
  extra: '{}',
  tags: '[]',
  auto_tags: '[]',
  used_in_campaigns: '[]',
  quality_tags: '[]',
  quality_status: 'pending',
  error_code: null,
  error_message: null,
  version: 1,
} satisfies Partial<AssetRow>;

/** The upload flow (initiate → PUT bytes to the link → confirm, or cancel) and asset reads. */
/** Ingredients read whole to hash them and to carry their own credentials along (larger: not read). */
const INGREDIENT_MAX_BYTES = 64 * 1024 * 1024;

export function createAssetsService({ repo, storage, jobs, clock, config, provenance }: AssetsServiceDeps) {
  const now = () => clock().toISOString();
  const present = (row: AssetRow) => presentAsset(row, storage, config.storage.downloadLinkTtlSeconds);
  /** Queues processing; the job id is the asset's, so enqueueing again while the job is known does nothing. */
  const enqueueProcessing = (assetId: string) =>
    jobs.enqueue(processAssetJob, { assetId }, { jobId: `assets.process.${assetId}` });

  async function mustBrand(p: Principal, brandId: string) {
    if (!(await repo.brandInOrg(p.org.id, brandId))) throw notFound(`Brand ${brandId} not found`, 'BRAND_NOT_FOUND');
  }

  /** The format the stored bytes really are, from their first bytes (whole file for ZIP-based DOCX). */
  async function sniffStored(key: string) {
    const head = await storage.readRange(key, 0, 64 * 1024 - 1);
    const first = await sniffFormat(head);
    if (first.detectedFormat !== 'ZIP') return first;
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atelier-sniff-'));
    try {
      const file = path.join(dir, 'object');
      await downloadToFile(storage, key, file);
      return await sniffFile(file);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }

  /** The inputs' bytes (an input deleted since is left out: the file is signed without it). */
  async function ingredientsOf(facts: GeneratedProvenance): Promise<IngredientInput[]> {
    const out: IngredientInput[] = [];
    for (const { input, relationship } of facts.ingredients) {
      let bytes: Buffer;
      try {
        bytes = await readToBuffer(storage, input.key, INGREDIENT_MAX_BYTES, `Asset ${input.assetId}`);
      } catch (err) {
        if (isStorageError(err, 'NOT_FOUND')) continue;
        throw err;
      }
      out.push({
        assetId: input.assetId,
        title: input.fileName,
        format: ingredientFormat(bytes) ?? 'application/octet-stream',
        relationship,
        bytes,
      });
    }
    return out;
  }

  /**
   * A generated file with its Content Credentials (when the organization has signing on): the
   * main file and its preview signed with the same facts; the summary kept with the asset.
   */
  async function sign(
    orgId: string,
    fileName: string,
    facts: GeneratedProvenance | undefined,
    files: { bytes: Buffer; format: 'image/png' | 'video/mp4'; preview?: Buffer | undefined },
  ): Promise<{ bytes: Buffer; preview?: Buffer | undefined; summary?: CredentialsSummary }> {
    if (!provenance || !facts || !(await provenance.enabledFor(orgId))) return files;
    const ingredients = await ingredientsOf(facts);
    const common = {
      format: files.format,
      sourceType: facts.sourceType,
      generator: { version: provenance.version, engine: facts.engine, ...(facts.model ? { model: facts.model } : {}) },
      description: facts.description,
      ingredients,
    };
    const main = await provenance.signer.sign(files.bytes, { ...common, title: fileName });
    const preview = files.preview
      ? (
          await provenance.signer.sign(files.preview, {
            ...common,
            title: fileName.replace(/(\.[a-z0-9]+)?$/i, '-preview$1'),
          })
        ).bytes
      : undefined;
    return { bytes: main.bytes, preview, summary: main.summary };
  }

  return {
    async initiateUpload(p: Principal, body: InitiateUploadBody) {
      const brandId = body.brandId.toLowerCase();
      await mustBrand(p, brandId);
      const t = now();
      const items = body.files.map((f, i) => {
        const declared = classifyDeclared(f.fileName, f.fileType);
        if (!declared.ok) {
          throw badRequest(`body.files.${i}.fileType ${declared.message}`, {
            fields: [{ field: `body.files.${i}.fileType`, message: declared.message }],
            reason: declared.reason,
          });
        }
        if (f.isLogo && declared.assetType !== 'image') {
          const message = `marks a logo, which must be an image (JPEG, PNG, GIF or TIFF), not a ${declared.assetType}`;
          throw badRequest(`body.files.${i}.isLogo ${message}`, {
            fields: [{ field: `body.files.${i}.isLogo`, message }],
          });
        }
        const assetId = randomUUID();
        const uploadId = randomUUID();
        const key = uploadKey(p.org.id, assetId);
        const type = f.isLogo ? 'logo' : declared.assetType;
        const asset: AssetRow = {
          ...blankAsset,
          id: assetId,
          organization_id: p.org.id,
          brand_id: brandId,
          category_id: body.categoryId?.toLowerCase() ?? null,
          type,
          status: 'uploading',
          origin: 'upload',
          file_name: sanitizeFileName(f.fileName),
          file_type: declared.mimeType,
          file_size: f.fileSize,
          storage_key: originalKey(p.org.id, assetId),
          width: f.dimension?.width ?? null,
          height: f.dimension?.height ?? null,
          duration: f.duration ?? null,
          created_at: t,
          updated_at: t,
        };
        return { asset, uploadId, key, contentType: declared.mimeType, size: f.fileSize };
      });
      const links = await Promise.all(
        items.map((it) =>
          storage.createUploadLink(it.key, {
            contentLength: it.size,
            contentType: it.contentType,
            expiresInSeconds: config.storage.uploadLinkTtlSeconds,
          }),
        ),
      );
      await repo.insertUploads(
        items.map((it, i) => {
          const upload: UploadRow = {
            id: it.uploadId,
            asset_id: it.asset.id,
            organization_id: p.org.id,
            storage_key: it.key,
            declared_size: it.size,
            declared_type: it.contentType,
            status: 'pending',
            expires_at: links[i]!.expiresAt.toISOString(),
            created_at: t,
            updated_at: t,
          };
          return { asset: it.asset, upload };
        }),
      );
      return {
        uploads: items.map((it, i) => ({
          uploadId: it.uploadId,
          assetId: it.asset.id,
          expires: links[i]!.expiresAt.toISOString(),
          uploadUrl: links[i]!.url,
          uploadMethod: links[i]!.method,
          uploadHeaders: links[i]!.headers,
        })),
      };
    },

    async confirmUpload(p: Principal, body: { uploadId: string; categoryId?: string | undefined }): Promise<Asset> {
      const uploadId = body.uploadId.toLowerCase();
      const upload = await repo.getUpload(p.org.id, uploadId);
      if (!upload) throw notFound(`Upload ${uploadId} not found`, 'UPLOAD_NOT_FOUND');
      const asset = await repo.getAsset(p.org.id, upload.asset_id);
      if (!asset) throw notFound(`Upload ${uploadId} not found`, 'UPLOAD_NOT_FOUND');
      if (upload.status === 'confirmed') {
        // Idempotent. Enqueueing again is a no-op while the job exists, and heals a confirm that
        // committed but died before it could enqueue.
        if (asset.status === 'uploaded' || asset.status === 'processing') await enqueueProcessing(asset.id);
        return present(asset);
      }
      if (upload.status !== 'pending') {
        throw badRequest(
          `Upload ${uploadId} was ${upload.status}; start a new upload`,
          { uploadStatus: upload.status },
          'UPLOAD_NOT_PENDING',
        );
      }
      const info = await storage.head(upload.storage_key);
      const linkValid = upload.expires_at > now();
      if (!info) {
        throw badRequest(
          linkValid
            ? 'No bytes have been uploaded yet: send the file to uploadUrl first'
            : 'No bytes were uploaded before the upload link expired; start a new upload',
          { reason: 'upload_missing', retryable: linkValid },
          'INVALID_REQUEST',
        );
      }
      if (info.size !== Number(upload.declared_size)) {
        throw badRequest(`The uploaded file has ${info.size} bytes but ${upload.declared_size} were declared`, {
          reason: 'size_mismatch',
          declaredSize: Number(upload.declared_size),
          uploadedSize: info.size,
          retryable: linkValid,
        });
      }
      const check = checkDeclaredAgainstDetected(upload.declared_type, await sniffStored(upload.storage_key));
      if (!check.ok) throw badRequest(check.message, { ...check.details });
      const won = await repo.confirmUpload(
        upload.id,
        asset.id,
        {
          file_size: info.size,
          file_type: check.mimeType,
          detected_format: check.format,
          ...(body.categoryId !== undefined ? { category_id: body.categoryId.toLowerCase() } : {}),
        },
        now(),
      );
      if (won) await enqueueProcessing(asset.id);
      const fresh = await repo.getAsset(p.org.id, asset.id);
      return present(fresh ?? asset);
    },

    async cancelUpload(p: Principal, id: string) {
      const uploadId = id.toLowerCase();
      const upload = await repo.getUpload(p.org.id, uploadId);
      if (!upload) throw notFound(`Upload ${uploadId} not found`, 'UPLOAD_NOT_FOUND');
      if (upload.status === 'canceled') return { success: true, message: 'The upload was already canceled' };
      if (upload.status === 'expired') {
        return {
          success: true,
          message: 'The upload link had expired; the upload was already canceled and cleaned up',
        };
      }
      if (upload.status !== 'pending') {
        return { success: false, message: `The upload is ${upload.status} and can no longer be canceled` };
      }
      const ended = await repo.endUpload(upload.id, upload.asset_id, 'canceled', now());
      if (!ended)
        return { success: false, message: 'The upload was confirmed meanwhile and can no longer be canceled' };
      await storage.delete(upload.storage_key);
      return { success: true, message: 'The upload was canceled and its temporary data removed' };
    },

    async get(p: Principal, id: string): Promise<Asset> {
      const assetId = id.toLowerCase();
      const row = await repo.getAsset(p.org.id, assetId);
      if (!row) throw notFound(`Asset ${assetId} not found`, 'ASSET_NOT_FOUND');
      return present(row);
    },

    async list(p: Principal, id: string, q: ListAssetsQuery) {
      const brandId = id.toLowerCase();
      await mustBrand(p, brandId);
      const rows = await repo.list(p.org.id, brandId, {
        ...q,
        ...(q.campaignId ? { campaignId: q.campaignId.toLowerCase() } : {}),
      });
      const groups = new Map<string, { id: string; name: string; assets: Asset[] }>();
      for (const row of rows) {
        const id = row.category_id ?? DEFAULT_CATEGORY.id;
        let g = groups.get(id);
        if (!g) {
          g = { id, name: row.category_id ?? DEFAULT_CATEGORY.name, assets: [] };
          groups.set(id, g);
        }
        g.assets.push(await present(row));
      }
      if (groups.size === 0) groups.set(DEFAULT_CATEGORY.id, { ...DEFAULT_CATEGORY, assets: [] });
      return { categories: [...groups.values()] };
    },

    /**
     * Makes an asset from bytes already in storage (an extraction candidate's staged copy, a
     * generated image): copies them under the asset's own key, writes the row as `uploaded` and
     * queues the same processing as a direct upload. `format` is the sniffed format of the bytes.
     */
    async importObject(input: {
      orgId: string;
      brandId: string;
      sourceKey: string;
      fileName: string;
      format: FormatName;
      size: number;
      type?: AssetType;
      origin: 'extraction' | 'generated';
      tags?: string[];
      description?: string;
    }): Promise<Asset> {
      const info = formatInfo(input.format);
      const assetId = randomUUID();
      const key = originalKey(input.orgId, assetId);
      await storage.put(key, await storage.getStream(input.sourceKey), {
        contentType: info.mime,
        contentLength: input.size,
      });
      const t = now();
      const row: AssetRow = {
        ...blankAsset,
        id: assetId,
        organization_id: input.orgId,
        brand_id: input.brandId,
        type: input.type ?? info.assetType,
        status: 'uploaded',
        origin: input.origin,
        file_name: sanitizeFileName(input.fileName),
        file_type: input.origin === 'generated' ? 'image' : info.mime,
        file_size: input.size,
        detected_format: input.format,
        storage_key: key,
        description: input.description ?? null,
        tags: toJson(input.tags ?? []),
        created_at: t,
        updated_at: t,
      };
      await repo.insertAsset(row);
      await enqueueProcessing(assetId);
      return present(row);
    },

    /**
     * Stores a generation's result as a `complete` asset of the brand under the id fixed at create
     * (idempotent: an asset already stored under it is returned as it is): the bytes (`png`, or an
     * `mp4` with its `preview` clip kept next to it at `previewKey`), analyzed like an upload
     * (dimension, duration, frame rate, thumbnail).
     */
    async storeGenerated(
      input: {
        orgId: string;
        brandId: string;
        assetId: string;
        fileName: string;
        type: AssetType;
        description?: string;
        tags?: string[];
        /** What the file says about itself (Content Credentials); absent: stored unsigned. */
        provenance?: GeneratedProvenance;
      } & ({ png: Buffer } | { mp4: Buffer; preview?: Buffer }),
    ): Promise<Asset> {
      const existing = await repo.getAssetById(input.assetId);
      if (existing) return present(existing);
      const video = 'mp4' in input;
      const signed = await sign(input.orgId, sanitizeFileName(input.fileName), input.provenance, {
        bytes: video ? input.mp4 : input.png,
        format: video ? 'video/mp4' : 'image/png',
        preview: video ? input.preview : undefined,
      });
      const bytes = signed.bytes;
      const format = video ? 'MP4' : 'PNG';
      const contentType = video ? 'video/mp4' : 'image/png';
      const key = originalKey(input.orgId, input.assetId);
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atelier-generated-'));
      try {
        const file = path.join(dir, video ? 'video.mp4' : 'image.png');
        await fs.writeFile(file, bytes);
        const result = await analyzeFile(file, format);
        await storage.put(key, bytes, { contentType, contentLength: bytes.length });
        if (video && signed.preview) {
          await storage.put(previewKey(input.orgId, input.assetId), signed.preview, {
            contentType: 'video/mp4',
            contentLength: signed.preview.length,
          });
        }
        const thumb = await storeThumbnail(storage, input.orgId, input.assetId, result);
        const t = now();
        const row: AssetRow = {
          ...blankAsset,
          ...processedFields(result, thumb),
          // The credentials' summary, computed once here: GET shows it without parsing the file.
          ...(signed.summary ? { extra: toJson({ ...result.extra, contentCredentials: signed.summary }) } : {}),
          id: input.assetId,
          organization_id: input.orgId,
          brand_id: input.brandId,
          type: input.type,
          status: 'complete',
          quality_status: 'complete',
          origin: 'generated',
          file_name: sanitizeFileName(input.fileName),
          file_type: video ? 'video' : 'image',
          file_size: bytes.length,
          detected_format: format,
          storage_key: key,
          description: input.description ?? null,
          tags: toJson(input.tags ?? []),
          created_at: t,
          updated_at: t,
          version: 2,
        };
        await repo.insertAsset(row);
        return present(row);
      } finally {
        await fs.rm(dir, { recursive: true, force: true });
      }
    },

    /** Whether an asset is stored under this id (a generation job that ran before may have stored it). */
    async exists(assetId: string): Promise<boolean> {
      return (await repo.getAssetById(assetId)) !== undefined;
    },

    /**
     * The bytes of a generated asset stored earlier (a generation job that runs again after it
     * stored its result scores what was stored instead of generating anew), or undefined.
     */
    async readGenerated(assetId: string): Promise<Buffer | undefined> {
      const row = await repo.getAssetById(assetId);
      if (row?.origin !== 'generated') return undefined;
      return readToBuffer(storage, row.storage_key, GENERATED_MAX_BYTES, `Asset ${assetId}`);
    },

    /**
     * Compact references with fresh signed links, for assets of the organization (missing ones are
     * left out): `url` while the original is there, `thumbnailUrl` when there is one.
     */
    async refs(
      orgId: string,
      ids: string[],
    ): Promise<Map<string, Pick<Asset, 'url' | 'thumbnailUrl'> & { assetType: string }>> {
      const out = new Map<string, Pick<Asset, 'url' | 'thumbnailUrl'> & { assetType: string }>();
      for (const row of await repo.getAssets(orgId, [...new Set(ids)])) {
        const a = await present(row);
        out.set(row.id, {
          assetType: row.type,
          ...(a.url ? { url: a.url } : {}),
          ...(a.thumbnailUrl ? { thumbnailUrl: a.thumbnailUrl } : {}),
        });
      }
      return out;
    },

    /**
     * Scheduled upkeep: (1) uploads never confirmed become `canceled` (UPLOAD_EXPIRED) once their
     * link expired (plus a grace minute) and their bytes are removed; (2) once the link of a
     * canceled or confirmed upload has expired, its upload object is removed once more, since the
     * link could still be used until then; (3) assets waiting for processing for a while get their
     * job enqueued again, which does nothing while the job exists and recovers a confirm that
     * died between its commit and its enqueue. Returns how many uploads expired.
     */
    async cleanupExpiredUploads(limit = 200) {
      const nowMs = clock().getTime();
      const cutoff = new Date(nowMs - 60_000).toISOString();
      const stale = await repo.pendingUploadsExpiredBefore(cutoff, limit);
      for (const u of stale) {
        if (await repo.endUpload(u.id, u.asset_id, 'expired', now())) await storage.delete(u.storage_key);
      }
      for (const u of await repo.uploadsToSweep(cutoff, limit)) {
        await storage.delete(u.storage_key);
        await repo.markSwept(u.id, now());
      }
      for (const a of await repo.waitingSince(new Date(nowMs - REQUEUE_AFTER_MS).toISOString(), limit)) {
        await enqueueProcessing(a.id);
      }
      return stale.length;
    },
  };
}

export type AssetsService = ReturnType<typeof createAssetsService>;
