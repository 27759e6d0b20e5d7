import type { Database } from '../../adapters/db/database.ts';
import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import { conflict, notFound } from '../../http/errors.ts';
import { assetFolder } from './assets.keys.ts';

/** Where a generated asset comes from: these results own their asset. */
const PRODUCED_BY = [
  ['generated_images', 'a scene forge variation'],
  ['environment_generations', 'an environment generation'],
  ['generated_videos', 'a video generation'],
] as const;

/**
 * Deletes an asset and its stored objects (console only, docs/decisions/access.md "Console: sessions and
 * keys"). Refused with 409 `ASSET_BUSY` while it is being processed, and 409 `ASSET_IN_USE` when
 * it is the result of a generation (those go with their brand). A brand whose logo it was loses
 * its logo; forges that used it as an input keep its id.
 */
export async function deleteAsset(
  db: Database,
  storage: Pick<ObjectStorage, 'deletePrefix'>,
  orgId: string,
  id: string,
  now: string,
): Promise<void> {
  const k = db.kysely;
  const assetId = id.toLowerCase();
  const asset = await k
    .selectFrom('assets')
    .select(['id', 'status'])
    .where('id', '=', assetId)
    .where('organization_id', '=', orgId)
    .executeTakeFirst();
  if (!asset) throw notFound(`Asset ${assetId} not found`, 'ASSET_NOT_FOUND');
  if (asset.status === 'uploaded' || asset.status === 'processing') {
    throw conflict(`Asset ${assetId} is being processed; delete it once it is complete or failed`, 'ASSET_BUSY');
  }
  for (const [table, what] of PRODUCED_BY) {
    const owner = await k.selectFrom(table).select('id').where('asset_id', '=', assetId).executeTakeFirst();
    if (owner) {
      throw conflict(
        `Asset ${assetId} is the result of ${what} (${owner.id}); it is deleted with its brand`,
        'ASSET_IN_USE',
        {
          resource: table,
          id: owner.id,
        },
      );
    }
  }
  await k.transaction().execute(async (trx) => {
    await trx
      .updateTable('brands')
      .set((eb) => ({ logo_asset_id: null, logo_asset_type: null, updated_at: now, version: eb('version', '+', 1) }))
      .where('organization_id', '=', orgId)
      .where('logo_asset_id', '=', assetId)
      .execute();
    // Tags and uploads go with it (ON DELETE CASCADE).
    await trx.deleteFrom('assets').where('id', '=', assetId).where('organization_id', '=', orgId).execute();
  });
  await storage.deletePrefix(assetFolder(orgId, assetId)).catch(() => 0);
}
