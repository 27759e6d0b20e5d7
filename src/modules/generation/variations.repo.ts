import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../adapters/db/database.ts';
import type { DB } from '../../adapters/db/schema.ts';
import type { GenerationStatus } from './generation.schemas.ts';
import { rollUpStatus } from './rollup.ts';

/** The lifecycle columns of a parent (a scene forge, a video group). */
interface Parent {
  id: string;
  organization_id: string;
  brand_id: string;
  partner: string;
  status: string;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  failed_at: string | null;
  error_code: string | null;
  error_message: string | null;
}

/** The lifecycle columns of a variation; `parent_id` stands for the column naming its parent. */
interface Variation {
  id: string;
  organization_id: string;
  parent_id: string;
  status: string;
  reservation_id: string | null;
  error_message: string | null;
  updated_at: string;
  completed_at: string | null;
  failed_at: string | null;
}

export type ParentTable = { [K in keyof DB]: DB[K] extends Parent ? K : never }[keyof DB];
export type VariationTable = {
  [K in keyof DB]: DB[K] extends Omit<Variation, 'parent_id'> ? K : never;
}[keyof DB];

/** A page of a brand's parents. */
export interface ParentListQuery {
  /** A partner slug, or `all`; the default bucket when omitted. */
  partner: string;
  status?: GenerationStatus | undefined;
  /** Default createdAt. */
  sortBy?: 'createdAt' | 'updatedAt';
  sortOrder: 'asc' | 'desc';
  offset: number;
  limit: number;
}

export interface VariationsRepoOptions<P extends ParentTable, V extends VariationTable> {
  /** The parents' table (scene_forges, video_groups). */
  parents: P;
  /** The variations' table (generated_images, generated_videos). */
  variations: V;
  /** The variations' column naming their parent. */
  parentKey: keyof DB[V] & string;
  /** A failed parent's error message, from its variations' distinct reasons. */
  failedMessage(reasons: string[]): string;
  /** A second roll-up a variation's move makes inside the parent's lock (a scene refinement's). */
  alsoRollUp?(trx: Transaction<DB>, variation: DB[V], at: string): Promise<void>;
}

/**
 * The lifecycle SQL shared by generations made of variations under a parent (scene forges, video
 * groups). Every variation transition and the parent's roll-up run in one transaction that first
 * locks the parent row (PostgreSQL; SQLite runs one write transaction at a time), so two
 * variations finishing together cannot leave a stale parent status.
 */
export function createVariationsRepo<P extends ParentTable, V extends VariationTable>(
  db: Database,
  o: VariationsRepoOptions<P, V>,
) {
  type ParentRow = DB[P];
  type VariationRow = DB[V];
  // The tables have these columns; Kysely is shown just them under two names (as in runs.repo.ts).
  type K = Kysely<{ parents: Parent; variations: Variation }>;
  type Tx = Transaction<{ parents: Parent; variations: Variation }>;
  const k = db.kysely as unknown as K;
  const parents = o.parents as unknown as 'parents';
  const variations = o.variations as unknown as 'variations';
  const parentKey = o.parentKey as 'parent_id';

  async function lockParent(trx: Transaction<DB>, id: string): Promise<ParentRow | undefined> {
    let q = (trx as unknown as Tx).selectFrom(parents).selectAll().where('id', '=', id);
    if (db.dialect === 'postgres') q = q.forUpdate();
    return (await q.executeTakeFirst()) as ParentRow | undefined;
  }

  /** Recomputes the parent's status from all its variations (inside the parent's lock); returns it. */
  async function rollUp(trx: Transaction<DB>, parent: ParentRow, at: string): Promise<GenerationStatus> {
    const t = trx as unknown as Tx;
    const p = parent as unknown as Parent;
    const rows = await t
      .selectFrom(variations)
      .select(['status', 'error_message'])
      .where(parentKey, '=', p.id)
      .execute();
    const status = rollUpStatus(rows.map((r) => r.status as GenerationStatus));
    if (status === p.status) return status;
    const reasons = [...new Set(rows.map((r) => r.error_message).filter((m): m is string => !!m))];
    await t
      .updateTable(parents)
      .set({
        status,
        updated_at: at,
        completed_at: status === 'completed' ? at : null,
        failed_at: status === 'failed' ? at : null,
        error_code: status === 'failed' ? 'GENERATION_FAILED' : null,
        error_message: status === 'failed' ? o.failedMessage(reasons) : null,
      })
      .where('id', '=', p.id)
      .execute();
    return status;
  }

  const variationIn = async (t: Tx | K, id: string) =>
    (await t.selectFrom(variations).selectAll().where('id', '=', id).executeTakeFirst()) as unknown as
      | VariationRow
      | undefined;
  const parentIdOf = (v: VariationRow) => (v as unknown as Variation)[parentKey];
  const isTerminal = (v: VariationRow) => {
    const s = (v as unknown as Variation).status;
    return s === 'completed' || s === 'failed';
  };

  const parentById = async (id: string): Promise<ParentRow | undefined> =>
    (await k.selectFrom(parents).selectAll().where('id', '=', id).executeTakeFirst()) as ParentRow | undefined;

  return {
    lockParent,
    rollUp,

    parentById,

    /** A parent of the organization (ids compared in lower case). */
    async findParent(orgId: string, id: string): Promise<ParentRow | undefined> {
      return (await k
        .selectFrom(parents)
        .selectAll()
        .where('organization_id', '=', orgId)
        .where('id', '=', id.toLowerCase())
        .executeTakeFirst()) as ParentRow | undefined;
    },

    async variationById(id: string): Promise<VariationRow | undefined> {
      return variationIn(k, id);
    },

    /** A page of the brand's parents and their count; ties broken by id, so pages are stable. */
    async listParents(
      orgId: string,
      brandId: string,
      q: ParentListQuery,
    ): Promise<{ rows: ParentRow[]; total: number }> {
      let base = k.selectFrom(parents).where('organization_id', '=', orgId).where('brand_id', '=', brandId);
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
      return { rows: rows as unknown as ParentRow[], total };
    },

    /** The parent of a variation. */
    parentOf: (v: VariationRow): Promise<ParentRow | undefined> => parentById(parentIdOf(v)),

    /**
     * `pending` → `processing` for a variation (and its parent when still pending). False when
     * the variation is already terminal (a job that ran again after it finished) or gone.
     */
    async start(variationId: string, at: string): Promise<boolean> {
      return k.transaction().execute(async (t) => {
        const trx = t as unknown as Transaction<DB>;
        const v = await variationIn(t, variationId);
        if (!v || isTerminal(v)) return false;
        const parent = await lockParent(trx, parentIdOf(v));
        if (!parent) return false;
        if ((v as unknown as Variation).status === 'pending') {
          await t
            .updateTable(variations)
            .set({ status: 'processing', updated_at: at })
            .where('id', '=', variationId)
            .execute();
        }
        await o.alsoRollUp?.(trx, v, at);
        await rollUp(trx, parent, at);
        return true;
      });
    },

    /**
     * Makes a variation terminal (once: a terminal variation is left as it is) and rolls its
     * parent up. Returns the variation's reservation and the parent as this transaction left it
     * when this call made the variation terminal, else undefined. (Announce that parent, not one
     * read again: two variations finishing together would both read the other's roll-up and both
     * announce the parent's end.)
     */
    async finish(
      variationId: string,
      status: 'completed' | 'failed',
      outcome: Partial<VariationRow>,
      at: string,
    ): Promise<{ reservationId: string | null; parent: ParentRow | undefined } | undefined> {
      return k.transaction().execute(async (t) => {
        const trx = t as unknown as Transaction<DB>;
        const v = await variationIn(t, variationId);
        if (!v || isTerminal(v)) return undefined;
        const parent = await lockParent(trx, parentIdOf(v));
        await t
          .updateTable(variations)
          .set({
            ...(outcome as Partial<Variation>),
            status,
            updated_at: at,
            completed_at: status === 'completed' ? at : null,
            failed_at: status === 'failed' ? at : null,
          })
          .where('id', '=', variationId)
          .where('status', 'not in', ['completed', 'failed'])
          .execute();
        await o.alsoRollUp?.(trx, v, at);
        const parentStatus = parent && (await rollUp(trx, parent, at));
        return {
          reservationId: (v as unknown as Variation).reservation_id,
          parent: parent && ({ ...parent, status: parentStatus ?? (parent as unknown as Parent).status } as ParentRow),
        };
      });
    },
  };
}

export type VariationsRepo<P extends ParentTable, V extends VariationTable> = ReturnType<
  typeof createVariationsRepo<P, V>
>;
