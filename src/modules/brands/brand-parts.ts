import type { Kysely } from 'kysely';
import type { DB } from '../../adapters/db/schema.ts';

/**
 * What a module keeps under a brand, given by the module that owns those tables (its repo), so
 * that deleting a brand (brands.delete.ts) reads and writes no other module's table itself.
 */
export interface BrandPart {
  /** The first of its tables with work still queued or running under the brand, if any. */
  busy(k: Kysely<DB>, brandId: string): Promise<string | undefined>;
  /** Its stored objects under the brand, removed after the commit: folders and single keys. */
  stored?(k: Kysely<DB>, orgId: string, brandId: string): Promise<{ prefixes?: string[]; keys?: string[] }>;
  /** Deletes its rows under the brand inside the brand's transaction (when no foreign key cascades them). */
  delete?(trx: Kysely<DB>, orgId: string, brandId: string): Promise<void>;
}

/** The tables whose rows belong to a brand and carry a work status. */
type BrandWorkTable = {
  [T in keyof DB]: DB[T] extends { brand_id: string; status: unknown } ? T : never;
}[keyof DB];

/** The statuses of a generation run or variation still queued or running. */
export const RUNNING = ['pending', 'processing'] as const;

/**
 * A BrandPart's `busy` over its own tables: the first of `tables` (in their order) with a row of
 * the brand in one of that table's busy statuses.
 */
export function busyIn(tables: Partial<Record<BrandWorkTable, readonly string[]>>): BrandPart['busy'] {
  return async (k, brandId) => {
    for (const [table, statuses] of Object.entries(tables) as [BrandWorkTable, readonly string[]][]) {
      const row = await k
        .selectFrom(table)
        .select('id')
        .where('brand_id', '=', brandId)
        .where('status', 'in', statuses)
        .limit(1)
        .executeTakeFirst();
      if (row) return table;
    }
    return undefined;
  };
}
