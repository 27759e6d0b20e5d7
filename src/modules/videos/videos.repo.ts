import type { Kysely } from 'kysely';
import type { Database } from '../../adapters/db/database.ts';
import type { DB } from '../../adapters/db/schema.ts';
import { createVariationsRepo } from '../generation/variations.repo.ts';
import type { GeneratedVideosTable, VideoGroupsTable } from './videos.tables.ts';
import { busyIn, RUNNING } from '../brands/brand-parts.ts';

export type GroupRow = VideoGroupsTable;
export type VideoRow = GeneratedVideosTable;

/** The pool a variation takes its duration's seconds from. */
export const VIDEO_POOL = 'video_seconds';

/**
 * SQL of video groups and their variations. The variations' transitions and the group's roll-up
 * are generation/variations.repo.ts's (in one transaction that locks the group).
 */
export function createVideosRepo(db: Database) {
  const k = db.kysely;

  const runs = createVariationsRepo(db, {
    parents: 'video_groups',
    variations: 'generated_videos',
    parentKey: 'group_id',
    // A failed group carries its variations' reason when they agree.
    failedMessage: (reasons) =>
      reasons.length === 1 ? reasons[0]! : 'No variation could be generated; see each variation for its reason',
  });

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

    findGroup: runs.findParent,
    groupById: runs.parentById,
    variationById: runs.variationById,
    parentOf: runs.parentOf,

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

    /** A page of the brand's groups (newest or oldest first) and their count. */
    listGroups: runs.listParents,

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

    /** `pending` → `processing` for a variation (and its group); false when already terminal or gone. */
    start: runs.start,
    /**
     * Makes a variation terminal (once) and rolls its group up: the variation's reservation and
     * the group as this transaction left it, or undefined (variations.repo.ts).
     */
    finish: runs.finish,
  };
}

export type VideosRepo = ReturnType<typeof createVideosRepo>;

/**
 * The video groups, variations and video prompt enhancements under a brand, for deleting the brand
 * (brands.delete.ts): pending or processing is busy; the rows go with the brand (ON DELETE
 * CASCADE), their videos with its assets.
 */
export const videosUnderBrand = {
  busy: busyIn({ video_groups: RUNNING, generated_videos: RUNNING, video_prompt_enhancements: RUNNING }),
};

/** The video variation whose result is this asset (such an asset is deleted with its brand). */
export async function videoVariationOfAsset(k: Kysely<DB>, assetId: string) {
  const r = await k.selectFrom('generated_videos').select('id').where('asset_id', '=', assetId).executeTakeFirst();
  return r && { resource: 'generated_videos', id: r.id };
}
