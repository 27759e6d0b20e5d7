import type { Transaction } from 'kysely';
import type { Database } from '../../adapters/db/database.ts';
import type { DB } from '../../adapters/db/schema.ts';
import { type GenerationStatus, PARTNERS } from '../generation/generation.schemas.ts';
import type { GeneratedImagesTable, SceneForgesTable, SceneRefinementsTable } from './scenes.tables.ts';
import { rollUpStatus } from '../generation/rollup.ts';

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
  error_code: null,
  error_message: null,
  completed_at: null,
  failed_at: null,
} satisfies Partial<VariationRow>;

export interface ForgeListQuery {
  /** A partner slug, or `all`; the default bucket when omitted. */
  partner: string;
  status?: GenerationStatus | undefined;
  sortBy: 'createdAt' | 'updatedAt';
  sortOrder: 'asc' | 'desc';
  offset: number;
  limit: number;
}

/** Variation fields a terminal transition writes. */
export type VariationOutcome = Partial<
  Pick<
    VariationRow,
    'width' | 'height' | 'scores' | 'warnings' | 'engine' | 'error_code' | 'error_message' | 'critique_status'
  >
>;

/**
 * SQL of scene forges and their variations. Every variation transition and the forge's roll-up
 * run in one transaction that first locks the forge row (PostgreSQL; SQLite runs one write
 * transaction at a time), so two variations finishing together cannot leave a stale forge status.
 */
export function createScenesRepo(db: Database) {
  const k = db.kysely;
  type Tx = Transaction<DB>;

  async function lockForge(trx: Tx, forgeId: string): Promise<ForgeRow | undefined> {
    let q = trx.selectFrom('scene_forges').selectAll().where('id', '=', forgeId);
    if (db.dialect === 'postgres') q = q.forUpdate();
    return q.executeTakeFirst();
  }

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

  /** Recomputes the forge's status from all its variations (inside the forge's lock); returns it. */
  async function rollUp(trx: Tx, forge: ForgeRow, at: string): Promise<GenerationStatus> {
    const rows = await trx
      .selectFrom('generated_images')
      .select('status')
      .where('scene_forge_id', '=', forge.id)
      .execute();
    const status = rollUpStatus(rows.map((r) => r.status as GenerationStatus));
    if (status === forge.status) return status;
    await trx
      .updateTable('scene_forges')
      .set({
        status,
        updated_at: at,
        completed_at: status === 'completed' ? at : null,
        failed_at: status === 'failed' ? at : null,
        error_code: status === 'failed' ? 'GENERATION_FAILED' : null,
        error_message:
          status === 'failed' ? 'No variation could be generated; see each variation for its reason' : null,
      })
      .where('id', '=', forge.id)
      .execute();
    return status;
  }

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
        const forge = await lockForge(trx, refinement.scene_forge_id);
        await trx.insertInto('scene_refinements').values(refinement).execute();
        await trx.insertInto('generated_images').values(variations).execute();
        if (forge) await rollUp(trx, forge, at);
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

    async findForge(orgId: string, id: string): Promise<ForgeRow | undefined> {
      return k
        .selectFrom('scene_forges')
        .selectAll()
        .where('organization_id', '=', orgId)
        .where('id', '=', id.toLowerCase())
        .executeTakeFirst();
    },

    async forgeById(id: string): Promise<ForgeRow | undefined> {
      return k.selectFrom('scene_forges').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async variationById(id: string): Promise<VariationRow | undefined> {
      return k.selectFrom('generated_images').selectAll().where('id', '=', id).executeTakeFirst();
    },

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

    async listForges(orgId: string, brandId: string, q: ForgeListQuery): Promise<{ rows: ForgeRow[]; total: number }> {
      let base = k.selectFrom('scene_forges').where('organization_id', '=', orgId).where('brand_id', '=', brandId);
      if (q.partner !== 'all') base = base.where('partner', '=', q.partner);
      if (q.status) base = base.where('status', '=', q.status);
      const total = Number((await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
      const column = q.sortBy === 'updatedAt' ? 'updated_at' : 'created_at';
      const rows = await base
        .selectAll()
        .orderBy(column, q.sortOrder)
        .orderBy('id', q.sortOrder)
        .limit(q.limit)
        .offset(q.offset)
        .execute();
      return { rows, total };
    },

    /** The accepted scene enhancement of this brand whose optimized prompt is exactly `text`. */
    async acceptedEnhancement(orgId: string, brandId: string, text: string) {
      return k
        .selectFrom('prompt_enhancements')
        .select(['id', 'original_prompt', 'theme'])
        .where('organization_id', '=', orgId)
        .where('brand_id', '=', brandId)
        .where('kind', '=', 'scene')
        .where('status', '=', 'completed')
        .where('optimized_prompt', '=', text)
        .orderBy('created_at', 'desc')
        .executeTakeFirst();
    },

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

    /**
     * `pending` → `processing` for a variation (and its forge when still pending). Returns false
     * when the variation is already terminal (a job that ran again after it finished).
     */
    async start(variationId: string, at: string): Promise<boolean> {
      return k.transaction().execute(async (trx) => {
        const v = await trx
          .selectFrom('generated_images')
          .select(['scene_forge_id', 'status', 'refinement_id'])
          .where('id', '=', variationId)
          .executeTakeFirst();
        if (!v || v.status === 'completed' || v.status === 'failed') return false;
        const forge = await lockForge(trx, v.scene_forge_id);
        if (!forge) return false;
        if (v.status === 'pending') {
          await trx
            .updateTable('generated_images')
            .set({ status: 'processing', updated_at: at })
            .where('id', '=', variationId)
            .execute();
        }
        if (v.refinement_id) await rollUpRefinement(trx, v.refinement_id, at);
        await rollUp(trx, forge, at);
        return true;
      });
    },

    /**
     * Makes a variation terminal (once: a terminal variation is left as it is) and rolls its forge
     * up. Returns the variation's reservation and the forge as this transaction left it when this
     * call made the variation terminal, else undefined. (Announce that forge, not one read again:
     * two variations finishing together would both read the other's roll-up and both announce
     * the forge's end.)
     */
    async finish(
      variationId: string,
      status: 'completed' | 'failed',
      outcome: VariationOutcome,
      at: string,
    ): Promise<{ reservationId: string | null; forge: ForgeRow | undefined } | undefined> {
      return k.transaction().execute(async (trx) => {
        const v = await trx.selectFrom('generated_images').selectAll().where('id', '=', variationId).executeTakeFirst();
        if (!v || v.status === 'completed' || v.status === 'failed') return undefined;
        const forge = await lockForge(trx, v.scene_forge_id);
        await trx
          .updateTable('generated_images')
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
        if (v.refinement_id) await rollUpRefinement(trx, v.refinement_id, at);
        const forgeStatus = forge && (await rollUp(trx, forge, at));
        return { reservationId: v.reservation_id, forge: forge && { ...forge, status: forgeStatus ?? forge.status } };
      });
    },
  };
}

export type ScenesRepo = ReturnType<typeof createScenesRepo>;

/** Partner buckets a list may ask for. */
export const PARTNER_FILTERS = ['all', ...PARTNERS] as const;
