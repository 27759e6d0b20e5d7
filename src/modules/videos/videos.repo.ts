import type { Transaction } from 'kysely';
import type { Database } from '../../adapters/db/database.ts';
import type { DB } from '../../adapters/db/schema.ts';
import type { GenerationStatus } from '../generation/generation.schemas.ts';
import { rollUpStatus } from '../generation/rollup.ts';
import type { GeneratedVideosTable, VideoGroupsTable } from './videos.tables.ts';

export type GroupRow = VideoGroupsTable;
export type VideoRow = GeneratedVideosTable;

/** The pool a variation takes its duration's seconds from. */
export const VIDEO_POOL = 'video_seconds';

export interface GroupListQuery {
  /** A partner slug, or `all`; the default bucket when omitted. */
  partner: string;
  sortOrder: 'asc' | 'desc';
  offset: number;
  limit: number;
}

/** Variation fields a terminal transition writes. */
export type VideoOutcome = Partial<
  Pick<VideoRow, 'width' | 'height' | 'preview_key' | 'camera' | 'warnings' | 'engine' | 'error_code' | 'error_message'>
>;

/**
 * SQL of video groups and their variations. Each variation transition and the group's roll-up run
 * in one transaction that first locks the group row (PostgreSQL; SQLite runs one write
 * transaction at a time), so two variations finishing together cannot leave a stale group status.
 */
export function createVideosRepo(db: Database) {
  const k = db.kysely;
  type Tx = Transaction<DB>;

  async function lockGroup(trx: Tx, id: string): Promise<GroupRow | undefined> {
    let q = trx.selectFrom('video_groups').selectAll().where('id', '=', id);
    if (db.dialect === 'postgres') q = q.forUpdate();
    return q.executeTakeFirst();
  }

  /** The group's status from its variations; a failed group carries the reason when they agree. */
  async function rollUp(trx: Tx, group: GroupRow, at: string): Promise<GenerationStatus> {
    const rows = await trx
      .selectFrom('generated_videos')
      .select(['status', 'error_message'])
      .where('group_id', '=', group.id)
      .execute();
    const status = rollUpStatus(rows.map((r) => r.status as GenerationStatus));
    if (status === group.status) return status;
    const reasons = [...new Set(rows.map((r) => r.error_message).filter((m): m is string => !!m))];
    await trx
      .updateTable('video_groups')
      .set({
        status,
        updated_at: at,
        completed_at: status === 'completed' ? at : null,
        failed_at: status === 'failed' ? at : null,
        error_code: status === 'failed' ? 'GENERATION_FAILED' : null,
        error_message:
          status !== 'failed'
            ? null
            : reasons.length === 1
              ? reasons[0]!
              : 'No variation could be generated; see each variation for its reason',
      })
      .where('id', '=', group.id)
      .execute();
    return status;
  }

  return {
    /** The group and its variations, in one transaction. */
    async insertGroup(group: GroupRow, variations: VideoRow[]): Promise<void> {
      await k.transaction().execute(async (trx) => {
        await trx.insertInto('video_groups').values(group).execute();
        await trx.insertInto('generated_videos').values(variations).execute();
      });
    },

    async deleteGroup(id: string): Promise<void> {
      await k.deleteFrom('video_groups').where('id', '=', id).execute();
    },

    async findGroup(orgId: string, id: string): Promise<GroupRow | undefined> {
      return k
        .selectFrom('video_groups')
        .selectAll()
        .where('organization_id', '=', orgId)
        .where('id', '=', id.toLowerCase())
        .executeTakeFirst();
    },

    async groupById(id: string): Promise<GroupRow | undefined> {
      return k.selectFrom('video_groups').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async variationById(id: string): Promise<VideoRow | undefined> {
      return k.selectFrom('generated_videos').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** Variations of these groups, in prompt order. */
    async variationsOf(groupIds: string[]): Promise<VideoRow[]> {
      if (groupIds.length === 0) return [];
      return k
        .selectFrom('generated_videos')
        .selectAll()
        .where('group_id', 'in', groupIds)
        .orderBy('group_id')
        .orderBy('position')
        .execute();
    },

    /** A page of the brand's groups, newest (or oldest) first; ties broken by id, so pages are stable. */
    async listGroups(orgId: string, brandId: string, q: GroupListQuery): Promise<{ rows: GroupRow[]; total: number }> {
      let base = k.selectFrom('video_groups').where('organization_id', '=', orgId).where('brand_id', '=', brandId);
      if (q.partner !== 'all') base = base.where('partner', '=', q.partner);
      const total = Number((await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
      const rows = await base
        .selectAll()
        .orderBy('created_at', q.sortOrder)
        .orderBy('id', q.sortOrder)
        .limit(q.limit)
        .offset(q.offset)
        .execute();
      return { rows, total };
    },

    /** Which of `texts` are the enhanced prompt of a completed image-to-video enhancement of the brand. */
    async enhancedPrompts(orgId: string, brandId: string, texts: string[]): Promise<Set<string>> {
      if (texts.length === 0) return new Set();
      const rows = await k
        .selectFrom('video_prompt_enhancements')
        .select('enhanced_prompt')
        .where('organization_id', '=', orgId)
        .where('brand_id', '=', brandId)
        .where('status', '=', 'completed')
        .where('enhanced_prompt', 'in', [...new Set(texts)])
        .execute();
      return new Set(rows.map((r) => r.enhanced_prompt).filter((t): t is string => t !== null));
    },

    /**
     * `pending` → `processing` for a variation (and its group when still pending). False when the
     * variation is already terminal (a job that ran again after it finished) or gone.
     */
    async start(variationId: string, at: string): Promise<boolean> {
      return k.transaction().execute(async (trx) => {
        const v = await trx
          .selectFrom('generated_videos')
          .select(['group_id', 'status'])
          .where('id', '=', variationId)
          .executeTakeFirst();
        if (!v || v.status === 'completed' || v.status === 'failed') return false;
        const group = await lockGroup(trx, v.group_id);
        if (!group) return false;
        if (v.status === 'pending') {
          await trx
            .updateTable('generated_videos')
            .set({ status: 'processing', updated_at: at })
            .where('id', '=', variationId)
            .execute();
        }
        await rollUp(trx, group, at);
        return true;
      });
    },

    /**
     * Makes a variation terminal (once) and rolls its group up. Returns the variation's reservation
     * and the group as this transaction left it when this call made the variation terminal, else
     * undefined (announce that group, not one read again after another variation's roll-up).
     */
    async finish(
      variationId: string,
      status: 'completed' | 'failed',
      outcome: VideoOutcome,
      at: string,
    ): Promise<{ reservationId: string | null; group: GroupRow | undefined } | undefined> {
      return k.transaction().execute(async (trx) => {
        const v = await trx.selectFrom('generated_videos').selectAll().where('id', '=', variationId).executeTakeFirst();
        if (!v || v.status === 'completed' || v.status === 'failed') return undefined;
        const group = await lockGroup(trx, v.group_id);
        await trx
          .updateTable('generated_videos')
          .set({
            ...outcome,
            status,
            updated_at: at,
            completed_at: status === 'completed' ? at : null,
            failed_at: status === 'failed' ? at : null,
          })
          .where('id', '=', variationId)
          .where('status', 'not in', ['completed', 'failed'])
          .execute();
        const groupStatus = group && (await rollUp(trx, group, at));
        return { reservationId: v.reservation_id, group: group && { ...group, status: groupStatus ?? group.status } };
      });
    },
  };
}

export type VideosRepo = ReturnType<typeof createVideosRepo>;
