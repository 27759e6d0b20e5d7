import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../adapters/db/database.ts';
import { affected, fromJson } from '../../adapters/db/columns.ts';
import type { DB } from '../../adapters/db/schema.ts';
import { createAssetsRepo } from '../assets/assets.repo.ts';
import { createBrandsRepo, lockBrand as lockBrandRow, mirrorBrandDnaStatus } from '../brands/brands.repo.ts';
import type { BrandDnaSourcesTable, BrandDnaVersionsTable } from './brand-dna.tables.ts';
import { versionFolder } from './brand-dna.keys.ts';
import { busyIn } from '../brands/brand-parts.ts';

export type VersionRow = BrandDnaVersionsTable;
export type SourceRow = BrandDnaSourcesTable;
type Tx = Kysely<DB> | Transaction<DB>;

/** The asset facts Brand DNA needs (validation at create, extraction in the job). */
export interface AssetFacts {
  id: string;
  organization_id: string;
  type: string;
  status: string;
  detected_format: string | null;
  storage_key: string;
  file_name: string;
  description: string | null;
  tags: string;
  extra: string;
}

export function createBrandDnaRepo(db: Database) {
  const k = db.kysely;
  // The brands' and assets' own reads (their modules own the tables).
  const brands = createBrandsRepo(db);
  const assets = createAssetsRepo(db);

  /**
   * Serializes the writes of one brand's versions: on PostgreSQL a row lock on the brand (so two
   * activations or creates cannot interleave); SQLite runs one write transaction at a time anyway.
   */
  const lockBrand = (trx: Tx, brandId: string) => lockBrandRow(trx, db.dialect, brandId);

  /**
   * Mirrors the active version's status onto the brand (`none` without one). The brand's row
   * version moves with it, so its ETag and If-Match follow.
   */
  async function mirrorBrand(trx: Tx, brandId: string): Promise<void> {
    const active = await trx
      .selectFrom('brand_dna_versions')
      .select('status')
      .where('brand_id', '=', brandId)
      .where('is_active', '=', 1)
      .executeTakeFirst();
    await mirrorBrandDnaStatus(trx, brandId, active?.status ?? 'none');
  }

  const inTx = <T>(fn: (trx: Transaction<DB>) => Promise<T>) => k.transaction().execute(fn);

  return {
    async brandExists(orgId: string, brandId: string) {
      const r = await brands.find(orgId, brandId);
      return r && { id: r.id, name: r.name };
    },

    /** The brand's own fields, which the extraction merges as a source of their own. */
    async brandFacts(brandId: string) {
      const r = await brands.facts(brandId);
      return (
        r && {
          ...r,
          logoAssetId: r.logo_asset_id,
          values: fromJson<string[]>(r.values, []),
          tone: fromJson<string[]>(r.tone, []),
          voice: fromJson<string[]>(r.voice, []),
        }
      );
    },

    async assetsIn(orgId: string, ids: string[]): Promise<AssetFacts[]> {
      return assets.getAssets(orgId, ids);
    },

    /** Inserts a version with the next number of its brand, and its sources, in one transaction. */
    async insertVersion(version: Omit<VersionRow, 'version_number'>, sources: SourceRow[]): Promise<VersionRow> {
      return inTx(async (trx) => {
        await lockBrand(trx, version.brand_id);
        const max = await trx
          .selectFrom('brand_dna_versions')
          .select((eb) => eb.fn.max('version_number').as('n'))
          .where('brand_id', '=', version.brand_id)
          .executeTakeFirst();
        const row: VersionRow = { ...version, version_number: Number(max?.n ?? 0) + 1 };
        await trx.insertInto('brand_dna_versions').values(row).execute();
        if (sources.length) await trx.insertInto('brand_dna_sources').values(sources).execute();
        return row;
      });
    },

    async listVersions(orgId: string, brandId: string): Promise<VersionRow[]> {
      return k
        .selectFrom('brand_dna_versions')
        .selectAll()
        .where('organization_id', '=', orgId)
        .where('brand_id', '=', brandId)
        .orderBy('version_number', 'desc')
        .execute();
    },

    async findVersion(orgId: string, brandId: string, versionId: string): Promise<VersionRow | undefined> {
      return k
        .selectFrom('brand_dna_versions')
        .selectAll()
        .where('organization_id', '=', orgId)
        .where('brand_id', '=', brandId)
        .where('id', '=', versionId)
        .executeTakeFirst();
    },

    async findActive(brandId: string, orgId?: string): Promise<VersionRow | undefined> {
      let q = k.selectFrom('brand_dna_versions').selectAll().where('brand_id', '=', brandId).where('is_active', '=', 1);
      if (orgId !== undefined) q = q.where('organization_id', '=', orgId);
      return q.executeTakeFirst();
    },

    /** Unscoped read for the job, which carries ids the API checked. */
    async versionById(id: string): Promise<VersionRow | undefined> {
      return k.selectFrom('brand_dna_versions').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async sourcesOf(versionId: string): Promise<SourceRow[]> {
      return k
        .selectFrom('brand_dna_sources')
        .selectAll()
        .where('version_id', '=', versionId)
        .orderBy('position', 'asc')
        .execute();
    },

    /** Sources of several versions at once (the list). */
    async sourceTypes(versionIds: string[]): Promise<Map<string, { type: string }[]>> {
      const out = new Map<string, { type: string }[]>();
      if (versionIds.length === 0) return out;
      const rows = await k
        .selectFrom('brand_dna_sources')
        .select(['version_id', 'type'])
        .where('version_id', 'in', versionIds)
        .execute();
      for (const r of rows) out.set(r.version_id, [...(out.get(r.version_id) ?? []), { type: r.type }]);
      return out;
    },

    /**
     * Compare-and-set on `updated_at` (the concurrency token): applies `patch` only when the row
     * still has `expectedUpdatedAt` (and, when given, one of `statuses`). Returns rows changed.
     */
    async updateIfCurrent(
      id: string,
      expectedUpdatedAt: string,
      patch: Partial<VersionRow>,
      statuses?: string[],
    ): Promise<number> {
      let q = k
        .updateTable('brand_dna_versions')
        .set(patch)
        .where('id', '=', id)
        .where('updated_at', '=', expectedUpdatedAt);
      if (statuses) q = q.where('status', 'in', statuses);
      return affected(await q.executeTakeFirst());
    },

    /** Makes `id` the brand's only active version and mirrors it onto the brand. */
    async activate(brandId: string, id: string, touch: (prev: string) => string): Promise<'ok' | 'gone' | 'not-ready'> {
      return inTx(async (trx) => {
        await lockBrand(trx, brandId);
        const row = await trx.selectFrom('brand_dna_versions').selectAll().where('id', '=', id).executeTakeFirst();
        if (!row) return 'gone';
        if (row.status !== 'ready') return 'not-ready';
        if (row.is_active === 1) return 'ok';
        const previous = await trx
          .selectFrom('brand_dna_versions')
          .select(['id', 'updated_at'])
          .where('brand_id', '=', brandId)
          .where('is_active', '=', 1)
          .execute();
        for (const p of previous) {
          await trx
            .updateTable('brand_dna_versions')
            .set({ is_active: 0, updated_at: touch(p.updated_at) })
            .where('id', '=', p.id)
            .execute();
        }
        await trx
          .updateTable('brand_dna_versions')
          .set({ is_active: 1, updated_at: touch(row.updated_at) })
          .where('id', '=', id)
          .execute();
        await mirrorBrand(trx, brandId);
        return 'ok';
      });
    },

    /**
     * Deletes a version when `allowed(row)` says so (checked inside the transaction). Returns the
     * deleted row, or the reason it was not deleted.
     */
    async deleteVersion(
      brandId: string,
      id: string,
      allowed: (row: VersionRow) => string | undefined,
    ): Promise<{ deleted: VersionRow } | { refused: string } | { gone: true }> {
      return inTx(async (trx) => {
        await lockBrand(trx, brandId);
        const row = await trx.selectFrom('brand_dna_versions').selectAll().where('id', '=', id).executeTakeFirst();
        if (!row) return { gone: true as const };
        const refusal = allowed(row);
        if (refusal) return { refused: refusal };
        await trx.deleteFrom('brand_dna_versions').where('id', '=', id).execute();
        await mirrorBrand(trx, brandId);
        return { deleted: row };
      });
    },

    /**
     * Starts a new run on a ready or failed version: replaces its sources, resets the results,
     * sets `pending`. Refused (returns the row as it is) when the version is pending/extracting.
     */
    async rerun(
      brandId: string,
      id: string,
      patch: Pick<VersionRow, 'run_id' | 'reservation_id' | 'preview' | 'updated_at'>,
      sources: SourceRow[],
      touch: (prev: string) => string,
    ): Promise<{ row: VersionRow; previous: VersionRow } | { refused: VersionRow } | { gone: true }> {
      return inTx(async (trx) => {
        await lockBrand(trx, brandId);
        const prev = await trx.selectFrom('brand_dna_versions').selectAll().where('id', '=', id).executeTakeFirst();
        if (!prev) return { gone: true as const };
        if (prev.status !== 'ready' && prev.status !== 'failed') return { refused: prev };
        const next: Partial<VersionRow> = {
          ...patch,
          status: 'pending',
          dna: null,
          confidence_score: 0,
          missing_fields: '[]',
          updated_at: touch(prev.updated_at),
        };
        await trx.updateTable('brand_dna_versions').set(next).where('id', '=', id).execute();
        await trx.deleteFrom('brand_dna_sources').where('version_id', '=', id).execute();
        if (sources.length) await trx.insertInto('brand_dna_sources').values(sources).execute();
        if (prev.is_active === 1) await mirrorBrand(trx, brandId);
        return { row: { ...prev, ...next } as VersionRow, previous: prev };
      });
    },

    /**
     * Moves the current run to another status (job transitions): applies `patch` when the row is
     * still on `runId` and in one of `from`. Mirrors onto the brand when the version is active.
     */
    async transition(
      id: string,
      runId: string,
      from: string[],
      patch: (row: VersionRow) => Partial<VersionRow>,
    ): Promise<VersionRow | undefined> {
      return inTx(async (trx) => {
        const head = await trx
          .selectFrom('brand_dna_versions')
          .select('brand_id')
          .where('id', '=', id)
          .executeTakeFirst();
        if (!head) return undefined;
        await lockBrand(trx, head.brand_id);
        const row = await trx.selectFrom('brand_dna_versions').selectAll().where('id', '=', id).executeTakeFirst();
        if (!row || row.run_id !== runId || !from.includes(row.status)) return undefined;
        const p = patch(row);
        await trx.updateTable('brand_dna_versions').set(p).where('id', '=', id).execute();
        if (row.is_active === 1 && p.status !== undefined && p.status !== row.status)
          await mirrorBrand(trx, row.brand_id);
        return { ...row, ...p };
      });
    },

    /** Is the version still on this run? (the job polls it to notice cancel and rerun) */
    async runIsCurrent(id: string, runId: string): Promise<boolean> {
      const r = await k.selectFrom('brand_dna_versions').select('run_id').where('id', '=', id).executeTakeFirst();
      return r?.run_id === runId;
    },

    /** Updates a source of the current run only (a replaced source is left alone). */
    async updateSource(
      versionId: string,
      runId: string,
      sourceId: string,
      patch: Partial<SourceRow>,
    ): Promise<boolean> {
      const r = await k
        .updateTable('brand_dna_sources')
        .set(patch)
        .where('id', '=', sourceId)
        .where('version_id', '=', versionId)
        .where((eb) =>
          eb.exists(
            eb.selectFrom('brand_dna_versions').select('id').where('id', '=', versionId).where('run_id', '=', runId),
          ),
        )
        .executeTakeFirst();
      return affected(r) > 0;
    },
  };
}

export type BrandDnaRepo = ReturnType<typeof createBrandDnaRepo>;

/**
 * The Brand DNA versions under a brand, for deleting the brand (brands.delete.ts): pending or
 * extracting is busy; each version's findings folder goes after the commit; the rows go with the
 * brand (ON DELETE CASCADE).
 */
export const brandDnaUnderBrand = {
  busy: busyIn({ brand_dna_versions: ['pending', 'extracting'] }),
  async stored(k: Kysely<DB>, orgId: string, brandId: string) {
    const rows = await k.selectFrom('brand_dna_versions').select('id').where('brand_id', '=', brandId).execute();
    return { prefixes: rows.map((r) => versionFolder(orgId, r.id)) };
  },
};

/**
 * The next `updated_at` of a row: now, but always at least 1 ms after the previous value, so the
 * concurrency token changes on every write even when the clock has not moved (or went back).
 */
export function nextUpdatedAt(now: Date, previous: string | undefined): string {
  const prev = previous ? Date.parse(previous) : Number.NEGATIVE_INFINITY;
  return new Date(Math.max(now.getTime(), Number.isFinite(prev) ? prev + 1 : now.getTime())).toISOString();
}
