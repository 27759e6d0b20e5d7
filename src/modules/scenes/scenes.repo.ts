import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../adapters/db/database.ts';
import type { DB } from '../../adapters/db/schema.ts';
import type { GenerationStatus } from '../generation/generation.schemas.ts';
import type { GeneratedImagesTable, SceneForgesTable, SceneRefinementsTable } from './scenes.tables.ts';
import { rollUpStatus } from '../generation/rollup.ts';
import { createVariationsRepo } from '../generation/variations.repo.ts';
import { acceptedSceneEnhancement } from '../enhancements/enhancements.repo.ts';
import { busyIn, RUNNING } from '../brands/brand-parts.ts';

export type ForgeRow = SceneForgesTable;
export type VariationRow = GeneratedImagesTable;
export type RefinementRow = SceneRefinementsTable;

/** The pool a variation takes one unit of. */
export const IMAGE_POOL = 'image_generations';

/** Defaults of a variation row; creators fill in the rest. */
export const blankVariation = {
  refinement_id: null,
  source_variation_id: null,
  width: null,
  height: null,
  liked: 0,
  disliked: 0,
  scores: null,
  score_deltas: null,
  critique_status: null,
  critique: null,
  engine: null,
} satisfies Partial<VariationRow>;

/**
 * SQL of scene forges, their refinements and variations. The variations' transitions and the
 * forge's roll-up are generation/variations.repo.ts's (in one transaction that locks the forge);
 * a refinement's status is rolled up in the same transaction.
 */
export function createScenesRepo(db: Database) {
  const k = db.kysely;
  type Tx = Transaction<DB>;

  /** Recomputes a refinement's status from its variations (inside the forge's lock). */
  async function rollUpRefinement(trx: Tx, refinementId: string, at: string): Promise<void> {
    const rows = await trx
      .selectFrom('generated_images')
      .select('status')
      .where('refinement_id', '=', refinementId)
      .execute();
    const status = rollUpStatus(rows.map((r) => r.status as GenerationStatus));
    await trx
      .updateTable('scene_refinements')
      .set({ status, updated_at: at })
      .where('id', '=', refinementId)
      .where('status', '!=', status)
      .execute();
  }

  const runs = createVariationsRepo(db, {
    parents: 'scene_forges',
    variations: 'generated_images',
    parentKey: 'scene_forge_id',
    failedMessage: () => 'No variation could be generated; see each variation for its reason',
    alsoRollUp: async (trx, v, at) => {
      if (v.refinement_id) await rollUpRefinement(trx, v.refinement_id, at);
    },
  });

  return {
    /** The forge and its first variations, in one transaction. */
    async insertForge(forge: ForgeRow, variations: VariationRow[]): Promise<void> {
      await k.transaction().execute(async (trx) => {
        await trx.insertInto('scene_forges').values(forge).execute();
        await trx.insertInto('generated_images').values(variations).execute();
      });
    },

    /** A refinement and its variations, in one transaction that locks the forge. */
    async insertRefinement(refinement: RefinementRow, variations: VariationRow[], at: string): Promise<void> {
      await k.transaction().execute(async (trx) => {
        const forge = await runs.lockParent(trx, refinement.scene_forge_id);
        await trx.insertInto('scene_refinements').values(refinement).execute();
        await trx.insertInto('generated_images').values(variations).execute();
        if (forge) await runs.rollUp(trx, forge, at);
      });
    },

    async deleteRefinement(id: string): Promise<void> {
      await k.transaction().execute(async (trx) => {
        await trx.deleteFrom('generated_images').where('refinement_id', '=', id).execute();
        await trx.deleteFrom('scene_refinements').where('id', '=', id).execute();
      });
    },

    async refinementById(id: string): Promise<RefinementRow | undefined> {
      return k.selectFrom('scene_refinements').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** Refinements of these forges, oldest first. */
    async refinementsOf(forgeIds: string[]): Promise<RefinementRow[]> {
      if (forgeIds.length === 0) return [];
      return k
        .selectFrom('scene_refinements')
        .selectAll()
        .where('scene_forge_id', 'in', forgeIds)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },

    async deleteForge(id: string): Promise<void> {
      await k.deleteFrom('scene_forges').where('id', '=', id).execute();
    },

    findForge: runs.findParent,
    forgeById: runs.parentById,
    variationById: runs.variationById,
    parentOf: runs.parentOf,

    /** Variations of these forges, by generation then position. */
    async variationsOf(forgeIds: string[]): Promise<VariationRow[]> {
      if (forgeIds.length === 0) return [];
      return k
        .selectFrom('generated_images')
        .selectAll()
        .where('scene_forge_id', 'in', forgeIds)
        .orderBy('generation')
        .orderBy('position')
        .execute();
    },

    /** A page of the brand's forges and their count. */
    listForges: runs.listParents,

    /** The accepted scene enhancement of this brand whose optimized prompt is exactly `text`. */
    acceptedEnhancement: (orgId: string, brandId: string, text: string) =>
      acceptedSceneEnhancement(k, orgId, brandId, text),

    /** Sets a variation's reaction (liked and disliked are exclusive); returns the row, or undefined. */
    async react(
      orgId: string,
      forgeId: string,
      variationId: string,
      reaction: { liked: number; disliked: number },
      at: string,
    ): Promise<VariationRow | undefined> {
      await k
        .updateTable('generated_images')
        .set({ ...reaction, updated_at: at })
        .where('organization_id', '=', orgId)
        .where('scene_forge_id', '=', forgeId.toLowerCase())
        .where('id', '=', variationId.toLowerCase())
        .where((eb) => eb.or([eb('liked', '!=', reaction.liked), eb('disliked', '!=', reaction.disliked)]))
        .execute();
      return k
        .selectFrom('generated_images')
        .selectAll()
        .where('organization_id', '=', orgId)
        .where('scene_forge_id', '=', forgeId.toLowerCase())
        .where('id', '=', variationId.toLowerCase())
        .executeTakeFirst();
    },

    /** `pending` → `processing` for a variation (and its forge); false when already terminal. */
    start: runs.start,
    /**
     * Makes a variation terminal (once) and rolls its forge (and refinement) up: the variation's
     * reservation and the forge as this transaction left it, or undefined (variations.repo.ts).
     */
    finish: runs.finish,
  };
}

export type ScenesRepo = ReturnType<typeof createScenesRepo>;

/**
 * The scene forges and variations under a brand, for deleting the brand (brands.delete.ts): pending
 * or processing is busy; the rows go with the brand (ON DELETE CASCADE), their images with its assets.
 */
export const scenesUnderBrand = {
  busy: busyIn({ scene_forges: RUNNING, generated_images: RUNNING }),
};

/** The scene variation whose result is this asset (such an asset is deleted with its brand). */
export async function sceneVariationOfAsset(k: Kysely<DB>, assetId: string) {
  const r = await k.selectFrom('generated_images').select('id').where('asset_id', '=', assetId).executeTakeFirst();
  return r && { resource: 'generated_images', id: r.id };
}
