import type { Kysely, Transaction, Updateable } from 'kysely';
import type { Database } from '../../adapters/db/database.ts';
import type { DB } from '../../adapters/db/schema.ts';
import { affected, fromJson } from '../../adapters/db/columns.ts';
import { brandInOrg, byCodePoint } from '../brands/brands.repo.ts';
import type { AssetsTable, UploadsTable } from './assets.tables.ts';
import type { ListAssetsQuery } from './assets.schemas.ts';
import { assetFolder } from './assets.keys.ts';
import { busyIn } from '../brands/brand-parts.ts';

export type AssetRow = AssetsTable;
export type UploadRow = UploadsTable;

type Exec = Kysely<DB> | Transaction<DB>;

async function writeTags(x: Exec, assetId: string, kind: 'user' | 'auto', tags: string[]) {
  await x.deleteFrom('asset_tags').where('asset_id', '=', assetId).where('kind', '=', kind).execute();
  const unique = [...new Set(tags)];
  if (unique.length)
    await x
      .insertInto('asset_tags')
      .values(unique.map((tag) => ({ asset_id: assetId, tag, kind })))
      .execute();
}

export function createAssetsRepo(db: Database) {
  const k = db.kysely;
  /**
   * Moves a pending upload to `uploadStatus` and its still-uploading asset by `assetPatch`, in one
   * transaction; false when another request moved the upload first.
   */
  const settleUpload = (
    uploadId: string,
    assetId: string,
    uploadStatus: 'confirmed' | 'canceled' | 'expired',
    assetPatch: Updateable<AssetsTable>,
    now: string,
  ) =>
    k.transaction().execute(async (trx) => {
      const won = affected(
        await trx
          .updateTable('uploads')
          .set({ status: uploadStatus, updated_at: now })
          .where('id', '=', uploadId)
          .where('status', '=', 'pending')
          .executeTakeFirst(),
      );
      if (!won) return false;
      await trx
        .updateTable('assets')
        .set({ ...assetPatch, updated_at: now })
        .where('id', '=', assetId)
        .where('status', '=', 'uploading')
        .execute();
      return true;
    });
  return {
    brandInOrg: (orgId: string, brandId: string) => brandInOrg(k, orgId, brandId),
    /** Creates asset rows and their upload slots together: all or nothing. */
    async insertUploads(items: { asset: AssetRow; upload: UploadRow }[]) {
      await k.transaction().execute(async (trx) => {
        for (const { asset, upload } of items) {
          await trx.insertInto('assets').values(asset).execute();
          await trx.insertInto('uploads').values(upload).execute();
        }
      });
    },
    async insertAsset(asset: AssetRow) {
      await k.transaction().execute(async (trx) => {
        await trx.insertInto('assets').values(asset).execute();
        await writeTags(trx, asset.id, 'user', fromJson<string[]>(asset.tags, []));
      });
    },
    async getAsset(orgId: string, id: string) {
      return k
        .selectFrom('assets')
        .selectAll()
        .where('id', '=', id)
        .where('organization_id', '=', orgId)
        .executeTakeFirst();
    },
    /** Assets of the organization among `ids` (missing ones are left out). */
    async getAssets(orgId: string, ids: string[]) {
      if (ids.length === 0) return [];
      return k.selectFrom('assets').selectAll().where('organization_id', '=', orgId).where('id', 'in', ids).execute();
    },
    /** Unscoped read for job handlers, which receive ids the API already checked. */
    async getAssetById(id: string) {
      return k.selectFrom('assets').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async getUpload(orgId: string, uploadId: string) {
      return k
        .selectFrom('uploads')
        .selectAll()
        .where('id', '=', uploadId)
        .where('organization_id', '=', orgId)
        .executeTakeFirst();
    },
    /**
     * pending → confirmed and uploading → processing in one transaction; false when another
     * confirm won the race (the caller then re-reads and answers idempotently).
     */
    async confirmUpload(
      uploadId: string,
      assetId: string,
      patch: { file_size: number; file_type: string; detected_format: string; category_id?: string | null },
      now: string,
    ) {
      return settleUpload(
        uploadId,
        assetId,
        'confirmed',
        {
          status: 'processing',
          quality_status: 'processing',
          file_size: patch.file_size,
          file_type: patch.file_type,
          detected_format: patch.detected_format,
          ...(patch.category_id !== undefined ? { category_id: patch.category_id } : {}),
        },
        now,
      );
    },
    /** pending → canceled (or expired) for the upload, and the asset becomes canceled. */
    async endUpload(uploadId: string, assetId: string, status: 'canceled' | 'expired', now: string) {
      return settleUpload(
        uploadId,
        assetId,
        status,
        {
          status: 'canceled',
          quality_status: 'canceled',
          ...(status === 'expired'
            ? {
                error_code: 'UPLOAD_EXPIRED',
                error_message: 'The upload was never confirmed before its link expired',
              }
            : {}),
        },
        now,
      );
    },
    async pendingUploadsExpiredBefore(iso: string, limit: number) {
      return k
        .selectFrom('uploads')
        .selectAll()
        .where('status', '=', 'pending')
        .where('expires_at', '<', iso)
        .orderBy('expires_at')
        .limit(limit)
        .execute();
    },
    /** Applies a processing result; only while the asset is still being processed (idempotent). */
    async finishProcessing(
      assetId: string,
      patch: Partial<
        Pick<
          AssetRow,
          | 'status'
          | 'width'
          | 'height'
          | 'duration'
          | 'thumbnail_key'
          | 'extra'
          | 'auto_tags'
          | 'quality_tags'
          | 'quality_status'
          | 'error_code'
          | 'error_message'
          | 'description'
        >
      >,
      now: string,
    ) {
      return k.transaction().execute(async (trx) => {
        const n = affected(
          await trx
            .updateTable('assets')
            .set((eb) => ({ ...patch, updated_at: now, version: eb('version', '+', 1) }))
            .where('id', '=', assetId)
            .where('status', 'in', ['uploaded', 'processing'])
            .executeTakeFirst(),
        );
        if (n && patch.auto_tags !== undefined)
          await writeTags(trx, assetId, 'auto', fromJson<string[]>(patch.auto_tags, []));
        return n > 0;
      });
    },
    async markProcessing(assetId: string, now: string) {
      return affected(
        await k
          .updateTable('assets')
          .set({ status: 'processing', quality_status: 'processing', updated_at: now })
          .where('id', '=', assetId)
          .where('status', '=', 'uploaded')
          .executeTakeFirst(),
      );
    },
    /**
     * Uploads whose link expired before `iso` and whose object may still need removing: canceled
     * ones (a PUT to the still-valid link after cancel-upload stores it again) and confirmed ones
     * whose asset is done with processing (processing copied the bytes to the original's key).
     * `updated_at < expires_at` means the row was not touched since its link expired, i.e. not swept.
     */
    async uploadsToSweep(iso: string, limit: number) {
      return k
        .selectFrom('uploads as u')
        .innerJoin('assets as a', 'a.id', 'u.asset_id')
        .selectAll('u')
        .where('u.status', 'in', ['canceled', 'confirmed'])
        .where('u.expires_at', '<', iso)
        .whereRef('u.updated_at', '<', 'u.expires_at')
        .where('a.status', 'not in', ['uploaded', 'processing'])
        .orderBy('u.expires_at')
        .limit(limit)
        .execute();
    },
    async markSwept(uploadId: string, now: string) {
      await k.updateTable('uploads').set({ updated_at: now }).where('id', '=', uploadId).execute();
    },
    /** Assets waiting for processing since before `iso` (their job is re-enqueued; the job id dedupes). */
    async waitingSince(iso: string, limit: number) {
      return k
        .selectFrom('assets')
        .select('id')
        .where('status', 'in', ['uploaded', 'processing'])
        .where('updated_at', '<', iso)
        .orderBy('updated_at')
        .limit(limit)
        .execute();
    },
    async list(orgId: string, brandId: string, q: ListAssetsQuery) {
      let query = k
        .selectFrom('assets')
        .selectAll()
        .where('organization_id', '=', orgId)
        .where('brand_id', '=', brandId);
      if (q.type) query = query.where('type', '=', q.type);
      if (q.status) query = query.where('status', '=', q.status);
      for (const tag of q.tags ?? []) {
        query = query.where('id', 'in', (eb) => eb.selectFrom('asset_tags').select('asset_id').where('tag', '=', tag));
      }
      if (q.campaignId) query = query.where('used_in_campaigns', 'like', `%"${q.campaignId}"%`);
      const dir = q.sort.startsWith('-') ? 'desc' : 'asc';
      const col = q.sort.endsWith('fileName') ? 'file_name' : 'created_at';
      return query
        .orderBy(byCodePoint(db.dialect, col), dir)
        .orderBy(byCodePoint(db.dialect, 'id'), dir)
        .limit(q.limit)
        .offset((q.page - 1) * q.limit)
        .execute();
    },
  };
}

export type AssetsRepo = ReturnType<typeof createAssetsRepo>;

/**
 * The assets under a brand, for deleting the brand (brands.delete.ts): still uploading or
 * processing is busy; each asset's storage folder goes after the commit; the rows are deleted in
 * the brand's transaction (tags and uploads go with them, ON DELETE CASCADE).
 */
export const assetsUnderBrand = {
  busy: busyIn({ assets: ['uploaded', 'processing'] }),
  async stored(k: Kysely<DB>, orgId: string, brandId: string) {
    const rows = await k.selectFrom('assets').select('id').where('brand_id', '=', brandId).execute();
    return { prefixes: rows.map((r) => assetFolder(orgId, r.id)) };
  },
  async delete(trx: Kysely<DB>, orgId: string, brandId: string): Promise<void> {
    await trx.deleteFrom('assets').where('brand_id', '=', brandId).where('organization_id', '=', orgId).execute();
  },
};
