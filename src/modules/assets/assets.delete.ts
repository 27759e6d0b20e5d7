import type { Database } from '../../adapters/db/database.ts';
import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import { conflict, notFound } from '../../http/errors.ts';
import { clearLogo } from '../brands/brands.repo.ts';
import { environmentOfAsset } from '../environments/environments.repo.ts';
import { sceneVariationOfAsset } from '../scenes/scenes.repo.ts';
import { videoVariationOfAsset } from '../videos/videos.repo.ts';
import { assetFolder } from './assets.keys.ts';

/** Where a generated asset comes from (each kind's repo finds its own): these results own their asset. */
const PRODUCED_BY = [
  [sceneVariationOfAsset, 'a scene forge variation'],
  [environmentOfAsset, 'an environment generation'],
  [videoVariationOfAsset, 'a video generation'],
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
  for (const [producerOf, what] of PRODUCED_BY) {
    const owner = await producerOf(k, assetId);
    if (owner) {
      throw conflict(
        `Asset ${assetId} is the result of ${what} (${owner.id}); it is deleted with its brand`,
        'ASSET_IN_USE',
        {
          resource: owner.resource,
          id: owner.id,
        },
      );
    }
  }
  await k.transaction().execute(async (trx) => {
    await clearLogo(trx, orgId, assetId, now);
    // Tags and uploads go with it (ON DELETE CASCADE).
    await trx.deleteFrom('assets').where('id', '=', assetId).where('organization_id', '=', orgId).execute();
  });
  await storage.deletePrefix(assetFolder(orgId, assetId)).catch(() => 0);
}
