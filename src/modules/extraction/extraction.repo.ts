import { type Kysely, sql } from 'kysely';
import type { Database } from '../../adapters/db/database.ts';
import type { DB } from '../../adapters/db/schema.ts';
import { affected } from '../../adapters/db/columns.ts';
import { lockOrganization } from '../access/access.repo.ts';
import { brandInOrg } from '../brands/brands.repo.ts';
import type { ExtractionCandidatesTable, ExtractionsTable } from './extraction.tables.ts';
import { busyIn } from '../brands/brand-parts.ts';

export type ExtractionRow = ExtractionsTable;
export type CandidateRow = ExtractionCandidatesTable;

const RUNNING = ['pending', 'processing'] as const;

export function createExtractionRepo(db: Database) {
  const k = db.kysely;
  return {
    brandInOrg: (orgId: string, brandId: string) => brandInOrg(k, orgId, brandId),

    /**
     * Inserts a new `pending` row unless the organization already has `cap` runs pending or
     * processing (rows older than `staleBefore` are past the timeout and no longer count).
     * Atomic: one INSERT … SELECT … WHERE count < cap; on PostgreSQL the organization row is
     * locked first so two concurrent submits cannot both see room for one more.
     */
    async insertUnderCap(row: ExtractionRow, cap: number, staleBefore: string): Promise<boolean> {
      return k.transaction().execute(async (trx) => {
        await lockOrganization(trx, db.dialect, row.organization_id);
        const result = await sql`
          INSERT INTO extractions (id, organization_id, brand_id, url, purpose, media, status, truncated, created_at, updated_at)
          SELECT ${row.id}, ${row.organization_id}, ${row.brand_id}, ${row.url}, ${row.purpose}, ${row.media},
                 ${row.status}, 0, ${row.created_at}, ${row.updated_at}
          WHERE (SELECT count(*) FROM extractions
                 WHERE organization_id = ${row.organization_id}
                   AND status IN ('pending', 'processing')
                   AND created_at >= ${staleBefore}) < ${cap}
        `.execute(trx);
        return Number(result.numAffectedRows ?? 0n) === 1;
      });
    },

    async get(orgId: string, id: string) {
      return k
        .selectFrom('extractions')
        .selectAll()
        .where('id', '=', id)
        .where('organization_id', '=', orgId)
        .executeTakeFirst();
    },
    /** Unscoped read for job handlers, which receive ids the API already checked. */
    async getById(id: string) {
      return k.selectFrom('extractions').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async candidates(extractionId: string, includeRejected: boolean) {
      let q = k.selectFrom('extraction_candidates').selectAll().where('extraction_id', '=', extractionId);
      if (!includeRejected) q = q.where('rejection_code', 'is', null);
      return q.orderBy('rank').execute();
    },

    /** Deletes the row (its candidates go with it). */
    async delete(orgId: string, id: string) {
      return (
        affected(
          await k
            .deleteFrom('extractions')
            .where('id', '=', id)
            .where('organization_id', '=', orgId)
            .executeTakeFirst(),
        ) > 0
      );
    },
    async deleteById(id: string) {
      await k.deleteFrom('extractions').where('id', '=', id).execute();
    },

    /** pending|processing → processing owned by `runId` (a rerun takes the row over). */
    async startRun(id: string, runId: string, now: string) {
      const r = await k
        .updateTable('extractions')
        .set({ status: 'processing', run_id: runId, started_at: now, updated_at: now })
        .where('id', '=', id)
        .where('status', 'in', RUNNING)
        .executeTakeFirst();
      return affected(r) > 0;
    },

    /** True while `runId` still owns the processing row (not deleted, timed out or taken over). */
    async ownsRun(id: string, runId: string) {
      const r = await k
        .selectFrom('extractions')
        .select('id')
        .where('id', '=', id)
        .where('run_id', '=', runId)
        .where('status', '=', 'processing')
        .executeTakeFirst();
      return r !== undefined;
    },

    /** Replaces the candidates and completes the run, if `runId` still owns it. */
    async complete(
      id: string,
      runId: string,
      rows: CandidateRow[],
      patch: { truncated: number; page_url: string },
      now: string,
    ) {
      return k.transaction().execute(async (trx) => {
        const won = affected(
          await trx
            .updateTable('extractions')
            .set({
              status: 'completed',
              truncated: patch.truncated,
              page_url: patch.page_url,
              completed_at: now,
              updated_at: now,
            })
            .where('id', '=', id)
            .where('run_id', '=', runId)
            .where('status', '=', 'processing')
            .executeTakeFirst(),
        );
        if (!won) return false;
        await trx.deleteFrom('extraction_candidates').where('extraction_id', '=', id).execute();
        // Batches keep each statement under SQLite's and PostgreSQL's bound-parameter limits.
        for (let i = 0; i < rows.length; i += 50) {
          await trx
            .insertInto('extraction_candidates')
            .values(rows.slice(i, i + 50))
            .execute();
        }
        return true;
      });
    },

    /** pending|processing → failed; with `runId`, only while that run owns the row. */
    async fail(id: string, code: string, message: string, now: string, runId?: string) {
      let q = k
        .updateTable('extractions')
        .set({ status: 'failed', error_code: code, error_message: message, failed_at: now, updated_at: now })
        .where('id', '=', id)
        .where('status', 'in', RUNNING);
      if (runId) q = q.where('run_id', '=', runId);
      return affected(await q.executeTakeFirst()) > 0;
    },

    /** Fails every run still pending or processing that was created before `cutoff`; returns those runs. */
    async failStale(cutoff: string, code: string, message: string, now: string) {
      return k
        .updateTable('extractions')
        .set({ status: 'failed', error_code: code, error_message: message, failed_at: now, updated_at: now })
        .where('status', 'in', RUNNING)
        .where('created_at', '<', cutoff)
        .returning(['id', 'organization_id', 'brand_id', 'status'])
        .execute();
    },

    async createdBefore(cutoff: string, limit: number) {
      return k
        .selectFrom('extractions')
        .select(['id', 'created_at'])
        .where('created_at', '<', cutoff)
        .orderBy('created_at')
        .limit(limit)
        .execute();
    },

    /**
     * Claims a candidate for committing: only one request promotes it. A claim older than
     * `staleBefore` (its request died) can be taken over.
     */
    async claimCandidate(candidateId: string, token: string, now: string, staleBefore: string) {
      const r = await k
        .updateTable('extraction_candidates')
        .set({ commit_token: token, commit_started_at: now })
        .where('id', '=', candidateId)
        .where('committed_asset_id', 'is', null)
        .where((eb) => eb.or([eb('commit_token', 'is', null), eb('commit_started_at', '<', staleBefore)]))
        .executeTakeFirst();
      return affected(r) > 0;
    },
    async releaseCandidate(candidateId: string, token: string) {
      await k
        .updateTable('extraction_candidates')
        .set({ commit_token: null, commit_started_at: null })
        .where('id', '=', candidateId)
        .where('commit_token', '=', token)
        .execute();
    },
    async setCommitted(candidateId: string, token: string, assetId: string, assetType: string) {
      await k
        .updateTable('extraction_candidates')
        .set({
          committed_asset_id: assetId,
          committed_asset_type: assetType,
          commit_token: null,
          commit_started_at: null,
        })
        .where('id', '=', candidateId)
        .where('commit_token', '=', token)
        .execute();
    },
    async getCandidate(candidateId: string) {
      return k.selectFrom('extraction_candidates').selectAll().where('id', '=', candidateId).executeTakeFirst();
    },
  };
}

export type ExtractionRepo = ReturnType<typeof createExtractionRepo>;

/**
 * The URL extractions under a brand, for deleting the brand (brands.delete.ts): pending or
 * processing is busy; staged candidates' objects go after the commit; the rows are deleted in the
 * brand's transaction (candidates go with them, ON DELETE CASCADE).
 */
export const extractionsUnderBrand = {
  busy: busyIn({ extractions: RUNNING }),
  async stored(k: Kysely<DB>, _orgId: string, brandId: string) {
    const rows = await k
      .selectFrom('extraction_candidates as c')
      .innerJoin('extractions as e', 'e.id', 'c.extraction_id')
      .select('c.staged_key')
      .where('e.brand_id', '=', brandId)
      .where('c.staged_key', 'is not', null)
      .execute();
    return { keys: rows.map((r) => r.staged_key as string) };
  },
  async delete(trx: Kysely<DB>, orgId: string, brandId: string): Promise<void> {
    await trx.deleteFrom('extractions').where('brand_id', '=', brandId).where('organization_id', '=', orgId).execute();
  },
};
