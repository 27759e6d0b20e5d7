import type { Database } from '../../adapters/db/database.ts';
import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import { conflict, notFound } from '../../http/errors.ts';
import { assetFolder } from '../assets/assets.keys.ts';

/** Statuses of work still queued or running, per table that hangs under a brand. */
const RUNNING = {
  assets: ['uploaded', 'processing'],
  extractions: ['pending', 'processing'],
  brand_dna_versions: ['pending', 'extracting'],
  scene_forges: ['pending', 'processing'],
  generated_images: ['pending', 'processing'],
  environment_generations: ['pending', 'processing'],
  prompt_enhancements: ['pending', 'processing'],
  video_groups: ['pending', 'processing'],
  generated_videos: ['pending', 'processing'],
  video_prompt_enhancements: ['pending', 'processing'],
} as const;

/**
 * Deletes a brand with everything under it (console only, docs/decisions/access.md "Console: sessions
 * and keys"): its assets (generated ones included) and their stored objects, URL extractions,
 * Brand DNA versions, scene forges, environments, enhancements and videos. Refused with 409
 * `BRAND_BUSY` while any of that work is still queued or running. Usage already counted stays.
 */
export async function deleteBrand(
  db: Database,
  storage: Pick<ObjectStorage, 'deletePrefix' | 'delete'>,
  orgId: string,
  id: string,
): Promise<void> {
  const k = db.kysely;
  const brandId = id.toLowerCase();
  const brand = await k
    .selectFrom('brands')
    .select('id')
    .where('id', '=', brandId)
    .where('organization_id', '=', orgId)
    .executeTakeFirst();
  if (!brand) throw notFound(`Brand ${brandId} not found`, 'BRAND_NOT_FOUND');
  for (const [table, statuses] of Object.entries(RUNNING) as [keyof typeof RUNNING, readonly string[]][]) {
    const busy = await k
      .selectFrom(table)
      .select('id')
      .where('brand_id', '=', brandId)
      .where('status', 'in', statuses)
      .limit(1)
      .executeTakeFirst();
    if (busy) {
      throw conflict(
        `Brand ${brandId} still has work in progress (${table.replaceAll('_', ' ')}); delete it once that work has finished`,
        'BRAND_BUSY',
        { resource: table },
      );
    }
  }
  const assetIds = (await k.selectFrom('assets').select('id').where('brand_id', '=', brandId).execute()).map(
    (r) => r.id,
  );
  const versionIds = (
    await k.selectFrom('brand_dna_versions').select('id').where('brand_id', '=', brandId).execute()
  ).map((r) => r.id);
  const staged = (
    await k
      .selectFrom('extraction_candidates as c')
      .innerJoin('extractions as e', 'e.id', 'c.extraction_id')
      .select('c.staged_key')
      .where('e.brand_id', '=', brandId)
      .where('c.staged_key', 'is not', null)
      .execute()
  ).map((r) => r.staged_key as string);
  await k.transaction().execute(async (trx) => {
    // Tags and uploads go with their assets, candidates with their extractions, and every
    // generation and Brand DNA table with the brand (foreign keys ON DELETE CASCADE).
    await trx.deleteFrom('assets').where('brand_id', '=', brandId).where('organization_id', '=', orgId).execute();
    await trx.deleteFrom('extractions').where('brand_id', '=', brandId).where('organization_id', '=', orgId).execute();
    await trx.deleteFrom('brands').where('id', '=', brandId).where('organization_id', '=', orgId).execute();
  });
  // Stored objects after the commit: a failure leaves an unreferenced object, never a dangling row.
  await Promise.allSettled([
    ...assetIds.map((a) => storage.deletePrefix(assetFolder(orgId, a))),
    // Brand DNA findings (versionFolder in brand-dna.service.ts).
    ...versionIds.map((v) => storage.deletePrefix(`orgs/${orgId}/brand-dna/${v}/`)),
    ...staged.map((key) => storage.delete(key)),
  ]);
}
