import type { Kysely } from 'kysely';
import type { Database } from '../../adapters/db/database.ts';
import type { DB } from '../../adapters/db/schema.ts';
import type { EnvironmentGenerationsTable } from './environments.tables.ts';
import { createRunsRepo } from '../generation/runs.repo.ts';
import { busyIn, RUNNING } from '../brands/brand-parts.ts';

export type EnvironmentRow = EnvironmentGenerationsTable;

export const createEnvironmentsRepo = (db: Database) => createRunsRepo(db, 'environment_generations');
export type EnvironmentsRepo = ReturnType<typeof createEnvironmentsRepo>;

/**
 * The environment generations under a brand, for deleting the brand (brands.delete.ts): pending or
 * processing is busy; the rows go with the brand (ON DELETE CASCADE), their images with its assets.
 */
export const environmentsUnderBrand = {
  busy: busyIn({ environment_generations: RUNNING }),
};

/** The environment generation whose result is this asset (such an asset is deleted with its brand). */
export async function environmentOfAsset(k: Kysely<DB>, assetId: string) {
  const r = await k
    .selectFrom('environment_generations')
    .select('id')
    .where('asset_id', '=', assetId)
    .executeTakeFirst();
  return r && { resource: 'environment_generations', id: r.id };
}
